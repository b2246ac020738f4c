#pragma once
// The cost of one operator on one device or link, and why it costs that: time, the
// roofline terms, the efficiencies applied, the binding limit and utilizations: every
// number says why it is what it is.

#include <string_view>

#include "model/kernel_choice.h"

namespace amdahl::model {

// kTransfer: a host <-> device copy on the link; kInterconnect: a collective between devices.
enum class Bound { kCompute, kMemory, kLatency, kDispatch, kTransfer, kInterconnect };
inline constexpr int kBoundCount = 6;
std::string_view bound_name(Bound b);

struct OpCost {
  double time_s = 0;        // what the op occupies its resource for
  double compute_s = 0;     // FLOPs / (peak x compute efficiency)
  double memory_s = 0;      // bytes / (bandwidth x memory efficiency)
  double latency_s = 0;     // launch latency + fixed per-op latency
  double transfer_s = 0;    // bytes / link bandwidth (transfers only)
  double allocation_s = 0;  // a fresh output's pages faulting in (hw::AllocationSpec)
  Bound bound = Bound::kCompute;
  double compute_efficiency = 0;  // fraction of peak applied
  double memory_efficiency = 0;   // fraction of bandwidth applied
  double peak_flops_per_s = 0;
  double bandwidth_bytes_per_s = 0;
  KernelChoice kernel;  // the kernel a GEMM-like op is costed on

  // Achieved fraction of the device's peak FLOP/s and bandwidth over time_s.
  double compute_utilization(double flops) const;
  double memory_utilization(double bytes) const;
};

}  // namespace amdahl::model
