#pragma once
// A device with round numbers, so hand-computed times are obvious.

#include "hw/system.h"

namespace amdahl::model::test {

// 1 TFLOP/s fp32, 100 GB/s, 10 units, no launch latency, efficiency 1 unless changed.
inline hw::DeviceSpec round_device() {
  hw::DeviceSpec d;
  d.name = "dev";
  d.model = "round numbers";
  d.kind = hw::DeviceKind::kGpu;
  d.parallel_units = 10;
  d.peak[Precision::kFp32] = {1e12, hw::ComputeUnit::kFma};
  d.memory.bandwidth_bytes_per_s = 100e9;
  d.efficiency[hw::entry("default")] = hw::ClassEfficiency{1.0, 1.0};
  return d;
}

}  // namespace amdahl::model::test
