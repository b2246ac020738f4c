// Design-space exploration (analysis/explore.h): on a toy device with round numbers the
// elasticities equal finite differences computed by hand (two systems changed by hand and
// predicted) and the closed form of a step that is one compute-bound and one memory-bound op;
// the configurations, knees, Pareto front and geometric mean against hand-made numbers.

#include "analysis/explore.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "../model/test_device.h"
#include "analysis/sweep.h"
#include "hw/system_loader.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::model;
using namespace amdahl::analysis;

namespace {

// On test::two_device_system()'s gpu0 (1 TFLOP/s, 100 GB/s, efficiency 1, no host cost): a
// GEMM of 2 GFLOP (2 ms at 1 TFLOP/s), then an elementwise op writing 100 MB (1 ms at
// 100 GB/s).
graphs::LoweredNetwork gemm_then_scale() {
  graphs::LoweredNetwork net;
  net.name = "toy";
  const auto mm = net.graph.add(test::op(OpClass::kGemm, 2e9, 0));
  const auto ew = net.graph.add(test::op(OpClass::kElementwise, 0, 100e6));
  net.graph.depend(mm, ew, 0);
  return net;
}

std::vector<HardwareAxis> axes(const hw::SystemSpec& s) {
  return {parse_hardware_axis(s, "gpu0.peak.fp32=0.5..4TFLOP/s:x2"),
          parse_hardware_axis(s, "gpu0.memory.bandwidth=50,100,200,400GB/s")};
}

double step_on(const graphs::LoweredNetwork& net, const hw::SystemSpec& s) {
  return predict(net, s, PredictOptions{}).step_time_s;
}

}  // namespace

TEST_CASE("parse_hardware_axis: ranges, lists and units", "[model][explore]") {
  const hw::SystemSpec s = test::two_device_system();
  CHECK(parse_hardware_axis(s, "gpu0.peak.fp32=5..40TFLOP/s:x2").values ==
        std::vector<double>{5e12, 10e12, 20e12, 40e12});
  CHECK(parse_hardware_axis(s, "links.cpu0-gpu0.bandwidth=16,32,64GB/s").values ==
        std::vector<double>{16e9, 32e9, 64e9});
  CHECK(parse_hardware_axis(s, "gpu0.parallel_units=28..112:28").values ==
        std::vector<double>{28, 56, 84, 112});
  CHECK(parse_hardware_axis(s, "gpu0.launch_latency=1us,2 us").values ==
        std::vector<double>{1e-6, 2e-6});
  const HardwareAxis a = parse_hardware_axis(s, "gpu0.memory.bandwidth=1..2TB/s:0.5TB/s");
  CHECK(a.values == std::vector<double>{1e12, 1.5e12, 2e12});
  CHECK(a.name == "gpu0_memory_bandwidth");
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.memory.bandwidth=1..8TFLOP/s:x2"),
                    Catch::Contains("expected bytes per second"));
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.memory.bandwidth=1,2"),
                    Catch::Contains("got a plain number"));
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.memory.bandwidth=-1TB/s"),
                    Catch::Contains("must be positive"));
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.memory.bandwidth=2..1TB/s"),
                    Catch::Contains("runs backwards"));
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.memory.bandwidth=1..2TB/s:x1"),
                    Catch::Contains("above 1"));
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.memory.bandwidth=1TB/s,1000GB/s"),
                    Catch::Contains("appears twice"));
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.memory.bandwidth"),
                    Catch::Contains("expected PATH=VALUES"));
  CHECK_THROWS_WITH(parse_hardware_axis(s, "gpu0.peak.fp32=1..1000000TFLOP/s:1TFLOP/s"),
                    Catch::Contains("more than"));
}

TEST_CASE("cost names: the path and its unique tails", "[model][explore]") {
  const hw::SystemSpec s = test::two_device_system();
  const auto names = cost_names({parse_hardware_axis(s, "gpu0.memory.bandwidth=1TB/s"),
                                 parse_hardware_axis(s, "links.cpu0-gpu0.bandwidth=1GB/s")});
  auto axis_of = [&](const std::string& n) -> int {
    for (const auto& [name, a] : names)
      if (name == n) return static_cast<int>(a);
    return -1;
  };
  CHECK(axis_of("gpu0_memory_bandwidth") == 0);
  CHECK(axis_of("memory_bandwidth") == 0);
  CHECK(axis_of("links_cpu0_gpu0_bandwidth") == 1);
  CHECK(axis_of("gpu0_bandwidth") == 1);
  CHECK(axis_of("bandwidth") == -1);  // both end with it
}

