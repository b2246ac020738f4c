#pragma once
// A prediction's breakdowns (Prediction::by_class, by_phase, by_bound, ...): seconds per op
// class or phase, plus the host's own time, and per binding limit (util/breakdown.h).

#include <cstdint>
#include <string_view>

#include "model/op_cost.h"
#include "util/breakdown.h"
#include "util/op_class.h"

namespace amdahl::model {

// The host's time reported beside the op classes and phases: "dispatch" (the host thread on the
// critical path, issuing and syncing, not counted to an op's phase) and "step start" (zero_grad,
// a graph replay: work before the step's first op).
enum class HostSlot : std::uint8_t { kDispatch, kStepStart };
inline constexpr int kHostSlotCount = 2;
std::string_view host_slot_name(HostSlot h);

// A breakdown over the keys of one enum (`kCount` of them, named by `key_name`), plus the host's
// slots when `kWithHost`.
template <typename Key, int kCount, std::string_view (*key_name)(Key), bool kWithHost>
struct EnumSlots {
  static constexpr int kSlots = kCount + (kWithHost ? kHostSlotCount : 0);
  static constexpr int slot(Key k) { return static_cast<int>(k); }
  static constexpr int slot(HostSlot h) requires kWithHost { return kCount + static_cast<int>(h); }
  static std::string_view name(int s) {
    return s < kCount ? key_name(static_cast<Key>(s))
                      : host_slot_name(static_cast<HostSlot>(s - kCount));
  }
};

using ClassBreakdown = Breakdown<EnumSlots<OpClass, kOpClassCount, op_class_name, true>>;
using PhaseBreakdown = Breakdown<EnumSlots<Phase, kPhaseCount, phase_name, true>>;
using BoundBreakdown = Breakdown<EnumSlots<Bound, kBoundCount, bound_name, false>>;

}  // namespace amdahl::model
