#include "model/schedule.h"

#include <algorithm>

#include "util/error.h"

namespace amdahl::model {
namespace {

// Why an op started when it did.
enum class Cause { kIssue, kResource, kDependency };

struct Anchor {
  double time = 0;                         // host resumed dispatching at this time
  graphs::OpId waited_on = graphs::kNoOp;  // after waiting for this op (kNoOp: step start)
};

}  // namespace

Schedule simulate(const ScheduleInput& in) {
  const graphs::OpGraph& g = *in.graph;
  const std::size_t n = g.size();
  if (in.costs.size() != n || in.resources.size() != n)
    throw InternalError("simulate: costs and resources must cover every op");
  Schedule s;
  s.ops.resize(n);
  std::vector<Cause> cause(n, Cause::kIssue);
  std::vector<graphs::OpId> binding(n, graphs::kNoOp);
  std::vector<Anchor> anchor(n);

  double host = in.graph_capture ? in.dispatch_s : 0;
  s.host_busy_s = host;
  Anchor current;
  graphs::OpId compute_last = graphs::kNoOp;
  std::vector<graphs::OpId> copy_last(static_cast<std::size_t>(std::max(in.copy_engines, 1)),
                                      graphs::kNoOp);
  graphs::OpId host_last = graphs::kNoOp;

  for (graphs::OpId id = 0; id < n; ++id) {
    ScheduledOp& op = s.ops[id];
    const Resource r = in.resources[id];
    if (!in.graph_capture) {
      host += in.dispatch_s;
      s.host_busy_s += in.dispatch_s;
    }
    op.issue_s = host;
    anchor[id] = current;
    double start = host;
    Cause why = Cause::kIssue;
    graphs::OpId by = graphs::kNoOp;
    auto consider = [&](graphs::OpId other, Cause c) {
      if (other != graphs::kNoOp && s.ops[other].end_s > start) {
        start = s.ops[other].end_s;
        why = c;
        by = other;
      }
    };
    if (r == Resource::kCompute) {
      consider(compute_last, Cause::kResource);
    } else if (r == Resource::kCopy) {
      // The copy engine that frees first.
      std::size_t best = 0;
      for (std::size_t e = 1; e < copy_last.size(); ++e) {
        const double free_e = copy_last[e] == graphs::kNoOp ? 0 : s.ops[copy_last[e]].end_s;
        const double free_b = copy_last[best] == graphs::kNoOp ? 0 : s.ops[copy_last[best]].end_s;
        if (free_e < free_b) best = e;
      }
      op.lane = static_cast<int>(best);
      consider(copy_last[best], Cause::kResource);
    } else {
      consider(host_last, Cause::kResource);
    }
    for (graphs::OpId p : g.predecessors(id)) consider(p, Cause::kDependency);
    op.start_s = start;
    op.end_s = start + in.costs[id].time_s;
    cause[id] = why;
    binding[id] = by;
    if (r == Resource::kCompute)
      compute_last = id;
    else if (r == Resource::kCopy)
      copy_last[static_cast<std::size_t>(op.lane)] = id;
    else
      host_last = id;
    if (r == Resource::kHost) {
      // The host thread runs the op itself: it is blocked until the op ends.
      s.host_busy_s += in.costs[id].time_s;
      if (op.start_s > host) current = Anchor{op.start_s, by};
      host = op.end_s;
    }
    if (id == in.sync_after) {
      host = std::max(host, op.end_s) + in.sync_latency_s;
      current = Anchor{host, id};
    }
  }
  graphs::OpId last = graphs::kNoOp;
  double device_end = 0;
  for (graphs::OpId id = 0; id < n; ++id)
    if (s.ops[id].end_s >= device_end) {
      device_end = s.ops[id].end_s;
      last = id;
    }
  s.makespan_s = std::max(host, device_end);
  if (in.sync_at_end) s.makespan_s += in.sync_latency_s;

  // Walk the critical path back from the end.
  std::vector<PathInterval> path;
  double t = s.makespan_s;
  const double tail_start = last == graphs::kNoOp ? host : std::max(device_end, host);
  if (t > tail_start) path.push_back({tail_start, t, graphs::kNoOp, Bound::kDispatch});
  t = tail_start;
  if (last != graphs::kNoOp && host > device_end) {
    // The host finished after the device: the tail is dispatch (host-bound step).
    path.push_back({device_end, host, graphs::kNoOp, Bound::kDispatch});
    t = device_end;
  }
  graphs::OpId cur = last;
  while (cur != graphs::kNoOp) {
    const ScheduledOp& op = s.ops[cur];
    const Bound bound =
        in.resources[cur] == Resource::kHost && in.costs[cur].bound == Bound::kLatency
            ? Bound::kDispatch
            : in.costs[cur].bound;
    path.push_back({op.start_s, op.end_s, cur, bound});
    if (cause[cur] != Cause::kIssue) {
      cur = binding[cur];
      continue;
    }
    // The host issued it late: host time from its last anchor up to the issue.
    const Anchor& a = anchor[cur];
    if (op.start_s > a.time) path.push_back({a.time, op.start_s, graphs::kNoOp, Bound::kDispatch});
    cur = a.waited_on;
  }
  std::reverse(path.begin(), path.end());
  s.critical_path = std::move(path);
  return s;
}

}  // namespace amdahl::model