TEST_CASE("configurations: baseline, elasticity pairs, slices, then the grid", "[model][explore]") {
  const hw::SystemSpec s = test::two_device_system();
  const graphs::LoweredNetwork net = gemm_then_scale();
  Exploration e(s, axes(s), {Variant{"toy", "toy", {}, 1, &net, PredictOptions{}}});
  // 1 + 2 x 2 + (4 + 4) + 4 x 4.
  REQUIRE(e.configuration_count() == 1 + 4 + 8 + 16);
  CHECK(e.grid_begin() == 13);
  CHECK(e.configuration(1).scaled);
  CHECK(e.configuration(1).values[0] == 1 - kElasticityStep);
  CHECK(std::isnan(e.configuration(1).values[1]));
  // The last axis varies fastest.
  CHECK(e.configuration(13).values == std::vector<double>{0.5e12, 50e9});
  CHECK(e.configuration(14).values == std::vector<double>{0.5e12, 100e9});
  Exploration::Workspace w = e.workspace();
  e.configure(w, 14);
  CHECK(w.system.device("gpu0").peak.at(Precision::kFp32).flops_per_s == 0.5e12);
  CHECK(w.system.device("gpu0").memory.bandwidth_bytes_per_s == 100e9);
  e.configure(w, 0);  // back to the base
  CHECK(w.system.device("gpu0").peak.at(Precision::kFp32).flops_per_s == 1e12);
}

TEST_CASE("elasticities equal finite differences by hand and the closed form", "[model][explore]") {
  const hw::SystemSpec s = test::two_device_system();
  const graphs::LoweredNetwork net = gemm_then_scale();
  Exploration e(s, axes(s), {Variant{"toy", "toy", {}, 1, &net, PredictOptions{}}});
  Exploration::Workspace w = e.workspace();
  std::vector<PointResult> results;
  for (std::size_t p = 0; p < e.points(); ++p) results.push_back(e.evaluate(p, w));
  const ExploreSummary sum = summarize(e, results, 0.05);

  // By hand: the peak and the bandwidth each times 1 -/+ h, predicted.
  const double h = kElasticityStep;
  auto changed = [&](double peak, double bw) {
    hw::SystemSpec c = s;
    for (hw::DeviceSpec& d : c.devices)
      if (d.name == "gpu0") {
        d.peak[Precision::kFp32].flops_per_s *= peak;
        d.memory.bandwidth_bytes_per_s *= bw;
      }
    return step_on(net, c);
  };
  const double by_hand_peak =
      std::log(changed(1 + h, 1) / changed(1 - h, 1)) / std::log((1 + h) / (1 - h));
  const double by_hand_bw =
      std::log(changed(1, 1 + h) / changed(1, 1 - h)) / std::log((1 + h) / (1 - h));
  CHECK(sum.elasticity[0][0] == Approx(by_hand_peak).epsilon(1e-12));
  CHECK(sum.elasticity[0][1] == Approx(by_hand_bw).epsilon(1e-12));

  // Closed form: t = c / p + m / b with c = 2 ms and m = 1 ms at the base, so
  // d log t / d log p = -c / t = -2/3 and d log t / d log b = -1/3 (to O(h^2)).
  CHECK(sum.baseline_s[0] == Approx(3e-3).epsilon(1e-9));
  constexpr double kCentralDifference = 1e-3;  // O(h^2) of the central difference at h = 1%
  CHECK(sum.elasticity[0][0] == Approx(-2.0 / 3).margin(kCentralDifference));
  CHECK(sum.elasticity[0][1] == Approx(-1.0 / 3).margin(kCentralDifference));

  // The grid's speedups: peak x4 and bandwidth x4 together make the step 4x faster.
  const std::size_t last = sum.geomean_speedup.size() - 1;  // 4 TFLOP/s, 400 GB/s
  CHECK(sum.geomean_speedup[last] == Approx(4).epsilon(1e-9));
  CHECK(sum.geomean_speedup[5] == Approx(1).epsilon(1e-9));  // 1 TFLOP/s, 100 GB/s: the base
}

TEST_CASE("knee: where a step along the axis stops gaining the threshold", "[model][explore]") {
  const std::vector<double> x{1, 2, 4, 8, 16};
  // Gains 100%, 50%, 4%, 1%: from 4 on, less than 5% a step.
  Knee k = knee(x, {16, 8, 5.333, 5.128, 5.077}, 0.05);
  REQUIRE(k.value);
  CHECK(*k.value == 4);
  // Still gaining 10% at the end.
  k = knee(x, {16, 8, 4, 2, 1.8}, 0.05);
  CHECK(k.still_gaining);
  CHECK_FALSE(k.value);
  // Indifferent from the start: the knee is the first value.
  CHECK(*knee(x, {1, 1, 1, 1, 1}, 0.05).value == 1);
  // A time that grows with the value (a latency): walked from the large end.
  CHECK(*knee(x, {1, 1.01, 1.02, 2, 4}, 0.05).value == 4);
}

