#include "calibrate/efficiency_fit.h"

#include <catch2/catch.hpp>
#include <random>

#include "model/efficiency.h"
#include "synthetic_gpu.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::calibrate;

namespace {

Sample gemm_sample(std::int64_t m, std::int64_t n, std::int64_t k) {
  Sample s;
  s.op.op_class = OpClass::kGemm;
  s.op.flops = 2.0 * m * n * k;
  s.op.bytes_read = 4.0 * (m * k + k * n + m * n);
  s.op.gemm = {m, n, k, 1};
  return s;
}

Sample add_sample(double elements) {
  Sample s;
  s.op.op_class = OpClass::kElementwise;
  s.op.flops = elements;
  s.op.bytes_read = 12 * elements;
  return s;
}

// Times from the model itself with the known parameters, times (1 + noise).
std::vector<Sample> with_times(std::vector<Sample> samples, const hw::DeviceSpec& truth,
                               double noise, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-noise, noise);
  for (auto& s : samples) s.time_s = predict_time(s, truth) * (1 + u(rng));
  return samples;
}

// An elementwise size sweep (1 KiB .. 256 MB of elements, x1.5 steps) timed on `truth` with 2%
// noise, every fifth size held out; and the options that fit the cache term.
struct Sweep {
  std::vector<Sample> train, held;
};
Sweep elementwise_sweep(const hw::DeviceSpec& truth, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Sample> shapes;
  for (double e = 1024; e <= 256e6; e *= 1.5) shapes.push_back(add_sample(e));
  const auto samples = with_times(shapes, truth, 0.02, rng);
  Sweep out;
  for (std::size_t i = 0; i < samples.size(); ++i)
    (i % 5 == 4 ? out.held : out.train).push_back(samples[i]);
  return out;
}
// 60 backward-data convolutions of random GEMM sizes, stride 1 and 2 alternating, sample i with
// the square kernel kernel(i); timed on `truth` with 1% noise, the first 48 for training.
Sweep data_gradient_sweep(const hw::DeviceSpec& truth, unsigned seed, int (*kernel)(int)) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dim(1, 32);
  std::vector<Sample> shapes;
  for (int i = 0; i < 60; ++i) {
    const int stride = i % 2 ? 2 : 1;
    Sample s;
    s.op.op_class = OpClass::kConv;
    s.op.phase = Phase::kBackwardData;
    s.op.conv_kernel = kernel(i);
    s.op.conv_stride = stride;
    const std::int64_t taps = s.op.conv_kernel * s.op.conv_kernel;
    s.op.gemm = {1024 * dim(rng), 32 * dim(rng), taps * 32 * dim(rng), 1};
    s.op.flops = 2.0 * s.op.gemm.m * s.op.gemm.n * s.op.gemm.k / (stride * stride);
    s.op.bytes_read = 1e6;
    shapes.push_back(s);
  }
  const auto samples = with_times(shapes, truth, 0.01, rng);
  return {{samples.begin(), samples.begin() + 48}, {samples.begin() + 48, samples.end()}};
}

FitOptions cache_options() {
  FitOptions o;
  o.fit_cache = true;
  return o;
}

}  // namespace

