#pragma once
// `amdahl calibrate cpu`: describe this machine's CPU (/proc/cpuinfo, /proc/meminfo,
// sysfs), run the library microbenchmarks (cpu_benchmarks.h) and the framework's own kernels
// and dispatch cost (framework_kernels.h), fit the efficiency models (calibration.h; a class
// with framework rows is fitted from them, prefer_framework_rows) and write, each atomically:
//   OUT                      a system: this CPU as cpu0 and the measured runtime
//   OUT stem + .device.yaml  the calibrated CPU device
//   OUT stem + .csv          the raw measurements (amdahl measurements v1)
//
// The nominal roofline of the device: peak FLOP/s = cores x clock x FLOP/cycle, with
// FLOP/cycle from the ISA flags (AVX-512: 2 FMA units x 16 fp32 lanes x 2 = 64; AVX2+FMA:
// 2 x 8 x 2 = 32; else SSE 2 x 4 = 8; two FMA units per core is an ASSUMPTION stated in the
// file); the memory bandwidth is the measured triad bandwidth at the largest (DRAM-resident)
// size, because a virtual machine does not reveal its memory configuration.

#include <ostream>
#include <string>

#include "calibrate/calibration.h"

namespace amdahl::calibrate {

struct CpuCalibrationOptions {
  bool quick = false;
  std::string out_system;  // the system file; the device and CSV are written beside it
  std::string python = "/usr/bin/python3";  // runs framework_kernels.py (needs torch)
  bool force = false;  // the three files may replace existing ones (util/path_policy.h)
};

struct CpuCalibrationResult {
  Calibration calibration;
  std::string system_path, device_path, csv_path;
  bool dispatch_measured = false;  // the framework's kernels and dispatch were measured
};

CpuCalibrationResult calibrate_cpu(const CpuCalibrationOptions& options, std::ostream& log);

// The classes and model forms fitted for a CPU (calibrate_cpu, and `amdahl calibrate
// measurements` with a CPU base device): GEMM with thread scaling, direct convolution, and
// the memory-bound classes with the cache term. The convolutions the framework runs as
// im2col + GEMM come from the set's provenance (framework_conv_gemm_pointwise_below_batch,
// framework_conv_gemm_single_max_input: what framework_kernels.py found the framework to
// choose); without them, none.
std::vector<ClassPlan> cpu_plan(const MeasurementSet& set);

}  // namespace amdahl::calibrate
