#pragma once
// `amdahl calibrate --target cpu`: describe this machine's CPU (/proc/cpuinfo, /proc/meminfo,
// sysfs), run the CPU microbenchmarks (cpu_benchmarks.h) and the framework dispatch loop,
// fit the efficiency models (calibration.h) and write, each atomically:
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
  std::string python = "/usr/bin/python3";  // for the dispatch loop (needs torch)
};

struct CpuCalibrationResult {
  Calibration calibration;
  std::string system_path, device_path, csv_path;
  bool dispatch_measured = false;
};

CpuCalibrationResult calibrate_cpu(const CpuCalibrationOptions& options, std::ostream& log);

// The classes and model forms fitted for a CPU (calibrate_cpu, and `amdahl calibrate
// --measurements` with a CPU base device): GEMM with thread scaling, direct convolution, and
// the memory-bound classes with the cache term.
std::vector<ClassPlan> cpu_plan();

// The framework's per-op dispatch cost: a loop of tiny adds through PyTorch eager on one
// element. Returns seconds per op and fills `framework` ("pytorch 2.x"), or returns 0 and
// fills `why_not` when python or torch is missing.
double measure_dispatch(const std::string& python, std::string& framework, std::string& why_not);

}  // namespace amdahl::calibrate
