// Choosing a class's model structure by cross-validation on the training rows
// (calibrate/calibration.h, ClassPlan::alternatives) and the folds it uses (holdout.h).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "calibrate/calibration.h"
#include "calibrate/holdout.h"
#include "synthetic_gpu.h"
using namespace amdahl;
using namespace amdahl::calibrate;

namespace {

Measurement gemm_row(std::int64_t m, std::int64_t n, std::int64_t k) {
  Measurement x;
  x.bench = "gemm";
  x.op_class = "gemm";
  x.precision = "fp32";
  x.shape = {{"m", std::to_string(m)}, {"n", std::to_string(n)}, {"k", std::to_string(k)}};
  x.flops = 2.0 * m * n * k;
  x.bytes = 4.0 * (m * k + k * n + m * n);
  return x;
}

}  // namespace

TEST_CASE("cross-validation folds hold out every shape exactly once", "[calibrate][holdout]") {
  std::vector<Measurement> rows;
  for (int i = 0; i < 13; ++i) rows.push_back(gemm_row(8 * (i + 1), 8, 8));
  std::vector<int> times_held(rows.size(), 0);
  for (int fold = 0; fold < kHoldOutEvery; ++fold) {
    const auto held = fold_rows(rows, fold);
    for (std::size_t i = 0; i < rows.size(); ++i) times_held[i] += held[i] ? 1 : 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
      CHECK(held[i] == (static_cast<int>(i) % kHoldOutEvery == fold));
  }
  CHECK(times_held == std::vector<int>(rows.size(), 1));
  CHECK(fold_rows(rows, kHoldOutEvery - 1) == held_out_rows(rows));  // the fixed split
}

TEST_CASE("the structure that predicts held-in-turn rows best is the one fitted",
          "[calibrate][fit]") {
  // Times from a 128-row kernel family picked by least waste (tiles 128x32..128x128); the
  // plan offers a square tile set picked by fill first and the family second.
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency family{0.9, 0.8};
  family.gemm.tile_m = 128;
  family.gemm.tile_min = 32;
  family.gemm.tile_max = 128;
  family.gemm.tile_choice = hw::TileChoice::kWaste;
  family.gemm.tile_reuse_half = 8;
  family.latency_s = 3e-6;
  truth.efficiency[hw::entry("gemm")] = family;

  std::mt19937 rng(5);  // fixed seed: the test is deterministic
  std::uniform_int_distribution<int> dim(1, 24);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  std::vector<Measurement> rows;
  for (int i = 0; i < 60; ++i) {
    Measurement x = gemm_row(32 * dim(rng), 32 * dim(rng), 64 * dim(rng));
    Sample s;
    s.op = to_samples({x}).front().op;
    x.time_s = predict_time(s, truth) * (1 + noise(rng));
    rows.push_back(x);
  }

  FitOptions square;
  square.name = "square";
  square.tile_set = true;
  square.tile_sizes = {32, 64, 128};
  FitOptions rows128 = square;
  rows128.name = "family";
  rows128.tile_rows = {128};
  rows128.tile_choices = {hw::TileChoice::kWaste};
  const ClassPlan plan{{OpClass::kGemm}, ModelForm::kGemmLike, square, {rows128}};

  CHECK(select_structure(plan, rows, test::synthetic_gpu()).name == "family");
  // Through calibrate_device: the fit reports the structure and recovers the family.
  MeasurementSet set;
  set.rows = rows;
  const Calibration c = calibrate_device(set, test::synthetic_gpu(), {plan});
  REQUIRE(c.fits.size() == 1);
  CHECK(c.fits[0].structure == "family");
  CHECK(c.fits[0].params.gemm.tile_m == 128);
  CHECK(c.fits[0].params.gemm.tile_choice == hw::TileChoice::kWaste);
  // 1 % noise; k_half and latency trade off on these shapes (both lengthen small-k GEMMs),
  // which costs a few percent on the held-out rows.
  CHECK(c.fits[0].held_out.p90_abs < 0.05);
  // Without alternatives there is nothing to choose.
  const ClassPlan single{{OpClass::kGemm}, ModelForm::kGemmLike, square, {}};
  CHECK(&select_structure(single, rows, test::synthetic_gpu()) == &single.options);
}

TEST_CASE("rows of unplanned classes are counted, not fitted, and leave the split alone",
          "[calibrate][fit]") {
  // amdahl-cudabench's conv_algorithm rows (every algorithm cuDNN timed) beside the GEMMs.
  std::vector<Measurement> rows;
  for (int i = 0; i < 20; ++i) {
    Measurement x = gemm_row(64 * (i + 1), 256, 256);
    x.time_s = 1e-5 * (i + 1);
    rows.push_back(x);
    Measurement other = x;
    other.bench = "conv_fwd";
    other.op_class = "conv_algorithm";
    other.shape["algo"] = "FFT";
    rows.push_back(other);
  }
  MeasurementSet with_others;
  with_others.rows = rows;
  MeasurementSet gemm_only;
  for (const auto& r : rows)
    if (r.op_class == "gemm") gemm_only.rows.push_back(r);
  FitOptions options;
  const ClassPlan plan{{OpClass::kGemm}, ModelForm::kGemmLike, options, {}};
  const Calibration a = calibrate_device(with_others, test::synthetic_gpu(), {plan});
  const Calibration b = calibrate_device(gemm_only, test::synthetic_gpu(), {plan});
  CHECK(a.rows_used == 20);
  CHECK(a.rows_ignored == 20);
  REQUIRE(a.fits.size() == 1);
  CHECK(a.fits[0].train.count == 16);
  CHECK(a.fits[0].held_out.count == 4);
  CHECK(a.fits[0].params.compute == b.fits[0].params.compute);  // the same fit
}

