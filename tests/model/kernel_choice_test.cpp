// The kernel an op's cost assumes (model/kernel_choice.h): what compute_choice picks and how
// Roofline records the lowerings, at the shapes whose efficiencies efficiency_test.cpp and
// efficiency_tile_set_test.cpp compute by hand (the split-K kernel and the as-forward lowering:
// efficiency_test.cpp; im2col + BLAS: gemm_path_test.cpp).

#include "model/kernel_choice.h"

#include <catch2/catch.hpp>

#include "model/efficiency.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {

graphs::Operator conv3x3(Phase phase, std::int64_t m, std::int64_t n, std::int64_t k) {
  graphs::Operator op;
  op.op_class = OpClass::kConv;
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
  CHECK(kernel_name({Algorithm::kDirect}) == "direct depthwise");
}

TEST_CASE("compute_choice names the algorithm whose efficiency it returns", "[model][kernel]") {
  // efficiency_tile_set_test.cpp "winograd algorithm": 1280 x 1280 x 4096 on one 64x64 tile
  // pair; the transformed GEMM 320 x 1280 x 456 wins at winograd 2.5, loses at 1.5.
  hw::ClassEfficiency e{0.5, 1.0};
  e.gemm.k_half = 456;
  e.conv.winograd_algorithm = true;
  e.conv.winograd = 2.5;
  e.gemm.tile_m = 64;
  e.gemm.tile_n = 64;
  const graphs::Operator op = conv3x3(Phase::kForward, 1280, 1280, 4096);
  ComputeChoice c = compute_choice(op, e, hw::DeviceKind::kGpu, 10);
  CHECK(c.kernel.algorithm == Algorithm::kWinograd);
  CHECK(c.kernel.tile_m == 64);
  CHECK(c.efficiency == Approx(compute_efficiency(op, e, hw::DeviceKind::kGpu, 10)));
  e.conv.winograd = 1.5;
  c = compute_choice(op, e, hw::DeviceKind::kGpu, 10);
  CHECK(kernel_name(c.kernel) == "gemm 64x64");
  // Winograd as a factor on the direct tiles (no algorithm of its own).
  e.conv.winograd_algorithm = false;
  CHECK(kernel_name(compute_choice(op, e, hw::DeviceKind::kGpu, 10).kernel) == "winograd 64x64");
  e.conv.winograd = 1;
  CHECK(kernel_name(compute_choice(op, e, hw::DeviceKind::kGpu, 10).kernel) == "gemm 64x64");
  // A narrow GEMM and an op without GEMM dims.
  e.gemm.narrow_max = 16;
  e.gemm.narrow_compute = 0.2;
  CHECK(compute_choice(conv3x3(Phase::kForward, 4096, 16, 576), e, hw::DeviceKind::kGpu, 10)
            .kernel.algorithm == Algorithm::kNarrow);
  graphs::Operator add;
  add.op_class = OpClass::kElementwise;
  CHECK(compute_choice(add, e, hw::DeviceKind::kGpu, 10).kernel.algorithm == Algorithm::kNone);
}
