// Tile sets, per-phase efficiency entries and the Winograd factor (model/efficiency.h).
#include <catch2/catch.hpp>

#include "model/efficiency.h"
#include "model/roofline.h"
#include "test_device.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {
constexpr double kTight = 1e-12;  // the formulas are evaluated exactly

hw::ClassEfficiency tile_set(int lo, int hi, double reuse_half) {
  hw::ClassEfficiency e{0.8, 1.0};
  e.tile_min = lo;
  e.tile_max = hi;
  e.tile_reuse_half = reuse_half;
  return e;
}

graphs::Operator conv_op(graphs::Phase phase, int kernel, int stride) {
  graphs::Operator op;
  op.name = "conv";
  op.op_class = graphs::OpClass::kConv;
  op.phase = phase;
  op.flops = 1e9;
  op.gemm = {1280, 1280, 4096, 1};
  op.conv_kernel = kernel;
  op.conv_stride = stride;
  return op;
}
}  // namespace

TEST_CASE("tile set: a skinny GEMM runs on the small tile that fills the device",
          "[model][efficiency]") {
  // m = 160, n = 16 on 10 units, tiles 16..128, reuse half-intensity 8:
  //   16x16: 10 tiles (one full wave), intensity 16*16/32 = 8 -> reuse 8/16 = 0.5
  //   32x16: 5 tiles (wave 0.5), intensity 512/48 -> reuse 0.571 -> 0.286; larger: worse.
  const GemmEfficiency g = gemm_efficiency({160, 16, 1 << 20, 1}, tile_set(16, 128, 8), 10);
  CHECK(g.tile_m == 16);
  CHECK(g.tile_n == 16);
  CHECK(g.reuse == Approx(0.5).epsilon(kTight));
  CHECK(g.total == Approx(0.8 * 0.5).epsilon(kTight));
}

TEST_CASE("tile set: a wide GEMM runs on the largest tile", "[model][efficiency]") {
  // m = n = 1280: 128x128 gives 100 tiles (10 full waves), intensity 64 -> reuse 64/72,
  // better than any smaller tile (16x16: reuse 0.5).
  const GemmEfficiency g = gemm_efficiency({1280, 1280, 1 << 20, 1}, tile_set(16, 128, 8), 10);
  CHECK(g.tile_m == 128);
  CHECK(g.tile_n == 128);
  CHECK(g.total == Approx(0.8 * 64.0 / 72.0).epsilon(kTight));
}

TEST_CASE("tile set: tile_m/tile_n still give one fixed tile", "[model][efficiency]") {
  hw::ClassEfficiency e{0.8, 1.0};
  e.tile_m = 128;
  e.tile_n = 128;
  // m = 160, n = 16: 2 x 1 tiles of 128x128 hold 160*16 of 256*128 elements, 2 of 10 units.
  const GemmEfficiency g = gemm_efficiency({160, 16, 1 << 20, 1}, e, 10);
  CHECK(g.tile == Approx(160.0 * 16 / (256.0 * 128)).epsilon(kTight));
  CHECK(g.wave == Approx(0.2).epsilon(kTight));
  CHECK(g.reuse == 1);
}

TEST_CASE("winograd: only 3x3 stride-1 convolutions get the factor", "[model][efficiency]") {
  hw::DeviceSpec d = test::round_device();
  hw::ClassEfficiency e{0.5, 1.0};
  e.winograd = 2;
  d.efficiency["conv"] = e;
  const auto fwd = graphs::Phase::kForward;
  CHECK(compute_efficiency(conv_op(fwd, 3, 1), d) == Approx(1.0).epsilon(kTight));
  CHECK(compute_efficiency(conv_op(fwd, 3, 2), d) == Approx(0.5).epsilon(kTight));
  CHECK(compute_efficiency(conv_op(fwd, 1, 1), d) == Approx(0.5).epsilon(kTight));
}

TEST_CASE("per-phase entries: backward ops use conv_bwd_data / conv_bwd_filter, else conv",
          "[model][efficiency]") {
  hw::DeviceSpec d = test::round_device();
  d.efficiency["conv"] = hw::ClassEfficiency{0.5, 1.0};
  d.efficiency["conv_bwd_data"] = hw::ClassEfficiency{0.25, 1.0};
  const graphs::Operator data = conv_op(graphs::Phase::kBackwardData, 1, 1);
  const graphs::Operator weight = conv_op(graphs::Phase::kBackwardWeight, 1, 1);
  CHECK(phase_efficiency_key(data) == "conv_bwd_data");
  CHECK(phase_efficiency_key(weight) == "conv_bwd_filter");
  // 1 GFLOP at 1 TFLOP/s: 4 ms at 0.25, 2 ms at 0.5 (no entry for bwd_filter: conv's).
  CHECK(estimate(data, d).compute_s == Approx(4e-3).epsilon(kTight));
  CHECK(estimate(weight, d).compute_s == Approx(2e-3).epsilon(kTight));
  CHECK(estimate(conv_op(graphs::Phase::kForward, 1, 1), d).compute_s ==
        Approx(2e-3).epsilon(kTight));
  CHECK(compute_efficiency(data, d) == Approx(0.25).epsilon(kTight));
}