TEST_CASE("pareto_front and geometric_mean", "[model][explore]") {
  //                               0    1    2    3    4
  const std::vector<double> cost{1, 2, 2, 3, 4};
  const std::vector<double> speedup{1, 1.5, 1.2, 1.4, 2};
  CHECK(pareto_front(cost, speedup) == std::vector<std::size_t>{0, 1, 4});
  CHECK(pareto_front({1, 2}, {std::nan(""), 1}) == std::vector<std::size_t>{1});
  CHECK(geometric_mean({2, 8}) == Approx(4));
  CHECK(std::isnan(geometric_mean({})));
}

TEST_CASE("a point the model refuses is NaN with its reason, not a number", "[model][explore]") {
  const hw::SystemSpec s = test::two_device_system();
  const graphs::LoweredNetwork net = gemm_then_scale();
  // 1 kFLOP/s: the GEMM would take 2e6 s, beyond kMaxStepSeconds... only with a huge op.
  graphs::LoweredNetwork huge = net;
  graphs::Operator big = test::op(OpClass::kGemm, 1e25, 0);
  huge.graph.add(big);
  Exploration e(s, {parse_hardware_axis(s, "gpu0.peak.fp32=1TFLOP/s")},
                {Variant{"huge", "huge", {}, 1, &huge, PredictOptions{}}});
  Exploration::Workspace w = e.workspace();
  std::string why;
  CHECK(std::isnan(e.evaluate(0, w, &why).step_s));
  CHECK_THAT(why, Catch::Contains("beyond"));
}

TEST_CASE("a point whose footprint exceeds its device's memory is infeasible, counted",
          "[model][explore]") {
  const hw::SystemSpec s = test::two_device_system();
  graphs::LoweredNetwork net = gemm_then_scale();
  // A footprint of 1 GB: 0.5 GB of memory cannot hold it, 2 GB can (model::memory_exceeded,
  // the rule predict warns by).
  net.memory.peak_bytes = 1e9;
  Exploration e(s, {parse_hardware_axis(s, "gpu0.memory.capacity=0.5GB,2GB")},
                {Variant{"toy", "toy", {}, 1, &net, PredictOptions{}}});
  Exploration::Workspace w = e.workspace();
  std::vector<PointResult> results;
  std::string why;
  for (std::size_t p = 0; p < e.points(); ++p) {
    std::string error;
    results.push_back(e.evaluate(p, w, &error));
    if (!error.empty()) why = error;
  }
  const std::size_t g0 = e.grid_begin();  // the grid: 0.5 GB, then 2 GB
  CHECK(results[g0].status == PointStatus::kOutOfMemory);
  CHECK(std::isnan(results[g0].step_s));
  CHECK_THAT(why, Catch::Contains("peak memory 1 GB exceeds the 0.5 GB of gpu0"));
  CHECK(results[g0 + 1].status == PointStatus::kOk);
  CHECK(results[g0 + 1].step_s == Approx(3e-3).epsilon(1e-9));
  const ExploreSummary sum = summarize(e, results, 0.05);
  CHECK(sum.out_of_memory == std::vector<std::size_t>{1, 0});
  CHECK(sum.failed == std::vector<std::size_t>{1, 0});
  CHECK(std::isnan(sum.geomean_speedup[0]));
  // Never on the front, however cheap.
  CHECK(pareto_front({0.1, 1}, sum.geomean_speedup) == std::vector<std::size_t>{1});
  CHECK(memory_exceeded(2, 1));
  CHECK_FALSE(memory_exceeded(1, 1));
  CHECK_FALSE(memory_exceeded(1e30, 0));  // no stated capacity holds any footprint
}

TEST_CASE("the most elastic axis is the largest in magnitude, none below indifference",
          "[model][explore]") {
  // A time that halves with bandwidth (-1) beats one that grows slightly with latency.
  CHECK(most_elastic({0.2, -1.0, 0.5}) == std::optional<std::size_t>(1));
  // Equal magnitudes: the first axis.
  CHECK(most_elastic({-0.5, 0.5}) == std::optional<std::size_t>(0));
  // Every elasticity under kIndifferent (a 1% change moves the step by < 0.01%): none.
  CHECK_FALSE(most_elastic({0.5 * kIndifferent, -0.5 * kIndifferent}).has_value());
  // A NaN elasticity (a failed point) is never the choice, nor indifference's excuse.
  CHECK(most_elastic({std::nan(""), 0.3}) == std::optional<std::size_t>(1));
  CHECK_FALSE(most_elastic({}).has_value());
}
