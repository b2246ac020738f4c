#pragma once
// Per-op cost: time = max(FLOPs / (peak x compute efficiency),
//                         bytes / (bandwidth x memory efficiency)) + launch latency
//                    + the class's fixed latency.
// The peak is the device's rate at the op's math precision (tf32 falls back to fp32 where
// the device has no TF32 unit; a missing 16-bit rate falls back to fp32 with a note).
// Transfers cost latency + bytes / achieved link bandwidth (pinned or pageable, by
// direction).

#include "graphs/op_graph.h"
#include "hw/system.h"
#include "model/op_cost.h"

namespace amdahl::model {

OpCost estimate(const graphs::Operator& op, const hw::DeviceSpec& device);

enum class Direction { kHostToDevice, kDeviceToHost };
OpCost estimate_transfer(double bytes, const hw::LinkSpec& link, Direction direction, bool pinned);

}  // namespace amdahl::model
