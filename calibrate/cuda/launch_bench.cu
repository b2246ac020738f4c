#include <algorithm>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "launch_bench.h"

namespace amdahl::cudabench {
namespace {

// Launches per asynchronous repetition: far more than the one synchronization that ends it.
constexpr int kLaunchesPerRep = 1000;
// Kernels per asynchronous graph repetition (graph launches times kernels per graph).
constexpr int kGraphKernelsPerRep = 2000;

__global__ void empty_kernel() {}

void launch_empty(cudaStream_t stream) { empty_kernel<<<1, 1, 0, stream>>>(); }

// Round trips are a few microseconds: many repetitions fit in a short time.
TimingPolicy round_trip_policy(const BenchConfig& config) {
  TimingPolicy policy = config.timing;
  policy.warmup_calls = 20;
  policy.min_reps = 50;
  policy.max_reps = config.quick ? 200 : 2000;
  policy.max_total_seconds = config.quick ? 0.02 : 0.1;
  return policy;
}

Measurement launch_row(const char* bench, const std::string& shape, double seconds, int reps) {
  Measurement row;
  row.bench = bench;
  row.op_class = "launch";
  row.precision = "none";
  row.shape = shape;
  row.time_s = seconds;
  row.reps = reps;
  return row;
}

class GraphExec {
 public:
  // Captures `kernels` empty-kernel launches on stream and instantiates them.
  GraphExec(cudaStream_t stream, int kernels) {
    AMDAHL_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kernels; ++i) launch_empty(stream);
    AMDAHL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    AMDAHL_CUDA_CHECK(cudaGetLastError());
    AMDAHL_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~GraphExec() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  cudaGraphExec_t get() const { return exec_; }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

void run_launch_bench(const BenchConfig& config, Reporter& reporter) {
  const cudaStream_t stream = config.stream;
  {
    const Timing timing = time_on_host(config.timing, [&] {
      for (int i = 0; i < kLaunchesPerRep; ++i) launch_empty(stream);
      AMDAHL_CUDA_CHECK(cudaGetLastError());
      AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
    });
    reporter.record(
        launch_row("launch", "mode=async", timing.median_seconds / kLaunchesPerRep, timing.reps));
  }
  {
    const Timing timing = time_on_host(round_trip_policy(config), [&] {
      launch_empty(stream);
      AMDAHL_CUDA_CHECK(cudaGetLastError());
      AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
    });
    reporter.record(launch_row("launch", "mode=sync", timing.median_seconds, timing.reps));
  }

  const std::vector<int> graph_sizes =
      config.quick ? std::vector<int>{1, 100} : std::vector<int>{1, 3, 10, 30, 100, 300, 1000};
  for (int kernels : graph_sizes) {
    if (config.deadline.passed()) {
      reporter.skip("graph_launch",
                    "time budget of " +
                        std::to_string(static_cast<int>(config.deadline.seconds())) + " s used up");
      return;
    }
    const GraphExec graph(stream, kernels);
    const int graphs_per_rep = std::max(1, kGraphKernelsPerRep / kernels);
    const Timing async_timing = time_on_host(config.timing, [&] {
      for (int i = 0; i < graphs_per_rep; ++i)
        AMDAHL_CUDA_CHECK(cudaGraphLaunch(graph.get(), stream));
      AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
    });
    const std::string kernels_text = std::to_string(kernels);
    reporter.record(
        launch_row("graph_launch", "kernels=" + kernels_text + ";mode=async",
                   async_timing.median_seconds / (static_cast<double>(graphs_per_rep) * kernels),
                   async_timing.reps));
    const Timing sync_timing = time_on_host(round_trip_policy(config), [&] {
      AMDAHL_CUDA_CHECK(cudaGraphLaunch(graph.get(), stream));
      AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
    });
    reporter.record(launch_row("graph_launch", "kernels=" + kernels_text + ";mode=sync",
                               sync_timing.median_seconds / kernels, sync_timing.reps));
  }
}

}  // namespace amdahl::cudabench
