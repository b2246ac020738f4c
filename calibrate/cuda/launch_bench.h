// Kernel launch cost: an empty kernel (one block of one thread) launched on its own and
// replayed from a CUDA graph.
//
// Rows (op_class launch, precision none, flops 0, bytes 0), all timed on the host:
//   launch, shape "mode=async": time per launch of many back-to-back asynchronous launches
//     (the issue rate a framework's host thread can reach);
//   launch, shape "mode=sync": one launch followed by cudaStreamSynchronize (the round trip);
//   graph_launch, shape "kernels=N;mode=async": a graph of N captured empty kernels launched
//     back to back many times; time per kernel in the graph;
//   graph_launch, shape "kernels=N;mode=sync": one graph launch and a synchronization,
//     divided by N (the total is time_s * N).
#pragma once

#include "bench_config.h"
#include "reporter.h"

namespace amdahl::cudabench {

void run_launch_bench(const BenchConfig& config, Reporter& reporter);

}  // namespace amdahl::cudabench
