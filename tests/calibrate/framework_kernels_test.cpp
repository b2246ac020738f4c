// The framework kernel rows (calibrate/cpu/framework_kernels.h): parsing the script's output,
// FLOPs and bytes by the op graph's formulas, which rows a CPU fit takes, and the script
// itself through the framework when this machine has it.

#include "calibrate/cpu/framework_kernels.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

#include "calibrate/calibration.h"
#include "calibrate/cpu/cpu_calibration.h"
#include "calibrate/measured_op.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;
using Catch::Matchers::Contains;

namespace {

const char* kOutput =
    "# framework: pytorch 9.9\n"
    "# framework_threads: 1\n"
    "# framework_conv_gemm_pointwise_below_batch: 16\n"
    "# framework_conv_gemm_single_max_input: 20480\n"
    "bench,shape,time_s,reps\n"
    "dispatch,op=add_1_element;framework=pytorch 9.9,4e-06,20\n"
    "gemm,m=8;n=1000;k=4096;framework=pytorch 9.9,0.02,5\n"
    "conv_fwd,n=8;c=96;h=56;w=56;k=96;r=3;s=3;pad=1;stride=1;groups=96;backend=Mkldnn;"
    "framework=pytorch 9.9,0.004,5\n"
    "conv_bwd_data,n=8;c=64;h=56;w=56;k=256;r=1;s=1;pad=0;stride=1;groups=1;backend=Slow2d;"
    "framework=pytorch 9.9,0.3,3\n"
    "batchnorm_fwd,n=8;c=64;h=56;w=56;framework=pytorch 9.9,0.004,5\n"
    "batchnorm_bwd_data,n=8;c=64;h=56;w=56;framework=pytorch 9.9,0.0015,5\n"
    "maxpool_fwd,n=8;c=64;h=112;w=112;r=3;s=3;stride=2;pad=1;framework=pytorch 9.9,0.07,5\n"
    "maxpool_bwd_data,n=8;c=64;h=112;w=112;r=3;s=3;stride=2;pad=1;framework=pytorch 9.9,0.008,5\n"
    "elementwise_add,n=1024;framework=pytorch 9.9,3e-06,5\n"
    "optimizer_momentum,n=1024;framework=pytorch 9.9,3e-05,5\n"
    "gemm_bwd_filter,m=1000;n=4096;k=8;framework=pytorch 9.9,0.02,5\n"
    "batchnorm_infer,n=8;c=64;h=56;w=56;framework=pytorch 9.9,0.0006,5\n";

std::string error_of(const std::string& text) {
  try {
    parse_framework_output(text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

Measurement row(const std::string& bench, const std::string& op_class, bool framework) {
  Measurement m;
  m.bench = bench;
  m.op_class = op_class;
  m.precision = "fp32";
  m.shape = {{"n", "1024"}};
  if (framework) m.shape["framework"] = "pytorch 9.9";
  m.time_s = 1e-5;
  return m;
}

}  // namespace

TEST_CASE("framework kernel rows carry the op graph's FLOPs and bytes", "[calibrate][cpu]") {
  const FrameworkKernels k = parse_framework_output(kOutput);
  CHECK(k.framework == "pytorch 9.9");
  CHECK(k.provenance.at("framework_threads") == "1");
  CHECK(k.dispatch_s == 4e-6);
  REQUIRE(k.rows.size() == 12);
  const auto& gemm = k.rows[1];
  CHECK(gemm.op_class == "gemm");
  CHECK(gemm.flops == 2.0 * 8 * 1000 * 4096);
  CHECK(gemm.bytes == 4.0 * (8 * 4096 + 4096 * 1000 + 8 * 1000));
  // Depthwise 3x3: 2 N K P Q (C/g) R S FLOPs; W is K x (C/g) x 3 x 3.
  const auto& depthwise = k.rows[2];
  CHECK(depthwise.op_class == "conv");
  CHECK(depthwise.flops == 2.0 * 8 * 96 * 56 * 56 * 1 * 9);
  CHECK(depthwise.bytes == 4.0 * (8 * 96 * 56 * 56 + 96 * 9 + 8 * 96 * 56 * 56));
  const graphs::Operator op = to_operator(depthwise);
  CHECK(op.gemm.m == 8 * 56 * 56);
  CHECK(op.gemm.n == 1);
  CHECK(op.gemm.k == 9);
  CHECK(op.gemm.batch == 96);
  CHECK(op.conv_batch == 8);
  CHECK(op.conv_groups == 96);
  CHECK(op.conv_input_elements == 8.0 * 96 * 56 * 56);
  // Batch norm (graphs/ops/norm.cpp): forward reads X twice and writes Y; backward reads X and
  // dY twice each and writes dX, dgamma, dbeta.
  const double x = 8.0 * 64 * 56 * 56;
  CHECK(k.rows[4].op_class == "normalization");
  CHECK(k.rows[4].bytes == 4 * 3 * x);
  CHECK(k.rows[5].bytes == 4 * (5 * x + 2 * 64));
  CHECK(to_operator(k.rows[5]).phase == Phase::kBackwardData);
  // Max pooling 3x3 stride 2 pad 1, 112 -> 56 (graphs/ops/pool.cpp).
  const double in = 8.0 * 64 * 112 * 112, out = 8.0 * 64 * 56 * 56;
  CHECK(k.rows[6].op_class == "pooling");
  CHECK(k.rows[6].flops == out * 9);
  CHECK(k.rows[6].bytes == 4 * (in + out));
  CHECK(k.rows[7].bytes == 4 * (out + 2 * in));
  CHECK(k.rows[8].bytes == 12 * 1024);
  // SGD momentum (graphs/optimizer.cpp): 4 FLOPs, 20 bytes per parameter.
  CHECK(k.rows[9].op_class == "optimizer");
  CHECK(k.rows[9].flops == 4 * 1024);
  CHECK(k.rows[9].bytes == 20 * 1024);
  // A linear layer's weight gradient dY^T X: its own phase (the gemm_bwd_filter entry).
  CHECK(k.rows[10].op_class == "gemm");
  CHECK(k.rows[10].flops == 2.0 * 1000 * 4096 * 8);
  const graphs::Operator dw = to_operator(k.rows[10]);
  CHECK(dw.phase == Phase::kBackwardWeight);
  CHECK(dw.gemm.k == 8);
  // Inference batch norm: one scale-shift pass, an elementwise op (graphs/ops/norm.cpp).
  CHECK(k.rows[11].op_class == "elementwise");
  CHECK(k.rows[11].flops == 2 * x);
  CHECK(k.rows[11].bytes == 4 * 2 * x);
}

TEST_CASE("malformed framework kernel output is a located error", "[calibrate][cpu]") {
  CHECK_THAT(error_of("bench,shape,time\n"), Contains("line 1: expected the header"));
  CHECK_THAT(error_of("bench,shape,time_s,reps\ngemm,m=1;n=1;k=1,0.1\n"),
             Contains("line 2: expected 4 cells"));
  CHECK_THAT(error_of("bench,shape,time_s,reps\ngemm,m=1;n=1;k=1,0,5\n"),
             Contains("line 2: column time_s: expected a time from 1 ns to 1e+04 s (got '0')"));
  CHECK_THAT(error_of("bench,shape,time_s,reps\nsoftmax_fwd,n=4,1e-3,5\n"),
             Contains("line 2: framework kernel row: unknown bench 'softmax_fwd' (expected one "
                      "of: dispatch, gemm,"));
  CHECK_THAT(error_of("bench,shape,time_s,reps\nconv_fwd,n=1;c=6;h=4;w=4;k=4;r=1;s=1;pad=0;"
                      "stride=1;groups=4,1e-3,5\n"),
             Contains("groups 4 must divide c 6 and k 4"));
  CHECK_THAT(error_of(""), Contains("no header row"));
}

TEST_CASE("a class with framework rows is fitted from them alone", "[calibrate][cpu]") {
  MeasurementSet set;
  set.rows = {row("gemm", "gemm", false), row("gemm", "gemm", true),
              row("mem_copy", "data_movement", false), row("dispatch", "dispatch", true),
              row("elementwise_add", "elementwise", false)};
  std::map<std::string, int> left_out;
  const MeasurementSet kept = prefer_framework_rows(set, &left_out);
  REQUIRE(kept.rows.size() == 4);
  CHECK(kept.rows[0].shape.count("framework") == 1);  // the library GEMM is gone
  CHECK(kept.rows[1].bench == "mem_copy");            // no framework copy rows: kept
  CHECK(left_out == std::map<std::string, int>{{"gemm", 1}});
}

TEST_CASE("the CPU plan takes the framework's im2col + GEMM thresholds", "[calibrate][cpu]") {
  MeasurementSet set;
  const auto find = [](const std::vector<ClassPlan>& plan, const std::string& key) {
    for (const auto& p : plan)
      if (p.entry.name() == key) return p;
    FAIL("no plan for " << key);
    return ClassPlan{};
  };
  CHECK(find(cpu_plan(set), "conv").options.gemm_pointwise_below_batch == 0);
  set.provenance = parse_framework_output(kOutput).provenance;
  const ClassPlan conv = find(cpu_plan(set), "conv");
  CHECK(conv.options.gemm_pointwise_below_batch == 16);
  CHECK(conv.options.gemm_single_max_input == 20480);
  CHECK(conv.options.fit_strided_work);
  CHECK_FALSE(conv.options.fit_cache);
  CHECK_FALSE(conv.options.memory_in_series);
  // The second structure: oneDNN's layout conversions in series with its kernel.
  REQUIRE(conv.alternatives.size() == 1);
  CHECK(conv.alternatives[0].memory_in_series);
  CHECK(conv.alternatives[0].gemm_pointwise_below_batch == 16);
  CHECK_FALSE(conv.alternatives[0].fit_cache);
  CHECK(find(cpu_plan(set), "pooling").form == ModelForm::kGemmLike);
  // The linear-layer GEMMs: a blocked library, or one that re-reads an operand per row.
  for (const char* key : {"gemm", "gemm_bwd_data", "gemm_bwd_filter"}) {
    const ClassPlan p = find(cpu_plan(set), key);
    CHECK_FALSE(p.options.unblocked);
    REQUIRE(p.alternatives.size() == 1);
    CHECK(p.alternatives[0].unblocked);
    CHECK(p.alternatives[0].fit_cache);
  }
}

TEST_CASE("framework_kernels.py runs through the installed framework", "[calibrate][cpu]") {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
    WARN("PyTorch is not installed for /usr/bin/python3: the script is not run");
    return;
  }
  FrameworkKernelOptions options;
  options.dispatch_only = true;
  FrameworkKernels k;
  std::string why_not;
  REQUIRE(run_framework_kernels(options, k, why_not));
  CHECK(k.framework.rfind("pytorch ", 0) == 0);
  CHECK(k.dispatch_s > 1e-8);
  CHECK(k.dispatch_s < 1e-3);
  CHECK(k.provenance.count("framework_threads") == 1);
  // The backend probe answers on PyTorch >= 1.12 (Debian's is 1.13).
  CHECK(k.provenance.count("framework_conv_gemm_pointwise_below_batch") == 1);

  options.python = "/no/such/python";
  CHECK_FALSE(run_framework_kernels(options, k, why_not));
  CHECK(why_not == "/no/such/python not found");
}

TEST_CASE("a fresh allocation's cost: the threshold and the page-fault rate", "[calibrate][cpu]") {
  // Reused writes at 10 GB/s; fresh ones also pay 1 byte per 0.5 ns (2 GB/s) above 32 MiB,
  // and a little (5%) below it.
  MeasurementSet set;
  for (double mib : {4, 16, 31, 33, 64, 128}) {
    const double bytes = mib * 1024 * 1024;
    const auto elements = std::to_string(static_cast<long long>(bytes / 4));
    const double reused = bytes / 10e9;
    const double fresh = reused + (mib > 32 ? bytes / 2e9 : 0.05 * reused);
    set.rows.push_back(framework_measurement("alloc_reused", {{"n", elements}}, reused, 5));
    set.rows.push_back(framework_measurement("alloc_fresh", {{"n", elements}}, fresh, 5));
  }
  CHECK(set.rows[0].op_class == "allocation");
  CHECK(set.rows[0].bytes == 4 * 1024 * 1024);
  const auto a = fit_allocation(set);
  REQUIRE(a);
  CHECK(a->above_bytes == 31.0 * 1024 * 1024);
  CHECK(a->bytes_per_s == Approx(2e9).epsilon(1e-9));
  CHECK(a->sizes == 3);
  // No fresh rows, or no size that pays: no allocation cost.
  CHECK_FALSE(fit_allocation(MeasurementSet{}));
  MeasurementSet cheap;
  for (const auto& m : set.rows)
    if (m.bench == "alloc_reused") {
      cheap.rows.push_back(m);
      cheap.rows.push_back(m);
      cheap.rows.back().bench = "alloc_fresh";
    }
  CHECK_FALSE(fit_allocation(cheap));
}
