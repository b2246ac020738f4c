// Tile sets, per-phase efficiency entries and the Winograd factor (model/efficiency.h).
#include <catch2/catch.hpp>
#include <cmath>

#include "model/efficiency.h"
#include "model/roofline.h"
#include "test_device.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {
constexpr double kTight = 1e-12;  // the formulas are evaluated exactly

hw::ClassEfficiency tile_set(int lo, int hi, double reuse_half) {
  hw::ClassEfficiency e{0.8, 1.0};
  e.gemm.tile_min = lo;
  e.gemm.tile_max = hi;
  e.gemm.tile_reuse_half = reuse_half;
  return e;
}

graphs::Operator conv_op(Phase phase, int kernel, int stride) {
  graphs::Operator op;
  op.name = "conv";
  op.op_class = OpClass::kConv;
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
  // m = 160, n = 16 on 10 units, tiles 16..128, reuse half-intensity 8; reuse is relative to
  // the largest tile, 128x128: intensity 64 -> 64/72.
  //   16x16: 10 tiles (one full wave), intensity 16*16/32 = 8 -> reuse (8/16) / (64/72)
  //   32x16: 5 tiles (wave 0.5), intensity 512/48 -> reuse 0.571 / (64/72); larger: worse.
  const GemmEfficiency g = gemm_efficiency({160, 16, 1 << 20, 1}, tile_set(16, 128, 8), 10);
  CHECK(g.tile_m == 16);
  CHECK(g.tile_n == 16);
  CHECK(g.reuse == Approx(0.5 * 72 / 64).epsilon(kTight));
  CHECK(g.total == Approx(0.8 * 0.5 * 72 / 64).epsilon(kTight));
}

TEST_CASE("tile set: a wide GEMM runs on the largest tile", "[model][efficiency]") {
  // m = n = 1280: 128x128 gives 100 tiles (10 full waves) and the best reuse, 1 (the largest
  // tile's own), better than any smaller tile: `compute` is the largest tile's fraction.
  const GemmEfficiency g = gemm_efficiency({1280, 1280, 1 << 20, 1}, tile_set(16, 128, 8), 10);
  CHECK(g.tile_m == 128);
  CHECK(g.tile_n == 128);
  CHECK(g.reuse == 1);
  CHECK(g.total == Approx(0.8).epsilon(kTight));
}

TEST_CASE("tile choice waste: the tile wasting least, whatever the wave costs",
          "[model][efficiency]") {
  // m = 160, n = 16 on 10 units as above. By tile x reuse (reuse relative to 64/72):
  //   16x16: 1 x 0.5625; 32x16: 1 x (512/48)/(512/48 + 8) / (64/72) = 0.642857 (best);
  //   64x16: 160/192 x 0.692 = 0.577; 128x16: 0.625 x 0.72 = 0.45; n = 16 wastes wider tiles.
  // 32x16 then runs 5 tiles on 10 units: wave 0.5.
  hw::ClassEfficiency e = tile_set(16, 128, 8);
  e.gemm.tile_choice = hw::TileChoice::kWaste;
  const GemmEfficiency g = gemm_efficiency({160, 16, 1 << 20, 1}, e, 10);
  CHECK(g.tile_m == 32);
  CHECK(g.tile_n == 16);
  const double reuse = (32.0 / 3 / (32.0 / 3 + 8)) / (64.0 / 72);
  CHECK(g.reuse == Approx(reuse).epsilon(kTight));
  CHECK(g.wave == Approx(0.5).epsilon(kTight));
  CHECK(g.total == Approx(0.8 * 0.5 * reuse).epsilon(kTight));
  // fill on the same shape keeps 16x16 (a full wave).
  CHECK(gemm_efficiency({160, 16, 1 << 20, 1}, tile_set(16, 128, 8), 10).tile_m == 16);
}

TEST_CASE("tile set with tile_m: every candidate has tile_m rows", "[model][efficiency]") {
  // cuDNN's 128x32/128x64/128x128 family on m = 392, n = 512 (a 7x7 layer at batch 8) and 56
  // units. By waste every candidate holds 392 of 512 rows and no column is wasted; the largest
  // reuse wins: 128x128, 4 x 4 = 16 tiles on 56 units.
  hw::ClassEfficiency e = tile_set(32, 128, 8);
  e.gemm.tile_m = 128;
  e.gemm.tile_choice = hw::TileChoice::kWaste;
  const GemmEfficiency g = gemm_efficiency({392, 512, 1 << 20, 1}, e, 56);
  CHECK(g.tile_m == 128);
  CHECK(g.tile_n == 128);
  CHECK(g.tile == Approx(392.0 / 512).epsilon(kTight));
  CHECK(g.wave == Approx(16.0 / 56).epsilon(kTight));
  // By fill a narrower tile gives more tiles: 128x32 makes 64, two waves of 56 at 64/112.
  e.gemm.tile_choice = hw::TileChoice::kFill;
  const GemmEfficiency f = gemm_efficiency({392, 512, 1 << 20, 1}, e, 56);
  CHECK(f.tile_m == 128);
  CHECK(f.tile_n < 128);
  CHECK(f.total > g.total);
}

TEST_CASE("tile set: tile_m/tile_n still give one fixed tile", "[model][efficiency]") {
  hw::ClassEfficiency e{0.8, 1.0};
  e.gemm.tile_m = 128;
  e.gemm.tile_n = 128;
  // m = 160, n = 16: 2 x 1 tiles of 128x128 hold 160*16 of 256*128 elements, 2 of 10 units.
  const GemmEfficiency g = gemm_efficiency({160, 16, 1 << 20, 1}, e, 10);
  CHECK(g.tile == Approx(160.0 * 16 / (256.0 * 128)).epsilon(kTight));
  CHECK(g.wave == Approx(0.2).epsilon(kTight));
  CHECK(g.reuse == 1);
}

