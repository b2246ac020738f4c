#include "model/roofline.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/efficiency.h"

namespace amdahl::model {

OpCost estimate(const graphs::Operator& op, const hw::DeviceSpec& device) {
  OpCost c;
  auto peak = device.peak_for(op.precision);
  if (!peak) {
    peak = device.peak_for(Precision::kFp32);
    c.reason = fmt::format("{} has no {} rate; costed at its fp32 rate", device.model,
                           precision_name(op.precision));
  }
  c.peak_flops_per_s = peak->flops_per_s;
  c.bandwidth_bytes_per_s = device.memory.bandwidth_bytes_per_s;
  c.compute_efficiency = compute_efficiency(op, device);
  c.memory_efficiency = memory_efficiency(op, device);
  c.compute_s = op.flops > 0 ? op.flops / (c.peak_flops_per_s * c.compute_efficiency) : 0;
  c.memory_s = op.bytes() > 0 ? op.bytes() / (c.bandwidth_bytes_per_s * c.memory_efficiency) : 0;
  const std::string key(graphs::op_class_name(op.op_class));
  c.latency_s = device.launch_latency_s + device.efficiency_for(key).latency_s;
  const double work = std::max(c.compute_s, c.memory_s);
  c.time_s = work + c.latency_s;
  if (c.latency_s > work)
    c.bound = Bound::kLatency;
  else
    c.bound = c.compute_s >= c.memory_s ? Bound::kCompute : Bound::kMemory;
  return c;
}

OpCost estimate_transfer(double bytes, const hw::LinkSpec& link, Direction direction, bool pinned) {
  OpCost c;
  const bool h2d = direction == Direction::kHostToDevice;
  c.bandwidth_bytes_per_s = pinned ? (h2d ? link.h2d_pinned : link.d2h_pinned)
                                   : (h2d ? link.h2d_pageable : link.d2h_pageable);
  c.memory_efficiency = c.bandwidth_bytes_per_s / link.bandwidth_bytes_per_s;
  c.transfer_s = bytes / c.bandwidth_bytes_per_s;
  c.latency_s = link.latency_s;
  c.time_s = c.transfer_s + c.latency_s;
  c.bound = c.latency_s > c.transfer_s ? Bound::kLatency : Bound::kTransfer;
  return c;
}

}  // namespace amdahl::model
