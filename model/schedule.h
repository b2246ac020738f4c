#pragma once
// Discrete-event schedule of one step. A host thread walks the ops in program order,
// paying the runtime's host cost to issue each (model/host_runtime.h); each op then runs on its
// resource (the device's compute stream, a copy engine, or the host thread itself) once its
// resource is free and its inputs are done. Streams run in order. The host waits for the device at
// the runtime's sync points. The step time is the makespan; the critical path is walked back from
// the end and each interval attributed to what bound it.
//
// Tensors crossing between the host and the device (an edge from a kHost op to a device op
// or the reverse; a kCopy op's output is on both sides) are copied over the link: the host
// issues the copy with the consuming op (no extra dispatch), it runs on the copy engine that
// frees first once its producer is done, costs link_latency_s + bytes / bandwidth, and the
// consumer waits for it.
//
// A data-parallel step's exchanges may cross the replicas' links to their CPUs, which the copies
// use too (ScheduleInput::host_link_use). A link direction is then one resource the copies in
// that direction and those exchanges take turns on: a copy waits for the last exchange there to
// end, and an exchange for the last copy. (Both running at once would share the link's
// bandwidth; taking turns moves the same bytes in the same total time and keeps the schedule a
// single pass.) Copies among themselves keep their copy engines, and exchanges their stream.
//
// Cost: O(ops + edges) time, no allocation per op beyond the output vectors.

#include <cstdint>
#include <vector>

#include "graphs/op_graph.h"
#include "hw/system.h"
#include "model/op_cost.h"

namespace amdahl::model {

// kCollective: the stream a data-parallel step's all-reduces run on (NCCL's own stream), in
// order, beside the compute stream; its ops wait for their gradients like any op.
enum class Resource : std::uint8_t { kHost, kCompute, kCopy, kCollective };

// ScheduleInput::host_link_use bits: the direction of the host link an exchange crosses.
inline constexpr std::uint8_t kLinkToDevice = 1;    // as a host -> device copy
inline constexpr std::uint8_t kLinkFromDevice = 2;  // as a device -> host copy

struct ScheduleInput {
  const graphs::OpGraph* graph = nullptr;
  std::vector<OpCost> costs;        // per op
  std::vector<Resource> resources;  // per op
  std::vector<double> issue_s;      // per op: host time to issue it
  double step_start_s = 0;          // host time before the first op is issued
  double sync_latency_s = 0;        // host wait overhead at a sync point
  int copy_engines = 1;
  graphs::OpId sync_after = graphs::kNoOp;  // host waits for this op (loss read-back)
  bool sync_at_end = true;
  // Copies of tensors crossing host <-> device (0 bandwidth: such edges cost nothing).
  double link_latency_s = 0;
  double h2d_bytes_per_s = 0;
  double d2h_bytes_per_s = 0;
  // Per op, or empty (nothing shared): for a kCollective op, the directions of the host link
  // (kLinkToDevice | kLinkFromDevice) its transfers cross on some replica.
  std::vector<std::uint8_t> host_link_use;
};

struct ScheduledOp {
  double issue_s = 0;  // when the host finished dispatching it
  double start_s = 0;
  double end_s = 0;
  int lane = 0;  // copy engine index for kCopy
};

// A copy inserted for a tensor crossing host <-> device.
struct ScheduledCopy {
  graphs::OpId from = graphs::kNoOp;  // producer
  graphs::OpId to = graphs::kNoOp;    // consumer
  double bytes = 0;
  bool to_device = true;
  double start_s = 0;
  double end_s = 0;
  int lane = 0;  // copy engine
};

// One interval of the critical path. op == kNoOp: host time (dispatch or sync); `issued` is
// then the op the host was issuing (kNoOp for the step's tail). copy >= 0: the inserted copy
// Schedule::copies[copy] (op is then its consumer, bound kTransfer).
struct PathInterval {
  double start_s = 0;
  double end_s = 0;
  graphs::OpId op = graphs::kNoOp;
  Bound bound = Bound::kDispatch;
  int copy = -1;
  graphs::OpId issued = graphs::kNoOp;
};

struct Schedule {
  std::vector<ScheduledOp> ops;
  std::vector<ScheduledCopy> copies;
  double makespan_s = 0;
  double host_busy_s = 0;  // dispatch + host-run ops
  double link_wait_s = 0;  // what copies and exchanges waited for each other on a host link
  std::vector<PathInterval> critical_path;  // in time order, covering [0, makespan]
};

// Throws InternalError when costs or resources do not cover every op.
Schedule simulate(const ScheduleInput& input);
// The same with other per-op costs in place of input.costs (what-if analyses).
Schedule simulate(const ScheduleInput& input, const std::vector<OpCost>& costs);
// simulate(input, costs).makespan_s without the per-op timeline and the critical path
// (a sweep's all-on-host comparison reads only the step time).
double makespan(const ScheduleInput& input, const std::vector<OpCost>& costs);

}  // namespace amdahl::model
