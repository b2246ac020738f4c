// Speed of amdahl explore (docs/performance.md "Exploration"): one point (a ResNet-50
// training step re-costed and simulated on a changed configuration) and 1,000,000 points
// through the runner on all cores (target: under 100 s on the development machine's two).

#include <benchmark/benchmark.h>

#include "analysis/explore.h"
#include "cli/explore_runner.h"
#include "graphs/lower.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"

using namespace amdahl;

namespace {

struct ResNet50 {
  hw::SystemSpec system = hw::load_system("minsky");
  graphs::LoweredNetwork net =
      graphs::lower(graphs::bind_sizes(graphs::load_zoo_network("resnet50"), {{"batch", 64}}),
                    graphs::LoweringOptions{});
  model::PredictOptions options;
  ResNet50() { options.batch = 64; }
  // A grid of n x n configurations over the P100's fp32 peak and memory bandwidth.
  analysis::Exploration exploration(int n) const {
    std::vector<analysis::HardwareAxis> axes{
        analysis::parse_hardware_axis(
            system, "gpu0.peak.fp32=0.1.." + std::to_string(n / 10) + "TFLOP/s:0.1TFLOP/s"),
        analysis::parse_hardware_axis(
            system, "gpu0.memory.bandwidth=0.01.." + std::to_string(n / 100) + "TB/s:0.01TB/s")};
    return analysis::Exploration(system, std::move(axes),
                                 {analysis::Variant{"resnet50", "resnet50", {}, 1, &net, options}});
  }
};

const ResNet50& resnet50() {
  static const ResNet50 r;
  return r;
}

// One prediction on a configuration other than the last one's (the workspace is re-set).
void BM_ExplorePointResNet50Train(benchmark::State& state) {
  cli::keep_freed_memory();  // as run_points does
  const analysis::Exploration e = resnet50().exploration(100);
  analysis::Exploration::Workspace w = e.workspace();
  std::size_t p = e.grid_begin();
  for (auto _ : state) {
    benchmark::DoNotOptimize(e.evaluate(p, w).step_s);
    if (++p == e.points()) p = e.grid_begin();
  }
}
BENCHMARK(BM_ExplorePointResNet50Train)->Unit(benchmark::kMicrosecond);

// 1,000 x 1,000 configurations (1,002,005 points with the analysis points) on every core.
void BM_Explore1MResNet50Train(benchmark::State& state) {
  const analysis::Exploration e = resnet50().exploration(1000);
  for (auto _ : state) {
    cli::RunOptions o;
    o.points = e.points();
    cli::RunStats stats;
    const auto results = cli::run_points(
        o,
        [&e] {
          auto w = std::make_shared<analysis::Exploration::Workspace>(e.workspace());
          return cli::PointEvaluator([&e, w](std::size_t p) { return e.evaluate(p, *w); });
        },
        stats);
    benchmark::DoNotOptimize(results.data());
    state.counters["points"] = static_cast<double>(e.points());
    state.counters["threads"] = stats.threads;
    state.counters["us_per_point_thread"] =
        1e6 * stats.seconds * stats.threads / static_cast<double>(e.points());
  }
}
BENCHMARK(BM_Explore1MResNet50Train)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
