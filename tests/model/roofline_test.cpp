#include "model/roofline.h"

#include <catch2/catch.hpp>

#include "model/efficiency.h"
#include "test_device.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {
graphs::Operator op_with(double flops, double bytes) {
  graphs::Operator op;
  op.name = "op";
  op.op_class = OpClass::kElementwise;
  op.flops = flops;
  op.bytes_read = bytes;
  return op;
}
}  // namespace

TEST_CASE("roofline: compute-bound time is FLOPs / (peak x efficiency) + latency",
          "[model][roofline]") {
  hw::DeviceSpec d = test::round_device();
  d.launch_latency_s = 5e-6;
  d.efficiency[hw::entry("default")] = hw::ClassEfficiency{0.5, 0.8};
  // 1 GFLOP at 1 TFLOP/s x 0.5 = 2 ms; 1 MB at 100 GB/s x 0.8 = 12.5 us.
  const OpCost c = estimate(op_with(1e9, 1e6), d);
  CHECK(c.compute_s == Approx(2e-3));
  CHECK(c.memory_s == Approx(1e6 / 80e9));
  CHECK(c.time_s == Approx(2e-3 + 5e-6));
  CHECK(c.bound == Bound::kCompute);
}

TEST_CASE("roofline: memory in series with compute adds the two times", "[model][roofline]") {
  hw::DeviceSpec d = test::round_device();
  d.launch_latency_s = 5e-6;
  d.efficiency[hw::entry("default")] = hw::ClassEfficiency{0.5, 0.8};
  d.efficiency[hw::entry("default")].traffic.memory_in_series = true;
  // 2 ms of compute, then 100 MB at 80 GB/s (1.25 ms): one after the other, not the larger.
  const OpCost c = estimate(op_with(1e9, 1e8), d);
  CHECK(c.time_s == Approx(2e-3 + 1.25e-3 + 5e-6));
  CHECK(c.bound == Bound::kCompute);
  d.efficiency[hw::entry("default")].traffic.memory_in_series = false;
  CHECK(estimate(op_with(1e9, 1e8), d).time_s == Approx(2e-3 + 5e-6));
}

TEST_CASE("roofline: memory-bound and latency-bound ops say so", "[model][roofline]") {
  hw::DeviceSpec d = test::round_device();
  d.launch_latency_s = 5e-6;
  // 1 MFLOP (1 us) vs 100 MB (1 ms): memory-bound.
  const OpCost mem = estimate(op_with(1e6, 1e8), d);
  CHECK(mem.bound == Bound::kMemory);
  CHECK(mem.time_s == Approx(1e-3 + 5e-6));
  // 1 kFLOP, 1 kB: 10 ns of work behind 5 us of launch latency.
  const OpCost tiny = estimate(op_with(1e3, 1e3), d);
  CHECK(tiny.bound == Bound::kLatency);
  CHECK(tiny.time_s == Approx(5e-6 + 1e-8));
}

TEST_CASE("gemm efficiency: a GEMM one tile past a full wave takes two waves",
          "[model][efficiency]") {
  hw::ClassEfficiency e{1.0, 1.0};
  e.gemm.tile_m = 128;
  e.gemm.tile_n = 128;
  // 10 units: a 1280 x 128 GEMM is exactly 10 tiles = one full wave.
  const auto full = gemm_efficiency({1280, 128, 512, 1}, e, 10);
  CHECK(full.wave == Approx(1.0));
  CHECK(full.tile == Approx(1.0));
  // One more tile row: 11 tiles over 2 waves of 10 -> 11/20.
  const auto over = gemm_efficiency({1408, 128, 512, 1}, e, 10);
  CHECK(over.wave == Approx(11.0 / 20.0));
  // Same wall time for 11 tiles as for 20: time scales with waves, not tiles.
  const double t_full = 1280.0 * 128 / full.total;
  const double t_over = 1408.0 * 128 / over.total;
  CHECK(t_over / t_full == Approx(2.0));
}

TEST_CASE("gemm efficiency: partial tiles and shallow reductions lose efficiency",
          "[model][efficiency]") {
  hw::ClassEfficiency e{0.9, 1.0};
  e.gemm.tile_m = 64;
  e.gemm.tile_n = 64;
  e.gemm.k_half = 64;
  // 100 x 64: two tile rows of which the second is 36/64 full -> tile_eff 100/128.
  const auto g = gemm_efficiency({100, 64, 64, 1}, e, 2);
  CHECK(g.tile == Approx(100.0 / 128.0));
  CHECK(g.wave == Approx(1.0));
  CHECK(g.depth == Approx(0.5));  // k = k_half
  CHECK(g.total == Approx(0.9 * 100.0 / 128.0 * 0.5));
}

TEST_CASE("memory efficiency ramps with size", "[model][efficiency]") {
  hw::DeviceSpec d = test::round_device();
  d.efficiency[hw::entry("default")] = hw::ClassEfficiency{1.0, 0.8};
  d.efficiency[hw::entry("default")].traffic.half_bytes = 1e6;
  CHECK(memory_efficiency(op_with(0, 1e6), d) == Approx(0.4));  // at half_bytes: half of 0.8
  CHECK(memory_efficiency(op_with(0, 1e12), d) == Approx(0.8).epsilon(1e-5));
}

TEST_CASE("transfers cost latency plus bytes over the achieved bandwidth", "[model][roofline]") {
  hw::LinkSpec l;
  l.bandwidth_bytes_per_s = 40e9;
  l.h2d_pinned = 30e9;
  l.h2d_pageable = 15e9;
  l.latency_s = 10e-6;
  CHECK(estimate_transfer(30e6, l, Direction::kHostToDevice, true).time_s == Approx(1e-3 + 10e-6));
  CHECK(estimate_transfer(30e6, l, Direction::kHostToDevice, false).time_s == Approx(2e-3 + 10e-6));
}
