#include "calibrate/deepbench.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "calibrate/measured_op.h"
#include "hw/system_loader.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;

namespace {
const std::string kDeepBench = std::string(AMDAHL_SHARED_DIR) + "/data/deepbench";
}

TEST_CASE("DeepBench P100 fp32 rows become measurements with direct FLOP counts",
          "[calibrate][deepbench]") {
  const MeasurementSet set = read_deepbench(kDeepBench, "P100_baidu_2018");
  int gemm = 0, conv = 0, rnn = 0;
  for (const auto& m : set.rows) {
    gemm += m.op_class == "gemm";
    conv += m.op_class == "conv";
    rnn += m.op_class == "rnn";
  }
  CHECK(gemm == 160);  // shared/data/README.md: 160 fp32 GEMM rows per 2018 dataset
  CHECK(conv > 200);   // 94 convolutions x 3 directions, less the empty cells
  CHECK(rnn > 100);
  // First GEMM row of deepbench_gemm.csv: m=1760, n=16, k=1760, 55 us.
  const Measurement& g = set.rows.front();
  CHECK(g.shape.at("m") == "1760");
  CHECK(g.flops == Approx(2.0 * 1760 * 16 * 1760));
  CHECK(g.bytes == Approx(4.0 * (1760 * 1760 + 1760 * 16 + 1760 * 16)));
  CHECK(g.time_s == Approx(55e-6));
  CHECK(set.provenance.at("cudnn") == "6.0.21");
  // First convolution: W=700 H=161 C=1 N=4 K=32 R=5 S=20 stride 2 -> P=79, Q=341, 142 us fwd.
  const auto conv_row = std::find_if(set.rows.begin(), set.rows.end(),
                                     [](const Measurement& m) { return m.bench == "conv_fwd"; });
  CHECK(conv_row->flops == Approx(2.0 * 4 * 32 * 79 * 341 * 1 * 5 * 20));
  CHECK(conv_row->time_s == Approx(142e-6));
  const graphs::Operator op = to_operator(*conv_row);
  CHECK(op.gemm.m == 4 * 79 * 341);  // N*P*Q, as graphs/ops/conv.cpp lowers it
  CHECK(op.gemm.n == 32);
  CHECK(op.gemm.k == 1 * 5 * 20);
}

TEST_CASE("DeepBench convolution bytes count the input the windows read",
          "[calibrate][deepbench]") {
  // ResNet-50's shortcut N=16, C=256, 56x56, K=128, 1x1 stride 2 -> 28x28: forward and filter
  // gradient read every other row and column of X (a quarter, graphs/conv_traffic.h), the
  // data gradient writes all of dX.
  const MeasurementSet set = read_deepbench(kDeepBench, "P100_baidu_2018");
  const double x_read = 16.0 * 256 * 28 * 28, x_all = 16.0 * 256 * 56 * 56;
  const double w = 128.0 * 256, y = 16.0 * 128 * 28 * 28;
  int found = 0;
  for (const auto& m : set.rows) {
    auto shape = m.shape;
    shape.erase("algo");  // the forward row names cuDNN's algorithm
    if (m.op_class != "conv" ||
        format_shape(shape) != "c=256;h=56;k=128;n=16;pad=0;r=1;s=1;stride=2;w=56")
      continue;
    ++found;
    const double x = m.bench == "conv_bwd_data" ? x_all : x_read;
    CHECK(m.bytes == Approx(4 * (x + w + y)));
  }
  CHECK(found == 3);
  CHECK_THROWS_WITH(conv_bytes("gemm", ConvShape{1, 1, 1, 1, 1, 1, 1, 0, 1}, 4),
                    Catch::Contains("not a convolution"));
}

TEST_CASE("an unknown DeepBench dataset is an error listing the datasets",
          "[calibrate][deepbench]") {
  CHECK_THROWS_WITH(read_deepbench(kDeepBench, "P100_baidu_2019"),
                    Catch::Contains("unknown DeepBench dataset 'P100_baidu_2019'") &&
                        Catch::Contains("V100_dgx1_2019"));
  CHECK_THROWS_WITH(read_deepbench(kDeepBench, "P100_baidu_2018", "int8"),
                    Catch::Contains("fp16_io_fp32_math"));
  CHECK_THROWS_AS(read_deepbench("/nonexistent", "P100_baidu_2018"), UserError);
}

