#include "model/schedule.h"

#include <algorithm>
#include <array>

#include "util/error.h"

namespace amdahl::model {
namespace {

// Why a task (an op or an inserted copy) started when it did.
enum class Cause : std::uint8_t { kIssue, kResource, kDependency };

// Task ids: ops are 0..n-1, inserted copies n, n+1, ...
using TaskId = std::size_t;
constexpr TaskId kNoTask = graphs::kNoOp;

struct Trace {
  double start = 0;
  double end = 0;
  Cause cause = Cause::kIssue;
  TaskId binding = kNoTask;  // the task it waited for (kResource, kDependency)
  // The host's last anchor when it was issued: the task whose end the host waited for before
  // it resumed dispatching (kNoTask: the step's start, time 0).
  TaskId anchor = kNoTask;
};

bool crosses(Resource from, Resource to) {
  return (from == Resource::kHost && to == Resource::kCompute) ||
         (from == Resource::kCompute && to == Resource::kHost);
}

}  // namespace

namespace {

// The simulation; with `timeline` false only the makespan, host time and copies (no per-op
// times, no critical path).
Schedule run(const ScheduleInput& in, const std::vector<OpCost>& costs, bool timeline) {
  const graphs::OpGraph& og = *in.graph;
  const graphs::Graph& g = og.graph();
  const std::size_t n = og.size();
  if (costs.size() != n || in.resources.size() != n || in.issue_s.size() != n)
    throw InternalError("simulate: costs, resources and issue times must cover every op");
  Schedule s;
  if (timeline) s.ops.resize(n);
  ScheduledOp untraced;
  // Per-thread scratch: a sweep simulates twice per point, and fresh vectors of this size
  // cost page faults each time.
  thread_local std::vector<Trace> trace;
  thread_local std::vector<Trace> copy_trace;
  trace.assign(n, Trace{});
  copy_trace.clear();
  auto task = [&](TaskId t) -> Trace& { return t < n ? trace[t] : copy_trace[t - n]; };
  auto end_of = [&](TaskId t) { return t == kNoTask ? 0.0 : task(t).end; };

  double host = in.step_start_s;
  s.host_busy_s = host;
  TaskId current = kNoTask;  // the host's anchor (Trace::anchor)
  TaskId compute_last = kNoTask;
  TaskId collective_last = kNoTask;
  TaskId host_last = kNoTask;
  std::vector<TaskId> copy_last(static_cast<std::size_t>(std::max(in.copy_engines, 1)), kNoTask);
  auto free_engine = [&] {
    std::size_t best = 0;
    for (std::size_t e = 1; e < copy_last.size(); ++e)
      if (end_of(copy_last[e]) < end_of(copy_last[best])) best = e;
    return best;
  };
  const bool link = in.h2d_bytes_per_s > 0 && in.d2h_bytes_per_s > 0;
  auto consider = [&](Trace& tr, TaskId other, Cause c) {
    if (other != kNoTask && end_of(other) > tr.start) {
      tr.start = end_of(other);
      tr.cause = c;
      tr.binding = other;
    }
  };
  // Per direction of the host link (bit d of host_link_use), the copy and the exchange there
  // that end last: a task of one kind waits for the other's.
  const bool shared = !in.host_link_use.empty();
  if (shared && in.host_link_use.size() != n)
    throw InternalError("simulate: host_link_use must cover every op or none");
  std::array<TaskId, 2> copy_on_link{kNoTask, kNoTask};
  std::array<TaskId, 2> exchange_on_link{kNoTask, kNoTask};
  auto wait_for_link = [&](Trace& tr, std::uint8_t use, const std::array<TaskId, 2>& others) {
    const double ready = tr.start;
    for (std::size_t d = 0; d < 2; ++d)
      if (use & (1u << d)) consider(tr, others[d], Cause::kResource);
    s.link_wait_s += tr.start - ready;
  };
  auto hold_link = [&](std::uint8_t use, std::array<TaskId, 2>& mine, TaskId self) {
    for (std::size_t d = 0; d < 2; ++d)
      if ((use & (1u << d)) && (mine[d] == kNoTask || end_of(self) >= end_of(mine[d])))
        mine[d] = self;
  };

  for (graphs::OpId id = 0; id < n; ++id) {
    ScheduledOp& op = timeline ? s.ops[id] : untraced;
    const Resource r = in.resources[id];
    host += in.issue_s[id];
    s.host_busy_s += in.issue_s[id];
    op.issue_s = host;
    Trace t;
    t.anchor = current;
    t.start = host;
    if (r == Resource::kCompute) {
      consider(t, compute_last, Cause::kResource);
    } else if (r == Resource::kCollective) {
      consider(t, collective_last, Cause::kResource);
    } else if (r == Resource::kCopy) {
      const std::size_t e = free_engine();
      op.lane = static_cast<int>(e);
      consider(t, copy_last[e], Cause::kResource);
    } else {
      consider(t, host_last, Cause::kResource);
    }
    for (auto [it, end] = boost::in_edges(id, g); it != end; ++it) {
      const graphs::OpId p = boost::source(*it, g);
      if (!link || !crosses(in.resources[p], r)) {
        consider(t, p, Cause::kDependency);
        continue;
      }
      ScheduledCopy c;
      c.from = p;
      c.to = id;
      c.bytes = g[*it].bytes;
      c.to_device = in.resources[p] == Resource::kHost;
      const std::size_t e = free_engine();
      c.lane = static_cast<int>(e);
      Trace ct;
      ct.anchor = current;
      ct.start = host;
      consider(ct, copy_last[e], Cause::kResource);
      consider(ct, p, Cause::kDependency);
      const std::uint8_t dir = c.to_device ? kLinkToDevice : kLinkFromDevice;
      if (shared) wait_for_link(ct, dir, exchange_on_link);
      ct.end = ct.start + in.link_latency_s +
               c.bytes / (c.to_device ? in.h2d_bytes_per_s : in.d2h_bytes_per_s);
      c.start_s = ct.start;
      c.end_s = ct.end;
      const TaskId copy_id = n + copy_trace.size();
      copy_trace.push_back(ct);
      if (shared) hold_link(dir, copy_on_link, copy_id);
      s.copies.push_back(c);
      copy_last[e] = copy_id;
      consider(t, copy_id, Cause::kDependency);
    }
    // A kCopy op is an input's host -> device copy (none when the input is already there and
    // costs nothing).
    const std::uint8_t link_use = !shared ? 0
                                  : r == Resource::kCopy
                                      ? (costs[id].time_s > 0 ? kLinkToDevice : 0)
                                  : r == Resource::kCollective ? in.host_link_use[id]
                                                               : 0;
    if (link_use != 0)
      wait_for_link(t, link_use, r == Resource::kCopy ? exchange_on_link : copy_on_link);
    t.end = t.start + costs[id].time_s;
    op.start_s = t.start;
    op.end_s = t.end;
    trace[id] = t;
    if (link_use != 0)
      hold_link(link_use, r == Resource::kCopy ? copy_on_link : exchange_on_link, id);
    if (r == Resource::kCompute)
      compute_last = id;
    else if (r == Resource::kCollective)
      collective_last = id;
    else if (r == Resource::kCopy)
      copy_last[static_cast<std::size_t>(op.lane)] = id;
    else
      host_last = id;
    if (r == Resource::kHost) {
      // The host thread runs the op itself: dispatching resumes when it ends.
      s.host_busy_s += costs[id].time_s;
      host = op.end_s;
      current = id;
    }
    if (id == in.sync_after) {
      if (op.end_s >= host) {
        current = id;
        host = op.end_s;
      }
      host += in.sync_latency_s;
    }
  }
  TaskId last = kNoTask;
  double device_end = 0;
  for (graphs::OpId id = 0; id < n; ++id)
    if (trace[id].end >= device_end) {
      device_end = trace[id].end;
      last = id;
    }
  s.makespan_s = std::max(host, device_end);
  if (in.sync_at_end) s.makespan_s += in.sync_latency_s;
  if (!timeline) return s;

  // Walk the critical path back from the end.
  std::vector<PathInterval> path;
  path.reserve(n);  // a chain of ops is as long as the graph; spares re-growing it
  const double tail_start = last == kNoTask ? host : std::max(device_end, host);
  if (s.makespan_s > tail_start)
    path.push_back({tail_start, s.makespan_s, graphs::kNoOp, Bound::kDispatch});
  if (last != kNoTask && host > device_end)
    // The host finished after the device: the tail is host time (a host-bound step).
    path.push_back({device_end, host, graphs::kNoOp, Bound::kDispatch});
  TaskId cur = last;
  while (cur != kNoTask) {
    const Trace& t = task(cur);
    if (cur < n) {
      const Bound bound =
          in.resources[cur] == Resource::kHost && costs[cur].bound == Bound::kLatency
              ? Bound::kDispatch
              : costs[cur].bound;
      path.push_back({t.start, t.end, cur, bound});
    } else {
      const auto k = static_cast<int>(cur - n);
      path.push_back(
          {t.start, t.end, s.copies[static_cast<std::size_t>(k)].to, Bound::kTransfer, k});
    }
    if (t.cause != Cause::kIssue) {
      cur = t.binding;
      continue;
    }
    // The host issued it late: host time from its last anchor up to the issue.
    const double resumed = end_of(t.anchor);
    if (t.start > resumed)
      path.push_back({resumed, t.start, graphs::kNoOp, Bound::kDispatch, -1,
                      cur < n ? cur : s.copies[cur - n].to});
    cur = t.anchor;
  }
  std::reverse(path.begin(), path.end());
  s.critical_path = std::move(path);
  return s;
}

}  // namespace

Schedule simulate(const ScheduleInput& in) { return run(in, in.costs, true); }

Schedule simulate(const ScheduleInput& in, const std::vector<OpCost>& costs) {
  return run(in, costs, true);
}

double makespan(const ScheduleInput& in, const std::vector<OpCost>& costs) {
  return run(in, costs, false).makespan_s;
}

}  // namespace amdahl::model
