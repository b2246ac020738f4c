#pragma once
// Discrete-event schedule of one step. A host thread walks the ops in program order,
// paying the runtime's dispatch cost for each; each op then runs on its resource (the
// device's compute stream, a copy engine, or the host thread itself) once its resource is
// free and its inputs are done. Streams run in order. The host waits for the device at the
// runtime's sync points. The step time is the makespan; the critical path is walked back
// from the end and each interval attributed to what bound it.

#include <vector>

#include "graphs/op_graph.h"
#include "hw/system.h"
#include "model/op_cost.h"

namespace amdahl::model {

enum class Resource { kHost, kCompute, kCopy };

struct ScheduleInput {
  const graphs::OpGraph* graph = nullptr;
  std::vector<OpCost> costs;        // per op
  std::vector<Resource> resources;  // per op
  double dispatch_s = 0;            // host time to issue one op
  double sync_latency_s = 0;        // host wait overhead at a sync point
  bool graph_capture = false;       // one dispatch for the whole step
  int copy_engines = 1;
  graphs::OpId sync_after = graphs::kNoOp;  // host waits for this op (loss read-back)
  bool sync_at_end = true;
};

struct ScheduledOp {
  double issue_s = 0;  // when the host finished dispatching it
  double start_s = 0;
  double end_s = 0;
  int lane = 0;  // copy engine index for kCopy
};

// One interval of the critical path. op == kNoOp: host time (dispatch or sync).
struct PathInterval {
  double start_s = 0;
  double end_s = 0;
  graphs::OpId op = graphs::kNoOp;
  Bound bound = Bound::kDispatch;
};

struct Schedule {
  std::vector<ScheduledOp> ops;
  double makespan_s = 0;
  double host_busy_s = 0;                   // dispatch + host-run ops
  std::vector<PathInterval> critical_path;  // in time order, covering [0, makespan]
};

Schedule simulate(const ScheduleInput& input);

}  // namespace amdahl::model
