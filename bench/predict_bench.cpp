// Speed of the model: a ResNet-50 training-step prediction, a 1,000-point sweep, and a
// synthetic 1,000,000-op DAG lowered, costed and simulated. Targets on one core: < 1 ms,
// a ResNet-50 sweep < 0.5 s, and < 2 s and < 1.5 GB; data-parallel ResNet-50 on 1, 8 and 64
// GPUs. Results: docs/performance.md.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <ctime>
#include <thread>

#include "analysis/sweep.h"
#include "graphs/lower.h"
#include "graphs/point_lowering.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "model/prediction.h"
#include "util/allocator.h"

using namespace amdahl;

namespace {

const hw::SystemSpec& minsky() {
  static const hw::SystemSpec s = hw::load_system("minsky");
  return s;
}

const graphs::Network& zoo(const std::string& name) {
  static std::map<std::string, graphs::Network> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, graphs::load_zoo_network(name)).first;
  return it->second;
}

graphs::LoweredNetwork lowered(const graphs::Network& net, const graphs::Bindings& sizes) {
  return graphs::lower(graphs::bind_sizes(net, sizes), graphs::LoweringOptions{});
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// predict() on an already lowered ResNet-50 training step, batch 64, on Minsky's P100.
void BM_PredictResNet50Train(benchmark::State& state) {
  const graphs::LoweredNetwork net = lowered(zoo("resnet50"), {{"batch", 64}});
  model::PredictOptions o;
  o.batch = 64;
  for (auto _ : state) {
    const model::Prediction p = model::predict(net, minsky(), o);
    benchmark::DoNotOptimize(p.step_time_s);
  }
  state.counters["ops"] = static_cast<double>(net.graph.size());
}
BENCHMARK(BM_PredictResNet50Train)->Unit(benchmark::kMicrosecond);

// Binding + lowering + predict: what one sweep point costs (without the CPU comparison).
void BM_LowerAndPredictResNet50Train(benchmark::State& state) {
  model::PredictOptions o;
  o.batch = 64;
  for (auto _ : state) {
    const graphs::LoweredNetwork net = lowered(zoo("resnet50"), {{"batch", 64}});
    const model::Prediction p = model::predict(net, minsky(), o);
    benchmark::DoNotOptimize(p.step_time_s);
  }
}
BENCHMARK(BM_LowerAndPredictResNet50Train)->Unit(benchmark::kMicrosecond);

// One sweep point after the first: the sizes re-bound and the numbers re-evaluated on the
// lowered structure (graphs/point_lowering.h), then predict.
void BM_RelowerAndPredictResNet50Train(benchmark::State& state) {
  graphs::PointLowering points(std::make_shared<const graphs::Network>(zoo("resnet50")),
                               graphs::LoweringOptions{});
  points.at({{"batch", 63}});
  model::PredictOptions o;
  o.batch = 64;
  for (auto _ : state) {
    const model::Prediction p = model::predict(points.at({{"batch", 64}}), minsky(), o);
    benchmark::DoNotOptimize(p.step_time_s);
  }
}
BENCHMARK(BM_RelowerAndPredictResNet50Train)->Unit(benchmark::kMicrosecond);

// sweep --vary batch=1..1000 with the CPU-versus-accelerator comparison (two predictions
// per point), as `amdahl sweep` runs it (a PointLowering per worker). Arg 0: network (0
// alexnet, 1 resnet50); arg 1: threads (0 = all cores).
void BM_Sweep1000(benchmark::State& state) {
  const auto net =
      std::make_shared<const graphs::Network>(zoo(state.range(0) == 0 ? "alexnet" : "resnet50"));
  const analysis::MakeLowerAt lower_at = [&]() -> analysis::LowerAt {
    auto points = std::make_shared<graphs::PointLowering>(net, graphs::LoweringOptions{});
    return [points](const graphs::Bindings& b) -> const graphs::LoweredNetwork& {
      return points->at(b);
    };
  };
  const auto grid = analysis::sweep_grid({analysis::parse_vary("batch=1..1000")}, {});
  analysis::SweepOptions so;
  so.threads = static_cast<unsigned>(state.range(1));
  for (auto _ : state) {
    const auto rows = analysis::sweep(lower_at, minsky(), grid, so);
    benchmark::DoNotOptimize(rows.back().step_s);
  }
  state.counters["threads"] =
      so.threads ? so.threads : static_cast<double>(std::thread::hardware_concurrency());
}
BENCHMARK(BM_Sweep1000)
    ->ArgsProduct({{0, 1}, {1, 0}})
    ->ArgNames({"net", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// A synthetic residual MLP with about 1,000,000 ops in its training step: bind, lower, cost
// and simulate. Run it alone (--benchmark_filter=Synthetic) for a clean peak-RSS figure.
void BM_Synthetic1MOps(benchmark::State& state) {
  const graphs::Network net = graphs::load_network(AMDAHL_BENCH_DIR "/residual_mlp.yaml");
  const auto ops_at = [&](std::int64_t depth) {
    return static_cast<std::int64_t>(lowered(net, {{"depth", depth}}).graph.size());
  };
  const std::int64_t per_unit = (ops_at(200) - ops_at(100)) / 100;
  const std::int64_t base = ops_at(100) - 100 * per_unit;
  const std::int64_t depth = (1'000'000 - base + per_unit - 1) / per_unit;
  model::PredictOptions o;
  o.batch = 32;
  std::size_t ops = 0;
  double lower_cpu_s = 0, predict_cpu_s = 0;
  for (auto _ : state) {
    const std::clock_t t0 = std::clock();
    const graphs::LoweredNetwork l = lowered(net, {{"depth", depth}});
    const std::clock_t t1 = std::clock();
    const model::Prediction p = model::predict(l, minsky(), o);
    const std::clock_t t2 = std::clock();
    lower_cpu_s = static_cast<double>(t1 - t0) / CLOCKS_PER_SEC;
    predict_cpu_s = static_cast<double>(t2 - t1) / CLOCKS_PER_SEC;
    ops = l.graph.size();
    benchmark::DoNotOptimize(p.step_time_s);
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["bind_lower_cpu_s"] = lower_cpu_s;
  state.counters["predict_cpu_s"] = predict_cpu_s;
  state.counters["peak_rss_MB"] = peak_rss_mb();
}
BENCHMARK(BM_Synthetic1MOps)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

// Data-parallel ResNet-50 training (batch 64 per GPU) on dgx1-cluster (8 DGX-1 nodes of 8
// P100s over EDR InfiniBand): lower with the gradient buckets, then predict (the topology,
// the collective's ring and tree, every bucket costed, the schedule with its collective
// stream). Targets: 8 GPUs under 2x the 1-GPU time; 64 GPUs on 8 nodes under 50 ms.
void BM_DataParallelResNet50Train(benchmark::State& state) {
  static const hw::SystemSpec cluster = hw::load_system("dgx1-cluster");
  const int gpus = static_cast<int>(state.range(0));
  graphs::LoweringOptions lo;
  lo.data_parallel.replicas = gpus;
  const graphs::BoundNetwork bound = graphs::bind_sizes(zoo("resnet50"), {{"batch", 64}});
  model::PredictOptions o;
  o.batch = 64;
  for (auto _ : state) {
    const graphs::LoweredNetwork net = graphs::lower(bound, lo);
    const model::Prediction p = model::predict(net, cluster, o);
    benchmark::DoNotOptimize(p.step_time_s);
  }
}
BENCHMARK(BM_DataParallelResNet50Train)
    ->ArgName("gpus")
    ->Arg(1)
    ->Arg(8)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond);

// BENCHMARK_MAIN, with the allocator named in the run's context (its speed depends on it).
int main(int argc, char** argv) {
  benchmark::AddCustomContext("allocator", amdahl::allocator_description());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
