#pragma once
// Kernel microbenchmarks through the framework itself: calibrate/cpu/framework_kernels.py
// times single PyTorch operators on this CPU (the GEMMs of a linear layer, convolutions in
// all three directions, elementwise, reduction and copy kernels, and the eager per-op
// dispatch cost), with the framework's own threads, layouts, allocator and kernel choices.
//
// Why: a network run by a framework reaches the kernels the framework dispatches to, which
// need not be the library the C++ benchmarks (cpu_benchmarks.h) call. Debian's PyTorch 1.13,
// for example, runs fp32 matmuls through the generic BLAS it was linked with (about 3 GFLOP/s
// on this machine, where oneDNN's sgemm reaches 200) on one thread, and 1x1 convolutions
// below batch 16 through its own im2col + BLAS path. Each row is still one operator on fixed
// inputs, never a network, so it is calibration data (docs/calibration-cpu.md).
//
// The rows carry `framework=<name version>` in their shape; a class that has such rows is
// fitted from them alone (prefer_framework_rows in calibration.h).

#include <optional>
#include <ostream>
#include <string>

#include "calibrate/measurement.h"

namespace amdahl::calibrate {

struct FrameworkKernelOptions {
  std::string python = "/usr/bin/python3";
  std::string script;  // empty: the one in the source tree (framework_kernels_script())
  bool quick = false;
  bool dispatch_only = false;  // only the per-op dispatch row
};

struct FrameworkKernels {
  std::string framework;                          // "pytorch 1.13.0a0"
  std::map<std::string, std::string> provenance;  // framework_threads, framework_blas, ...
  double dispatch_s = 0;                          // eager per-op cost (the `dispatch` row)
  std::vector<Measurement> rows;                  // every row, the dispatch row included
};

// What a fresh allocation costs (hw::AllocationSpec), from the alloc_fresh and alloc_reused
// rows: the extra time of writing into a just-allocated tensor over a reused one, per size.
// The sizes that pay are the largest ones whose extra time per byte is at least half the
// largest size's; `above_bytes` is the largest size below them, and bytes_per_s the least
// squares fit of extra = bytes / rate over them. nullopt without such rows, when no size
// pays, or when every size does (no threshold inside the sweep).
struct FreshAllocation {
  double above_bytes = 0;
  double bytes_per_s = 0;
  int sizes = 0;  // sizes fitted
};
std::optional<FreshAllocation> fit_allocation(const MeasurementSet& set);
// The device file's `allocation` value for it ("{above: ... B, bandwidth: ... GB/s, ...}").
std::string allocation_yaml(const FreshAllocation& a);

// The script's path in the source tree.
std::string framework_kernels_script();

// Runs the script (its progress goes to stderr). Returns false and fills `why_not` when python
// or the framework is missing or the script fails; UserError when its output is malformed.
bool run_framework_kernels(const FrameworkKernelOptions& options, FrameworkKernels& out,
                           std::string& why_not);

// Reads the script's stdout: "# key: value" lines, a "bench,shape,time_s,reps" header and
// rows. Each row becomes a measurement with its op class, precision, FLOPs and bytes
// (framework_measurement). UserError naming the line for anything else.
FrameworkKernels parse_framework_output(const std::string& text);

// A framework row as a measurement: op class and FLOPs/bytes (measurement_format.md): for the
// GEMM, convolution (with `groups`), batch-norm and max-pooling benches those of the op the
// layer registry lowers the bench's layer to (calibrate/measured_op.h), for the memory-bound
// loops per element. UserError for a bench it does not know (listing the known ones).
Measurement framework_measurement(const std::string& bench,
                                  std::map<std::string, std::string> shape, double time_s,
                                  int reps);

}  // namespace amdahl::calibrate
