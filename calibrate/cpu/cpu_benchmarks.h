#pragma once
// Microbenchmarks of this machine's CPU through the libraries frameworks use, written as
// amdahl measurements v1 rows (calibrate/measurement_format.md):
//   gemm                 oneDNN dnnl_sgemm (row-major, fp32) at several shapes and thread counts
//   conv_fwd, conv_bwd_data, conv_bwd_filter
//                        oneDNN convolution primitives (direct algorithm, layouts chosen by
//                        oneDNN as frameworks let it), fp32, a grid of ResNet/VGG-like shapes
//   mem_copy (data_movement), mem_triad, elementwise_add, elementwise_relu (elementwise),
//   reduce_sum (reduction)
//                        OpenMP loops as framework CPU kernels are written, from L1-resident
//                        to DRAM-resident sizes
// Each row's time is the median of repeated calls after a warm-up call. Threads are set with
// omp_set_num_threads (Debian's oneDNN uses the OpenMP runtime).

#include <ostream>

#include "calibrate/measurement.h"

namespace amdahl::calibrate {

struct CpuBenchOptions {
  bool quick = false;                // small grids: under a minute on 2 cores
  int cores = 1;                     // all cores; GEMM also runs on 1 and cores / 2 where distinct
  double bandwidth_probe_bytes = 0;  // largest memory operand (0: 512 MiB, quick 256 MiB)
};

// Appends the rows to `set.rows`; progress lines go to `log`.
void run_cpu_benchmarks(const CpuBenchOptions& options, MeasurementSet& set, std::ostream& log);

// oneDNN's version string ("2.6.3"), or empty when built without oneDNN.
std::string onednn_version();

}  // namespace amdahl::calibrate
