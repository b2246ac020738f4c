#include "calibrate/profile_kernels.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "graphs/zoo.h"
#include "model/roofline.h"
#include "scratch_dir.h"
#include "synthetic_gpu.h"
#include "util/error.h"
#include "validate/kernel_profile.h"

using namespace amdahl;
using namespace amdahl::calibrate;
using amdahl::test::write_scratch_file;

namespace {

// The fit recovers parameters to these relative errors from times the model gave with them:
// two configurations determine two parameters exactly, and the fit's weak pull toward its
// starting values (kPriorWeight) moves the small latency most.
constexpr double kRecovered = 1e-3;
constexpr double kLatencyRecovered = 1e-2;

// The device time of the ops of `cls` and `phase` in the training step of the zoo's ResNet-50
// at `batch`, costed on `device`: what a profile's kernel rows of that class and pass hold.
double class_time(std::int64_t batch, OpClass cls, Phase phase, const hw::DeviceSpec& device) {
  graphs::LoweringOptions lo;
  lo.fused_optimizer = kProfileOptimizer;
  lo.conv_bias_kernel = true;
  const graphs::LoweredNetwork net = graphs::lower(
      graphs::bind_sizes(graphs::load_zoo_network("resnet50"), {{"batch", batch}}), lo);
  double s = 0;
  for (graphs::OpId id = 0; id < net.graph.size(); ++id) {
    const graphs::Operator& op = net.graph.op(id);
    if (op.op_class == cls && op.phase == phase) s += model::estimate(op, device).time_s;
  }
  return s;
}

// One profile row: a kernel's device time summed over `steps` steps.
std::string row(std::int64_t batch, const std::string& kernel, double seconds_per_step) {
  constexpr int steps = 3;
  return fmt::format("resnet50,{},fp32,\"{}\",{},{},0,{}\n", batch, kernel, 53 * steps,
                     seconds_per_step * 1e6 * steps, steps);
}

constexpr const char* kHeader = "model,batch,precision,op,calls,self_device_us,self_cpu_us,steps\n";
constexpr const char* kBnForward = "void cudnn::bn_fw_tr_1C11_singleread<float, 512>(args)";
constexpr const char* kBnBackward = "void cudnn::bn_bw_1C11_singleread<float, 512>(args)";

}  // namespace

TEST_CASE("kernel_phase reads the pass from a kernel's name", "[calibrate][profile]") {
  CHECK(validate::kernel_phase(kBnForward) == Phase::kForward);
  CHECK(validate::kernel_phase(kBnBackward) == Phase::kBackwardData);
  CHECK(validate::kernel_phase("max_pool_backward_nchw<float>") == Phase::kBackwardData);
  CHECK(validate::kernel_phase("atomic_adaptive_average_gradinput<float>") == Phase::kBackwardData);
  CHECK(validate::kernel_phase("sm80_xmma_wgrad_implicit_gemm_indexed") == Phase::kBackwardWeight);
  CHECK(validate::kernel_phase("cutlass_80_simt_sgemm_128x32") == Phase::kForward);
}

TEST_CASE("batch-norm entries fitted to a profile's kernel rows recover their parameters",
          "[calibrate][profile]") {
  hw::DeviceSpec truth = calibrate::test::synthetic_gpu();
  truth.efficiency[hw::entry("normalization")] = {0.75, 0.5, 4e-6};
  truth.efficiency[hw::entry("normalization_bwd_data")] = {0.75, 0.3, 2e-6};
  std::string csv = kHeader;
  for (std::int64_t batch : {1, 16}) {
    csv +=
        row(batch, kBnForward, class_time(batch, OpClass::kNormalization, Phase::kForward, truth));
    csv += row(batch, kBnBackward,
               class_time(batch, OpClass::kNormalization, Phase::kBackwardData, truth));
  }
  const auto fits = fit_profile_entries(write_scratch_file("profile_bn.csv", csv), "a test profile",
                                        calibrate::test::synthetic_gpu());
  REQUIRE(fits.size() == 2);  // no pooling or optimizer kernels in the profile
  CHECK(fits[0].entry == hw::entry("normalization"));
  CHECK(fits[0].params.memory == Approx(0.5).epsilon(kRecovered));
  CHECK(fits[0].params.latency_s == Approx(4e-6).epsilon(kLatencyRecovered));
  CHECK(fits[1].entry == hw::entry("normalization_bwd_data"));
  CHECK(fits[1].params.memory == Approx(0.3).epsilon(kRecovered));
  CHECK(fits[1].params.latency_s == Approx(2e-6).epsilon(kLatencyRecovered));
  CHECK_THAT(fits[0].source, Catch::Contains("2 configurations (resnet50 b1, resnet50 b16)"));
}

TEST_CASE("a profile entry with fewer configurations than parameters is refused with the counts",
          "[calibrate][profile]") {
  const std::string csv = std::string(kHeader) + row(16, kBnForward, 1e-3);
  CHECK_THROWS_WITH(fit_profile_entries(write_scratch_file("profile_one.csv", csv),
                                        "a test profile", calibrate::test::synthetic_gpu()),
                    Catch::Contains("'normalization' needs at least 2 training measurements to "
                                    "fit 2 parameters (got 1)"));
}

TEST_CASE("a profile naming a model no zoo network defines is a located error",
          "[calibrate][profile]") {
  const std::string csv = std::string(kHeader) + "lenet,16,fp32,bn_fw_x,3,100,0,3\n";
  const std::string path = write_scratch_file("profile_lenet.csv", csv);
  CHECK_THROWS_WITH(fit_profile_entries(path, "a test profile", calibrate::test::synthetic_gpu()),
                    Catch::Contains(path + ":2: column model: no zoo network is the PyTorch "
                                           "definition 'lenet'"));
}
