#pragma once
// A device with round numbers, so hand-computed times are obvious.

#include <string>

#include "graphs/op_graph.h"
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

// cpu0 (10 GFLOP/s) <-> gpu0 (1 TFLOP/s) over a 10 GB/s link with 0 latency.
inline hw::SystemSpec two_device_system() {
  hw::SystemSpec s;
  s.name = "pair";
  hw::DeviceSpec gpu = round_device();
  gpu.name = "gpu0";
  hw::DeviceSpec cpu = round_device();
  cpu.name = "cpu0";
  cpu.kind = hw::DeviceKind::kCpu;
  cpu.peak[Precision::kFp32] = {10e9, hw::ComputeUnit::kSimd};
  s.devices = {cpu, gpu};
  hw::LinkSpec l;
  l.name = "cpu0-gpu0";
  l.from = "cpu0";
  l.to = "gpu0";
  l.bandwidth_bytes_per_s = 10e9;
  l.h2d_pinned = l.d2h_pinned = l.h2d_pageable = l.d2h_pageable = 10e9;
  l.calibrated = true;
  s.links = {l};
  s.runtime.name = "rt";
  s.runtime.sync = hw::SyncPoint::kNone;
  s.runtime.calibrated = true;
  s.default_device = "gpu0";
  return s;
}

// An op of class `c` with `flops` and `bytes` written, named after its class.
inline graphs::Operator op(OpClass c, double flops, double bytes) {
  graphs::Operator o;
  o.name = std::string(op_class_name(c));
  o.op_class = c;
  o.flops = flops;
  o.bytes_written = bytes;
  return o;
}

}  // namespace amdahl::model::test
