#pragma once
// The device the calibration tests fit against: GPU-like round numbers.

#include "hw/system.h"

namespace amdahl::calibrate::test {

// 10 TFLOP/s fp32, 1 TB/s, 50 units, 5 us launch latency; `default` efficiency 0.75 / 0.8.
inline hw::DeviceSpec synthetic_gpu() {
  hw::DeviceSpec d;
  d.model = "synthetic GPU";
  d.kind = hw::DeviceKind::kGpu;
  d.parallel_units = 50;
  d.peak[Precision::kFp32] = {10e12, hw::ComputeUnit::kFma};
  d.memory.bandwidth_bytes_per_s = 1e12;
  d.launch_latency_s = 5e-6;
  d.efficiency[hw::entry("default")] = hw::ClassEfficiency{0.75, 0.8};
  return d;
}

}  // namespace amdahl::calibrate::test
