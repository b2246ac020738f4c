#include "model/op_cost.h"

#include <array>

#include "model/breakdown.h"

namespace amdahl::model {

std::string_view bound_name(Bound b) {
  static constexpr std::array<std::string_view, kBoundCount> kNames{
      "compute", "memory", "latency", "dispatch", "transfer", "interconnect"};
  return kNames[static_cast<int>(b)];
}

std::string_view host_slot_name(HostSlot h) {
  static constexpr std::array<std::string_view, kHostSlotCount> kNames{"dispatch", "step start"};
  return kNames[static_cast<int>(h)];
}

double OpCost::compute_utilization(double flops) const {
  return time_s > 0 && peak_flops_per_s > 0 ? flops / time_s / peak_flops_per_s : 0;
}

double OpCost::memory_utilization(double bytes) const {
  return time_s > 0 && bandwidth_bytes_per_s > 0 ? bytes / time_s / bandwidth_bytes_per_s : 0;
}

}  // namespace amdahl::model