TEST_CASE("a DeepBench dataset names the catalog card it was measured on",
          "[calibrate][deepbench]") {
  const auto measured = [](const std::string& dataset) {
    return hw::load_device_file(deepbench_measured_device(dataset, hw::catalog_dir()));
  };
  CHECK(measured("P100_baidu_2018").model == "Tesla P100 PCIe 16GB");  // PCIe hosts (README)
  CHECK(measured("V100_dgx1_2019").model == "Tesla V100 SXM2 16GB");
  // GP102 cards: 28 and 30 SMs of 128 cores at the rated 1582 MHz boost.
  const hw::DeviceSpec gtx = measured("1080Ti"), xp = measured("TitanXp");
  CHECK(gtx.parallel_units == 28);
  CHECK(xp.parallel_units == 30);
  CHECK(gtx.peak_for(Precision::kFp32)->flops_per_s ==
        Approx(28 * 128 * 2 * 1.582e9).epsilon(1e-3));
  CHECK(xp.peak_for(Precision::kFp32)->flops_per_s == Approx(30 * 128 * 2 * 1.582e9).epsilon(1e-3));
  // T4: 40 Turing SMs of 64 cores at the rated 1590 MHz boost (datasheet: 8.1 TFLOP/s).
  const hw::DeviceSpec t4 = measured("T4");
  CHECK(t4.parallel_units == 40);
  CHECK(t4.peak_for(Precision::kFp32)->flops_per_s == Approx(40 * 64 * 2 * 1.59e9).epsilon(1e-3));
  // cuDNN 5 cards: TITAN X (Pascal), 28 GP102 SMs at 1531 MHz; Tesla M40 and GTX TITAN X,
  // 24 Maxwell GM200 SMs of 128 cores at 1114 and 1075 MHz (datasheet: M40 7 TFLOP/s).
  CHECK(measured("TitanXPascal").peak_for(Precision::kFp32)->flops_per_s ==
        Approx(28 * 128 * 2 * 1.531e9).epsilon(1e-3));
  const hw::DeviceSpec m40 = measured("M40"), maxwell = measured("TitanX_Maxwell");
  CHECK(m40.parallel_units == 24);
  CHECK(maxwell.parallel_units == 24);
  CHECK(m40.peak_for(Precision::kFp32)->flops_per_s ==
        Approx(24 * 128 * 2 * 1.114e9).epsilon(1e-3));
  CHECK(maxwell.peak_for(Precision::kFp32)->flops_per_s ==
        Approx(24 * 128 * 2 * 1.075e9).epsilon(1e-3));
  CHECK(maxwell.memory.bandwidth_bytes_per_s == Approx(336.5e9));
  // Every dataset of deepbench_datasets.csv has its card; another name lists them.
  for (const auto& dataset : deepbench_dataset_names(kDeepBench))
    CHECK_NOTHROW(deepbench_measured_device(dataset, hw::catalog_dir()));
  CHECK_THROWS_WITH(deepbench_measured_device("K80", hw::catalog_dir()),
                    Catch::Contains("'K80'") && Catch::Contains("--measured-device") &&
                        Catch::Contains("TitanX_Maxwell") && Catch::Contains("P100_utsa_2017-04"));
}

TEST_CASE("the PCIe-to-SXM2 clock adjustment scales compute-bound kernels only",
          "[calibrate][deepbench]") {
  const hw::DeviceSpec pcie = hw::load_device_file(hw::catalog_dir() + "/devices/p100-pcie.yaml");
  const hw::DeviceSpec sxm2 = hw::load_device_file(hw::catalog_dir() + "/devices/p100-sxm2.yaml");
  MeasurementSet set;
  Measurement compute{"gemm", "gemm", "fp32", {}, 2e12, 1e6, 1.0, 1};  // 215 ms vs 1.4 us
  Measurement memory{"gemm", "gemm", "fp32", {}, 1e6, 1e9, 1.0, 1};    // 0.1 us vs 1.4 ms
  set.rows = {compute, memory};
  CHECK(adjust_for_clock(set, pcie, sxm2) == 1);
  CHECK(set.rows[0].time_s == Approx(1303.0 / 1480.0));  // specs.yaml boost clocks
  CHECK(set.rows[1].time_s == 1.0);
}
