// A device file checked against measurements without fitting (calibrate/calibration.h,
// check_device: what `amdahl calibrate check` reports).
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "calibrate/calibration.h"
#include "synthetic_gpu.h"
using namespace amdahl;
using namespace amdahl::calibrate;

namespace {

Measurement gemm_row(std::int64_t m, std::int64_t n, std::int64_t k, const char* precision) {
  Measurement x;
  x.bench = "gemm";
  x.op_class = "gemm";
  x.precision = precision;
  x.shape = {{"m", std::to_string(m)}, {"n", std::to_string(n)}, {"k", std::to_string(k)}};
  x.flops = 2.0 * m * n * k;
  x.bytes = (x.precision == "fp16" ? 2.0 : 4.0) * (m * k + k * n + m * n);
  return x;
}

// GEMMs of 2048-8192 per side at fp32 and fp16, timed by `truth` (compute-bound: microseconds
// of latency against milliseconds of work), plus rows of a class no plan fits.
MeasurementSet measured_by(const hw::DeviceSpec& truth) {
  std::mt19937 rng(5);  // fixed seed: the test is deterministic
  std::uniform_int_distribution<int> dim(8, 32);
  MeasurementSet set;
  for (int i = 0; i < 20; ++i) {
    const std::int64_t m = 256 * dim(rng), n = 256 * dim(rng), k = 256 * dim(rng);
    for (const char* precision : {"fp32", "fp16"}) {
      Measurement x = gemm_row(m, n, k, precision);
      x.time_s = predict_time(to_samples({x}).front(), truth);
      set.rows.push_back(x);
    }
    Measurement other = set.rows.back();
    other.bench = "conv_fwd";
    other.op_class = "conv_algorithm";  // amdahl-cudabench's every-algorithm rows
    set.rows.push_back(other);
  }
  return set;
}

hw::DeviceSpec tensor_core_gpu(double fp32_compute, double fp16_compute) {
  hw::DeviceSpec d = test::synthetic_gpu();
  d.peak[Precision::kFp16] = {80e12, hw::ComputeUnit::kTensor};
  d.efficiency[hw::entry("gemm")] = hw::ClassEfficiency{fp32_compute, 0.8};
  d.efficiency[hw::entry("gemm.fp16")] = hw::ClassEfficiency{fp16_compute, 0.8};
  return d;
}

}  // namespace

TEST_CASE("a checked device's errors are its predictions' against every planned row",
          "[calibrate][check]") {
  const MeasurementSet set = measured_by(tensor_core_gpu(0.8, 0.5));
  const ClassPlan plan{{OpClass::kGemm}, ModelForm::kGemmLike, FitOptions{}, {}};

  SECTION("the device that timed the rows predicts them exactly") {
    const auto checks = check_device(set, tensor_core_gpu(0.8, 0.5), {plan});
    REQUIRE(checks.size() == 2);  // the conv_algorithm rows are not checked
    CHECK(checks[0].entry.name() == "gemm");
    CHECK(checks[1].entry.name() == "gemm.fp16");
    for (const auto& c : checks) {
      CHECK(c.errors.count == 20);
      CHECK(c.errors.max_abs < 1e-12);
    }
  }
  SECTION("half the fp32 compute fraction: fp32 rows predicted twice as slow, fp16 exact") {
    // time = FLOPs / (peak x compute) + 5 us launch: at 1.6-44 ms per GEMM the launch moves
    // the ratio by at most 0.3%.
    const auto checks = check_device(set, tensor_core_gpu(0.4, 0.5), {plan});
    REQUIRE(checks.size() == 2);
    CHECK(checks[0].errors.median_abs == Approx(1.0).epsilon(0.003));
    CHECK(checks[0].errors.mean_signed == Approx(1.0).epsilon(0.003));
    CHECK(checks[1].errors.max_abs < 1e-12);
  }
  SECTION("a calibrated device predicts every row as its own fit did") {
    const Calibration c = calibrate_device(set, test::synthetic_gpu(), {plan});
    const auto checks = check_device(set, c.device, {plan});
    REQUIRE(checks.size() == c.fits.size());
    for (std::size_t i = 0; i < checks.size(); ++i) {
      std::map<std::string, double> fitted;
      for (const auto& r : c.fits[i].residuals) fitted[r.label] = r.predicted_s;
      REQUIRE(checks[i].residuals.size() == fitted.size());
      for (const auto& r : checks[i].residuals) CHECK(r.predicted_s == fitted.at(r.label));
    }
  }
}

TEST_CASE("check residuals are written in the residuals columns with split check",
          "[calibrate][check]") {
  const MeasurementSet set = measured_by(tensor_core_gpu(0.8, 0.5));
  const ClassPlan plan{{OpClass::kGemm}, ModelForm::kGemmLike, FitOptions{}, {}};
  const std::string csv = check_residuals_csv(check_device(set, tensor_core_gpu(0.4, 0.5), {plan}));
  CHECK(csv.rfind("entry,split,measurement,measured_us,predicted_us,error,model_kernel\n", 0) == 0);
  CHECK(csv.find("gemm,check,\"gemm ") != std::string::npos);
  CHECK(csv.find("gemm.fp16,check,") != std::string::npos);
  CHECK(csv.find(",train,") == std::string::npos);
}