TEST_CASE("the GEMM fit recovers known tiles, compute, depth and latency", "[calibrate][fit]") {
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency known{0.82, 0.7};
  known.gemm.tile_m = 128;
  known.gemm.tile_n = 64;
  known.gemm.k_half = 48;
  known.latency_s = 4e-6;
  truth.efficiency[hw::entry("gemm")] = known;

  std::mt19937 rng(42);  // fixed seed: the test is deterministic
  std::uniform_int_distribution<int> dim(1, 64);
  std::vector<Sample> shapes;
  for (int i = 0; i < 150; ++i)
    shapes.push_back(gemm_sample(32 * dim(rng), 16 * dim(rng), 16 * dim(rng)));
  constexpr double kNoise = 0.01;  // +-1 % uniform timing noise
  const auto samples = with_times(shapes, truth, kNoise, rng);
  const std::vector<Sample> train(samples.begin(), samples.begin() + 120);
  const std::vector<Sample> held(samples.begin() + 120, samples.end());

  FitOptions options;
  options.tile_sizes = {32, 64, 128, 256};
  const ClassFit fit = fit_class(hw::entry("gemm"), ModelForm::kGemmLike, train, held,
                                 test::synthetic_gpu(), options);
  CHECK(fit.params.gemm.tile_m == 128);
  CHECK(fit.params.gemm.tile_n == 64);
  // 1 % noise moves the fitted values by well under the tolerances below.
  CHECK(fit.params.compute == Approx(0.82).epsilon(0.02));
  CHECK(fit.params.gemm.k_half == Approx(48).epsilon(0.15));
  CHECK(fit.params.latency_s == Approx(4e-6).epsilon(0.15));
  CHECK(fit.held_out.count == 30);
  CHECK(fit.held_out.median_abs < 0.01);
  CHECK(fit.held_out.p90_abs < 0.02);

  // Every sample is reported with its prediction; the held-out ones give the held-out stats.
  REQUIRE(fit.residuals.size() == samples.size());
  std::vector<double> held_errors;
  for (const auto& r : fit.residuals)
    if (r.held_out) held_errors.push_back((r.predicted_s - r.measured_s) / r.measured_s);
  REQUIRE(held_errors.size() == held.size());
  CHECK(summarize_errors(held_errors).median_abs == Approx(fit.held_out.median_abs));
  CHECK(fit.residuals.back().measured_s == held.back().time_s);
}

TEST_CASE("the memory-bound fit recovers the bandwidth fraction and the fixed time",
          "[calibrate][fit]") {
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency known{0.75, 0.85};
  known.traffic.half_bytes = 2e6;
  known.latency_s = 2e-6;
  truth.efficiency[hw::entry("elementwise")] = known;
  std::mt19937 rng(7);
  std::vector<Sample> shapes;
  for (double e = 1024; e <= 512e6; e *= 1.5) shapes.push_back(add_sample(e));
  const auto samples = with_times(shapes, truth, 0.01, rng);
  const std::vector<Sample> train(samples.begin(), samples.end() - 5);
  const std::vector<Sample> held(samples.end() - 5, samples.end());
  const ClassFit fit = fit_class(hw::entry("elementwise"), ModelForm::kMemoryBound, train, held,
                                 test::synthetic_gpu(), {});
  CHECK(fit.params.memory == Approx(0.85).epsilon(0.02));
  // half_bytes / (bandwidth x memory) is a fixed time like the latency (efficiency_fit.h):
  // the fit folds it in, 2 us + 2 MB / (1 TB/s x 0.85) = 4.35 us.
  CHECK(fit.params.traffic.half_bytes == 0);
  CHECK(fit.params.latency_s == Approx(2e-6 + 2e6 / (1e12 * 0.85)).epsilon(0.05));
  CHECK(fit.held_out.p90_abs < 0.02);
}

TEST_CASE("the memory-bound fit recovers a cache boost from a size sweep", "[calibrate][fit]") {
  // A CPU-like curve: 20 GB/s DRAM, 4x that fraction for cache-resident sizes, halfway at
  // 6 MB (the 1 us latency matters below about 100 kB only).
  hw::DeviceSpec base = test::synthetic_gpu();
  base.memory.bandwidth_bytes_per_s = 20e9;
  hw::DeviceSpec truth = base;
  hw::ClassEfficiency known{0.75, 0.9};
  known.traffic.cache_boost = 4;
  known.traffic.cache_bytes = 6e6;
  known.latency_s = 1e-6;
  truth.efficiency[hw::entry("elementwise")] = known;
  const auto [train, held] = elementwise_sweep(truth, 11);
  const FitOptions cache = cache_options();
  const ClassFit fit =
      fit_class(hw::entry("elementwise"), ModelForm::kMemoryBound, train, held, base, cache);
  CHECK(fit.params.memory == Approx(0.9).epsilon(0.05));
  CHECK(fit.params.traffic.cache_boost == Approx(4).epsilon(0.1));
  CHECK(fit.params.traffic.cache_bytes == Approx(6e6).epsilon(0.2));
  CHECK(fit.held_out.p90_abs < 0.05);
  // Without the option the same data leave the cache term off and fit worse.
  const ClassFit plain =
      fit_class(hw::entry("elementwise"), ModelForm::kMemoryBound, train, held, base, {});
  CHECK(plain.params.traffic.cache_bytes == 0);
  CHECK(plain.held_out.median_abs > 3 * fit.held_out.median_abs);
  // A sweep spanning less than kCacheSpan cannot place the step: no cache term is fitted.
  std::vector<Sample> narrow;
  for (const auto& s : train)
    if (s.op.bytes() >= 1e8) narrow.push_back(s);
  REQUIRE(narrow.size() >= 3);
  CHECK(fit_class(hw::entry("elementwise"), ModelForm::kMemoryBound, narrow, {}, base, cache)
            .params.traffic.cache_bytes == 0);
}