TEST_CASE("winograd: only 3x3 stride-1 convolutions get the factor", "[model][efficiency]") {
  hw::DeviceSpec d = test::round_device();
  hw::ClassEfficiency e{0.5, 1.0};
  e.conv.winograd = 2;
  d.efficiency[hw::entry("conv")] = e;
  const auto fwd = Phase::kForward;
  CHECK(compute_efficiency(conv_op(fwd, 3, 1), d) == Approx(1.0).epsilon(kTight));
  CHECK(compute_efficiency(conv_op(fwd, 3, 2), d) == Approx(0.5).epsilon(kTight));
  CHECK(compute_efficiency(conv_op(fwd, 1, 1), d) == Approx(0.5).epsilon(kTight));
}

TEST_CASE("winograd algorithm: the faster of the direct GEMM and the transformed one",
          "[model][efficiency]") {
  // Forward 3x3 stride 1, implicit GEMM 1280 x 1280 x 4096; Winograd F(2x2,3x3) runs
  // 320 x 1280 x 456 (m/4, k/9 rounded up). With k_half 456 the direct depth factor is
  // 4096/4552 and the transformed one 456/912 = 0.5.
  const graphs::Operator op = conv_op(Phase::kForward, 3, 1);
  const graphs::GemmDims w = winograd_dims(op);
  CHECK(w.m == 320);
  CHECK(w.n == 1280);
  CHECK(w.k == 456);
  const graphs::GemmDims wf = winograd_dims(conv_op(Phase::kBackwardWeight, 3, 1));
  CHECK(wf.m == 1280);
  CHECK(wf.n == 143);  // 1280 / 9 rounded up
  CHECK(wf.k == 1024);
  hw::DeviceSpec d = test::round_device();
  hw::ClassEfficiency e{0.5, 1.0};
  e.gemm.k_half = 456;
  e.conv.winograd_algorithm = true;
  e.conv.winograd = 2.5;  // Winograd: 0.5 x 0.5 x 2.5 = 0.625 > direct 0.5 x 4096/4552
  d.efficiency[hw::entry("conv")] = e;
  CHECK(compute_efficiency(op, d) == Approx(0.625).epsilon(kTight));
  d.efficiency[hw::entry("conv")].conv.winograd = 1.5;  // 0.375 < direct: the direct GEMM
  CHECK(compute_efficiency(op, d) == Approx(0.5 * 4096 / 4552).epsilon(kTight));
  // Not 3x3 stride 1: direct only, whatever the factor.
  d.efficiency[hw::entry("conv")].conv.winograd = 4;
  CHECK(compute_efficiency(conv_op(Phase::kForward, 3, 2), d) ==
        Approx(0.5 * 4096 / 4552).epsilon(kTight));
}

TEST_CASE("strided backward data does stride^2 the counted work", "[model][efficiency]") {
  // The implicit GEMM over the input grid multiplies the inserted zeros: efficiency x FLOPs /
  // (2 m n k). conv_op carries 1 GFLOP against 2 x 1280 x 1280 x 4096 = 13.4 GFLOP of GEMM.
  hw::DeviceSpec d = test::round_device();
  d.efficiency[hw::entry("conv")] = hw::ClassEfficiency{0.5, 1.0};
  const double fraction = 1e9 / (2.0 * 1280 * 1280 * 4096);
  for (int kernel : {1, 3}) {
    INFO("kernel " << kernel);
    CHECK(compute_efficiency(conv_op(Phase::kBackwardData, kernel, 2), d) ==
          Approx(0.5 * fraction).epsilon(kTight));
    CHECK(compute_efficiency(conv_op(Phase::kForward, kernel, 2), d) ==
          Approx(0.5).epsilon(kTight));
  }
  // strided_work: the share of that zero work done, as an exponent on the fraction.
  d.efficiency[hw::entry("conv")].conv.strided_work = 0.5;
  CHECK(compute_efficiency(conv_op(Phase::kBackwardData, 3, 2), d) ==
        Approx(0.5 * std::sqrt(fraction)).epsilon(kTight));
  d.efficiency[hw::entry("conv")].conv.strided_work = 0;
  CHECK(compute_efficiency(conv_op(Phase::kBackwardData, 3, 2), d) == Approx(0.5).epsilon(kTight));
}

TEST_CASE("per-phase entries: backward ops use conv_bwd_data / conv_bwd_filter, else conv",
          "[model][efficiency]") {
  hw::DeviceSpec d = test::round_device();
  d.efficiency[hw::entry("conv")] = hw::ClassEfficiency{0.5, 1.0};
  d.efficiency[hw::entry("conv_bwd_data")] = hw::ClassEfficiency{0.25, 1.0};
  const graphs::Operator data = conv_op(Phase::kBackwardData, 1, 1);
  const graphs::Operator weight = conv_op(Phase::kBackwardWeight, 1, 1);
  CHECK(phase_efficiency_key(data).name() == "conv_bwd_data");
  CHECK(phase_efficiency_key(weight).name() == "conv_bwd_filter");
  // 1 GFLOP at 1 TFLOP/s: 4 ms at 0.25, 2 ms at 0.5 (no entry for bwd_filter: conv's).
  CHECK(estimate(data, d).compute_s == Approx(4e-3).epsilon(kTight));
  CHECK(estimate(weight, d).compute_s == Approx(2e-3).epsilon(kTight));
  CHECK(estimate(conv_op(Phase::kForward, 1, 1), d).compute_s == Approx(2e-3).epsilon(kTight));
  CHECK(compute_efficiency(data, d) == Approx(0.25).epsilon(kTight));
}