TEST_CASE("rows at a tensor-core precision are fitted into their own entry", "[calibrate][fit]") {
  // The same GEMM shapes at fp32 (FMA units, compute 0.8 of 10 TFLOP/s) and at fp16 (tensor
  // cores, compute 0.5 of 80 TFLOP/s): one entry cannot describe both, "gemm.fp16" can.
  hw::DeviceSpec truth = test::synthetic_gpu();
  truth.peak[Precision::kFp16] = {80e12, hw::ComputeUnit::kTensor};
  truth.efficiency[hw::entry("gemm")] = hw::ClassEfficiency{0.8, 0.8};
  truth.efficiency[hw::entry("gemm.fp16")] = hw::ClassEfficiency{0.5, 0.8};
  std::mt19937 rng(9);  // fixed seed: the test is deterministic
  std::uniform_int_distribution<int> dim(8, 32);
  std::vector<Measurement> rows;
  for (int i = 0; i < 40; ++i) {
    const std::int64_t m = 256 * dim(rng), n = 256 * dim(rng), k = 256 * dim(rng);
    for (const char* precision : {"fp32", "fp16"}) {
      Measurement x = gemm_row(m, n, k);
      x.precision = precision;
      if (x.precision == "fp16") x.bytes /= 2;
      x.time_s = predict_time(to_samples({x}).front(), truth);
      rows.push_back(x);
    }
  }
  MeasurementSet set;
  set.rows = rows;
  hw::DeviceSpec base = test::synthetic_gpu();
  base.peak[Precision::kFp16] = {80e12, hw::ComputeUnit::kTensor};
  const ClassPlan plan{{OpClass::kGemm}, ModelForm::kGemmLike, FitOptions{}, {}};
  const Calibration c = calibrate_device(set, base, {plan});
  REQUIRE(c.fits.size() == 2);
  CHECK(c.fits[0].entry.name() == "gemm");
  CHECK(c.fits[1].entry.name() == "gemm.fp16");
  // Exact times: the fits return the two fractions (the weak prior moves them a little).
  CHECK(c.fits[0].params.compute == Approx(0.8).epsilon(0.01));
  CHECK(c.fits[1].params.compute == Approx(0.5).epsilon(0.01));
  CHECK(c.fits[0].held_out.count == 8);  // the same shapes held out at both precisions
  CHECK(c.fits[1].held_out.count == 8);
  CHECK(c.fits[1].held_out.p90_abs < 0.01);
}

TEST_CASE("a memory-bound class keeps the cache step only where the sweep shows one",
          "[calibrate][fit]") {
  // Elementwise adds from 4 kB to 512 MB: with a 4x cache step below 1 MB, and without one.
  hw::ClassEfficiency stepped{0.5, 0.5};
  stepped.latency_s = 2e-6;
  stepped.traffic.cache_boost = 4;
  stepped.traffic.cache_bytes = 1e6;
  hw::ClassEfficiency flat = stepped;
  flat.traffic.cache_boost = 1;
  flat.traffic.cache_bytes = 0;
  const auto rows_from = [](const hw::ClassEfficiency& e, int count) {
    hw::DeviceSpec truth = test::synthetic_gpu();
    truth.efficiency[hw::entry("elementwise")] = e;
    std::mt19937 rng(11);  // fixed seed: the test is deterministic
    std::uniform_real_distribution<double> noise(-0.02, 0.02);
    std::vector<Measurement> rows;
    for (int i = 0; i < count; ++i) {
      const double n = 1024.0 * std::pow(2.0, 17.0 * i / (count - 1));
      Measurement x;
      x.bench = "elementwise_add";
      x.op_class = "elementwise";
      x.precision = "fp32";
      x.shape = {{"n", std::to_string(static_cast<long long>(n))}};
      x.flops = n;
      x.bytes = 12 * n;
      Sample s;
      s.op = to_samples({x}).front().op;
      x.time_s = predict_time(s, truth) * (1 + noise(rng));
      rows.push_back(x);
    }
    return rows;
  };
  const ClassPlan plan = memory_bound_plan({OpClass::kElementwise});
  CHECK(plan.options.name == "flat");
  CHECK_FALSE(plan.options.fit_cache);
  REQUIRE(plan.alternatives.size() == 1);
  CHECK(plan.alternatives[0].fit_cache);
  CHECK(select_structure(plan, rows_from(stepped, 30), test::synthetic_gpu()).name == "cache step");
  CHECK(select_structure(plan, rows_from(flat, 30), test::synthetic_gpu()).name == "flat");
  // Sizes that span no sweep: both structures are the same fit, and the tie keeps flat.
  std::vector<Measurement> narrow = rows_from(stepped, 30);
  narrow.resize(8);  // operands of 12 kB to 0.2 MB
  CHECK(select_structure(plan, narrow, test::synthetic_gpu()).name == "flat");
  // A small grid (calibrate cpu --quick): 6 rows over the sweep leave a fold 4 rows,
  // too few for the step's 4 parameters, so the step cannot be chosen (and is not fitted).
  CHECK(select_structure(plan, rows_from(stepped, 6), test::synthetic_gpu()).name == "flat");
}