TEST_CASE("a GPU size sweep without a cache effect still fits with the cache term",
          "[calibrate][fit]") {
  // amdahl-cudabench's elementwise sweep: 4 KiB .. 1 GiB at 1 TB/s behind a 5 us launch, where
  // the small sizes show only latency. With no cache in the truth, the term must neither stop
  // the fit from converging nor make its predictions worse than the fit without it.
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency known{0.75, 0.85};
  known.latency_s = 3e-6;
  truth.efficiency[hw::entry("elementwise")] = known;
  const auto [train, held] = elementwise_sweep(truth, 5);
  const ClassFit with = fit_class(hw::entry("elementwise"), ModelForm::kMemoryBound, train, held,
                                  test::synthetic_gpu(), cache_options());
  const ClassFit without = fit_class(hw::entry("elementwise"), ModelForm::kMemoryBound, train, held,
                                     test::synthetic_gpu(), {});
  CHECK(with.held_out.p90_abs < 0.03);
  CHECK(with.held_out.p90_abs < without.held_out.p90_abs + 0.01);
  // Large ops stream at the DRAM fraction whatever the (unidentified) boost came to.
  const double large = 1e9;
  CHECK(model::memory_efficiency(large, with.params) == Approx(0.85).epsilon(0.03));
}

TEST_CASE("a CPU GEMM fit recovers Amdahl thread scaling from runs at several thread counts",
          "[calibrate][fit]") {
  hw::DeviceSpec cpu = test::synthetic_gpu();
  cpu.kind = hw::DeviceKind::kCpu;
  cpu.parallel_units = 8;
  cpu.launch_latency_s = 0;
  hw::DeviceSpec truth = cpu;
  hw::ClassEfficiency known{0.9, 0.8};
  known.gemm.k_half = 32;
  known.latency_s = 1e-6;
  known.cpu.thread_scaling = 0.95;
  truth.efficiency[hw::entry("gemm")] = known;
  std::mt19937 rng(3);
  std::vector<Sample> shapes;
  for (int size : {64, 128, 256, 512, 1024, 2048})
    for (int threads : {1, 2, 4, 8}) {
      Sample s = gemm_sample(size, size, size / 2);
      s.threads = threads;
      shapes.push_back(s);
    }
  const auto samples = with_times(shapes, truth, 0.005, rng);
  FitOptions options;
  options.fit_thread_scaling = true;
  const ClassFit fit =
      fit_class(hw::entry("gemm"), ModelForm::kGemmLike, samples, {}, cpu, options);
  CHECK(fit.params.cpu.thread_scaling == Approx(0.95).epsilon(0.01));
  CHECK(fit.params.compute == Approx(0.9).epsilon(0.03));

  // Runs at one thread count (a framework's own) cannot tell thread scaling from `compute`:
  // it is not fitted, and `compute` is the fraction of the whole CPU they reach.
  std::vector<Sample> one_count;
  for (const Sample& s : samples)
    if (s.threads == 4) {
      one_count.push_back(s);
      one_count.back().threads = 0;
    }
  const ClassFit single =
      fit_class(hw::entry("gemm"), ModelForm::kGemmLike, one_count, {}, cpu, options);
  CHECK(single.params.cpu.thread_scaling == 0);
  const double speedup = 1.0 / ((1 - 0.95) + 0.95 / 4);  // 4 of 8 threads, scaling 0.95
  CHECK(single.params.compute == Approx(0.9 * speedup / 8).epsilon(0.03));
}

