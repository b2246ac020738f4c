// The kernel an op's cost assumes (model/kernel_choice.h): what compute_choice picks and how
// Roofline records the lowerings, at the shapes whose efficiencies efficiency_test.cpp and
// efficiency_tile_set_test.cpp compute by hand.

#include "model/kernel_choice.h"

#include <catch2/catch.hpp>

#include "model/efficiency.h"
#include "model/roofline.h"
#include "test_device.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {

graphs::Operator conv3x3(graphs::Phase phase, std::int64_t m, std::int64_t n, std::int64_t k) {
  graphs::Operator op;
  op.op_class = graphs::OpClass::kConv;
  op.phase = phase;
  op.conv_kernel = 3;
  op.conv_stride = 1;
  op.gemm = {m, n, k, 1};
  op.flops = 2.0 * static_cast<double>(m * n * k);
  op.bytes_read = 1e6;
  return op;
}

}  // namespace

TEST_CASE("kernel names", "[model][kernel]") {
  CHECK(kernel_name({}) == "-");
  CHECK(kernel_name({Algorithm::kGemm}) == "gemm");
  CHECK(kernel_name({Algorithm::kGemm, Lowering::kNative, 128, 64}) == "gemm 128x64");
  CHECK(kernel_name({Algorithm::kNarrow}) == "narrow");
  CHECK(kernel_name({Algorithm::kWinograd, Lowering::kNative, 128, 32}) == "winograd 128x32");
  CHECK(kernel_name({Algorithm::kSplitK, Lowering::kNative, 128, 128, 4}) == "split-K 4 x 128x128");
  CHECK(kernel_name({Algorithm::kWinograd, Lowering::kAsForward, 64, 64}) ==
        "as forward: winograd 64x64");
  CHECK(kernel_name({Algorithm::kGemm, Lowering::kIm2colGemm}) == "im2col + BLAS: gemm");
}

TEST_CASE("compute_choice names the algorithm whose efficiency it returns", "[model][kernel]") {
  // efficiency_tile_set_test.cpp "winograd algorithm": 1280 x 1280 x 4096 on one 64x64 tile
  // pair; the transformed GEMM 320 x 1280 x 456 wins at winograd 2.5, loses at 1.5.
  hw::ClassEfficiency e{0.5, 1.0};
  e.k_half = 456;
  e.winograd_algorithm = true;
  e.winograd = 2.5;
  e.tile_m = 64;
  e.tile_n = 64;
  const graphs::Operator op = conv3x3(graphs::Phase::kForward, 1280, 1280, 4096);
  ComputeChoice c = compute_choice(op, e, hw::DeviceKind::kGpu, 10);
  CHECK(c.kernel.algorithm == Algorithm::kWinograd);
  CHECK(c.kernel.tile_m == 64);
  CHECK(c.efficiency == Approx(compute_efficiency(op, e, hw::DeviceKind::kGpu, 10)));
  e.winograd = 1.5;
  c = compute_choice(op, e, hw::DeviceKind::kGpu, 10);
  CHECK(kernel_name(c.kernel) == "gemm 64x64");
  // Winograd as a factor on the direct tiles (no algorithm of its own).
  e.winograd_algorithm = false;
  CHECK(kernel_name(compute_choice(op, e, hw::DeviceKind::kGpu, 10).kernel) == "winograd 64x64");
  e.winograd = 1;
  CHECK(kernel_name(compute_choice(op, e, hw::DeviceKind::kGpu, 10).kernel) == "gemm 64x64");
  // A narrow GEMM and an op without GEMM dims.
  e.narrow_max = 16;
  e.narrow_compute = 0.2;
  CHECK(compute_choice(conv3x3(graphs::Phase::kForward, 4096, 16, 576), e, hw::DeviceKind::kGpu, 10)
            .kernel.algorithm == Algorithm::kNarrow);
  graphs::Operator add;
  add.op_class = graphs::OpClass::kElementwise;
  CHECK(compute_choice(add, e, hw::DeviceKind::kGpu, 10).kernel.algorithm == Algorithm::kNone);
}

TEST_CASE("a split reduction reports its parts", "[model][kernel]") {
  // efficiency_test.cpp "starved convolutions": 64 x 64 x 25088 on 10 units, one 64x64 tile,
  // splits into min(10, floor(25088 / 256)) = 10 parts and is faster split.
  hw::ClassEfficiency e{0.8, 0.8};
  e.tile_m = 64;
  e.tile_n = 64;
  e.k_half = 512;
  e.split_k = 0.5;
  graphs::Operator op = conv3x3(graphs::Phase::kBackwardWeight, 64, 64, 25088);
  op.conv_kernel = 1;
  const ComputeChoice c = compute_choice(op, e, hw::DeviceKind::kGpu, 10);
  CHECK(kernel_name(c.kernel) == "split-K 10 x 64x64");
  CHECK(c.efficiency == Approx(split_k_efficiency(op.gemm, e, 10)));
  e.split_k = 0;
  CHECK(kernel_name(compute_choice(op, e, hw::DeviceKind::kGpu, 10).kernel) == "gemm 64x64");
}

TEST_CASE("Roofline records the lowering an op is costed through", "[model][kernel]") {
  hw::DeviceSpec device = test::round_device();
  hw::ClassEfficiency conv{0.8, 0.8};
  conv.tile_m = 128;
  conv.tile_n = 64;
  device.efficiency["conv"] = conv;
  hw::ClassEfficiency data{0.5, 0.8};
  data.as_forward = 1.25;
  device.efficiency["conv_bwd_data"] = data;
  const Roofline roofline(device);
  // A stride-1 data gradient runs as its forward convolution on the forward entry's tiles.
  const graphs::Operator grad = conv3x3(graphs::Phase::kBackwardData, 1568, 64, 1152);
  CHECK(kernel_name(roofline.estimate(grad).kernel) == "as forward: gemm 128x64");
  CHECK(kernel_name(roofline.estimate(conv3x3(graphs::Phase::kForward, 1568, 128, 576)).kernel) ==
        "gemm 128x64");
  // A convolution a CPU framework runs as im2col + GEMM (gemm_path_test.cpp's rule).
  device.kind = hw::DeviceKind::kCpu;
  device.efficiency["conv"].gemm_pointwise_below_batch = 16;
  graphs::Operator pointwise = conv3x3(graphs::Phase::kForward, 8 * 56 * 56, 256, 64);
  pointwise.conv_kernel = 1;
  pointwise.conv_batch = 8;
  const OpCost c = Roofline(device).estimate(pointwise);
  CHECK(c.kernel.lowering == Lowering::kIm2colGemm);
  CHECK(kernel_name(c.kernel) == "im2col + BLAS: gemm");
}