TEST_CASE("a fit that cannot converge or has too few measurements is an error",
          "[calibrate][fit]") {
  std::mt19937 rng(1);
  hw::DeviceSpec truth = test::synthetic_gpu();
  std::vector<Sample> shapes;
  for (int i = 1; i <= 20; ++i) shapes.push_back(gemm_sample(64 * i, 64 * i, 64 * i));
  const auto samples = with_times(shapes, truth, 0.05, rng);
  FitOptions starved;
  starved.max_evaluations = 2;  // stops Levenberg-Marquardt long before it converges
  CHECK_THROWS_WITH(fit_class(hw::entry("gemm"), ModelForm::kGemmLike, samples, {},
                              test::synthetic_gpu(), starved),
                    Catch::Contains("did not converge") && Catch::Contains("no profile"));
  const std::vector<Sample> few(samples.begin(), samples.begin() + 3);
  CHECK_THROWS_AS(
      fit_class(hw::entry("gemm"), ModelForm::kGemmLike, few, {}, test::synthetic_gpu(), {}),
      UserError);
}

TEST_CASE("the GEMM fit recovers a tile set, its reuse and the narrow kernel", "[calibrate][fit]") {
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency known{0.85, 0.7};
  known.gemm.tile_min = 32;
  known.gemm.tile_max = 128;
  known.gemm.tile_reuse_half = 8;
  known.gemm.narrow_max = 16;
  known.gemm.narrow_compute = 0.15;
  known.latency_s = 4e-6;
  truth.efficiency[hw::entry("gemm")] = known;

  std::mt19937 rng(11);  // fixed seed: the test is deterministic
  std::uniform_int_distribution<int> dim(1, 64);
  std::vector<Sample> shapes;
  for (int i = 0; i < 150; ++i)
    shapes.push_back(gemm_sample(32 * dim(rng), i % 5 == 0 ? 16 : 16 * dim(rng), 16 * dim(rng)));
  const auto samples = with_times(shapes, truth, 0.01, rng);
  const std::vector<Sample> train(samples.begin(), samples.begin() + 120);
  const std::vector<Sample> held(samples.begin() + 120, samples.end());

  FitOptions options;
  options.tile_sizes = {16, 32, 64, 128, 256};
  options.tile_set = true;
  options.narrow_max = 16;
  const ClassFit fit = fit_class(hw::entry("gemm"), ModelForm::kGemmLike, train, held,
                                 test::synthetic_gpu(), options);
  CHECK(fit.params.gemm.tile_min == 32);
  CHECK(fit.params.gemm.tile_max == 128);
  // 1 % noise: the fitted values move by well under these tolerances.
  CHECK(fit.params.compute == Approx(0.85).epsilon(0.05));
  CHECK(fit.params.gemm.tile_reuse_half == Approx(8).epsilon(0.2));
  CHECK(fit.params.gemm.narrow_compute == Approx(0.15).epsilon(0.05));
  CHECK(fit.held_out.p90_abs < 0.03);
}

TEST_CASE("the backward-data fit recovers the share of strided zero work", "[calibrate][fit]") {
  // Backward data of 3x3 convolutions, stride 1 and 2: at stride 2 the implicit GEMM over the
  // input grid is 4x the counted FLOPs, of which the kernels do strided_work as an exponent.
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency known{0.8, 0.8};
  known.conv.strided_work = 0.5;
  known.latency_s = 3e-6;
  truth.efficiency[hw::entry("conv_bwd_data")] = known;
  // Fixed seed: the test is deterministic.
  const Sweep sweep = data_gradient_sweep(truth, 3, [](int) { return 3; });
  FitOptions options;
  options.fit_strided_work = true;
  const ClassFit fit = fit_class(hw::entry("conv_bwd_data"), ModelForm::kGemmLike, sweep.train,
                                 sweep.held, test::synthetic_gpu(), options);
  // 1 % noise: the fitted values move by well under these tolerances.
  CHECK(fit.params.conv.strided_work == Approx(0.5).epsilon(0.05));
  CHECK(fit.params.compute == Approx(0.8).epsilon(0.03));
  CHECK(fit.held_out.p90_abs < 0.03);
}

TEST_CASE("the backward-data fit recovers the ratio of data gradients run as forward",
          "[calibrate][fit]") {
  // Stride-1 data gradients cost as_forward times their forward convolution on the `conv`
  // entry; the strided ones are this entry's own implicit GEMM.
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency conv{0.7, 0.8};
  conv.gemm.tile_m = 64;
  conv.gemm.tile_n = 64;
  truth.efficiency[hw::entry("conv")] = conv;
  hw::ClassEfficiency known{0.5, 0.8};
  known.conv.as_forward = 1.3;
  known.latency_s = 3e-6;
  truth.efficiency[hw::entry("conv_bwd_data")] = known;
  // Fixed seed: the test is deterministic. 1x1 and 3x3 kernels.
  const Sweep sweep = data_gradient_sweep(truth, 5, [](int i) { return i % 3 ? 3 : 1; });
  FitOptions options;
  options.data_grad_as_forward = true;
  hw::DeviceSpec base = test::synthetic_gpu();
  base.efficiency[hw::entry("conv")] = conv;  // the forward entry, fitted before backward data
  const ClassFit fit = fit_class(hw::entry("conv_bwd_data"), ModelForm::kGemmLike, sweep.train,
                                 sweep.held, base, options);
  // 1 % noise: the fitted values move by well under these tolerances.
  CHECK(fit.params.conv.as_forward == Approx(1.3).epsilon(0.03));
  CHECK(fit.params.compute == Approx(0.5).epsilon(0.05));
  CHECK(fit.held_out.p90_abs < 0.03);
}

TEST_CASE("the backward-filter fit recovers the split-K efficiency", "[calibrate][fit]") {
  // Filter gradients of random output sizes, many of them too few tiles for the 50 units:
  // those run split at split_k of the unsplit efficiency.
  hw::DeviceSpec truth = test::synthetic_gpu();
  hw::ClassEfficiency known{0.8, 0.8};
  known.gemm.tile_m = 64;
  known.gemm.tile_n = 64;
  known.gemm.split_k = 0.6;
  known.latency_s = 3e-6;
  truth.efficiency[hw::entry("conv_bwd_filter")] = known;
  std::mt19937 rng(11);  // fixed seed: the test is deterministic
  std::uniform_int_distribution<int> dim(1, 8);
  std::vector<Sample> shapes;
  for (int i = 0; i < 60; ++i) {
    Sample s;
    s.op.op_class = OpClass::kConv;
    s.op.phase = Phase::kBackwardWeight;
    s.op.gemm = {64 * dim(rng), 64 * dim(rng), 4096 * dim(rng), 1};
    s.op.flops = 2.0 * s.op.gemm.m * s.op.gemm.n * s.op.gemm.k;
    s.op.bytes_read = 1e6;
    shapes.push_back(s);
  }
  const auto samples = with_times(shapes, truth, 0.01, rng);
  const std::vector<Sample> train(samples.begin(), samples.begin() + 48);
  const std::vector<Sample> held(samples.begin() + 48, samples.end());
  FitOptions options;
  options.tile_sizes = {64};
  options.fit_split_k = true;
  const ClassFit fit = fit_class(hw::entry("conv_bwd_filter"), ModelForm::kGemmLike, train, held,
                                 test::synthetic_gpu(), options);
  // 1 % noise: the fitted values move by well under these tolerances.
  CHECK(fit.params.gemm.split_k == Approx(0.6).epsilon(0.05));
  CHECK(fit.params.compute == Approx(0.8).epsilon(0.03));
  CHECK(fit.held_out.p90_abs < 0.03);
}
