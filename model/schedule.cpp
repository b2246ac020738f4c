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

// Per-thread scratch: a sweep simulates twice per point, and fresh vectors of this size cost
// page faults each time.
std::vector<Trace>& op_scratch() {
  thread_local std::vector<Trace> trace;
  return trace;
}
std::vector<Trace>& copy_scratch() {
  thread_local std::vector<Trace> trace;
  return trace;
}

// The simulation: ops issued by the host in order, each started when its resource is free and
// its inputs are ready (copies across the host link inserted on the way); with `timeline`
// false only the makespan, host time and copies (no per-op times, no critical path).
class Simulator {
 public:
  Simulator(const ScheduleInput& in, const std::vector<OpCost>& costs, bool timeline)
      : in_(in),
        costs_(costs),
        g_(in.graph->graph()),
        n_(in.graph->size()),
        timeline_(timeline),
        link_(in.h2d_bytes_per_s > 0 && in.d2h_bytes_per_s > 0),
        shared_(!in.host_link_use.empty()),
        trace_(op_scratch()),
        copy_trace_(copy_scratch()),
        copy_last_(static_cast<std::size_t>(std::max(in.copy_engines, 1)), kNoTask) {
    if (costs.size() != n_ || in.resources.size() != n_ || in.issue_s.size() != n_)
      throw InternalError("simulate: costs, resources and issue times must cover every op");
    if (shared_ && in.host_link_use.size() != n_)
      throw InternalError("simulate: host_link_use must cover every op or none");
    if (timeline_) s_.ops.resize(n_);
    trace_.assign(n_, Trace{});
    copy_trace_.clear();
    host_ = in.step_start_s;
    s_.host_busy_s = host_;
  }

  Schedule run() {
    for (graphs::OpId id = 0; id < n_; ++id) issue(id);
    TaskId last = kNoTask;
    double device_end = 0;
    for (graphs::OpId id = 0; id < n_; ++id)
      if (trace_[id].end >= device_end) {
        device_end = trace_[id].end;
        last = id;
      }
    s_.makespan_s = std::max(host_, device_end);
    if (in_.sync_at_end) s_.makespan_s += in_.sync_latency_s;
    if (timeline_) s_.critical_path = critical_path(last, device_end);
    return std::move(s_);
  }

 private:
  Trace& task(TaskId t) { return t < n_ ? trace_[t] : copy_trace_[t - n_]; }
  double end_of(TaskId t) { return t == kNoTask ? 0.0 : task(t).end; }

  // The copy engine that frees first.
  std::size_t free_engine() {
    std::size_t best = 0;
    for (std::size_t e = 1; e < copy_last_.size(); ++e)
      if (end_of(copy_last_[e]) < end_of(copy_last_[best])) best = e;
    return best;
  }

  // `tr` waits for `other` to end, for cause `c`.
  void consider(Trace& tr, TaskId other, Cause c) {
    if (other != kNoTask && end_of(other) > tr.start) {
      tr.start = end_of(other);
      tr.cause = c;
      tr.binding = other;
    }
  }

  // Per direction of the host link (bit d of host_link_use), the copy and the exchange there
  // that end last: a task of one kind waits for the other's.
  void wait_for_link(Trace& tr, std::uint8_t use, const std::array<TaskId, 2>& others) {
    const double ready = tr.start;
    for (std::size_t d = 0; d < 2; ++d)
      if (use & (1u << d)) consider(tr, others[d], Cause::kResource);
    s_.link_wait_s += tr.start - ready;
  }
  void hold_link(std::uint8_t use, std::array<TaskId, 2>& mine, TaskId self) {
    for (std::size_t d = 0; d < 2; ++d)
      if ((use & (1u << d)) && (mine[d] == kNoTask || end_of(self) >= end_of(mine[d])))
        mine[d] = self;
  }

  // `t` waits for the last task on resource `r` (a kCopy op takes the engine that frees first).
  void wait_for_resource(Trace& t, Resource r, ScheduledOp& op) {
    if (r == Resource::kCompute) {
      consider(t, compute_last_, Cause::kResource);
    } else if (r == Resource::kCollective) {
      consider(t, collective_last_, Cause::kResource);
    } else if (r == Resource::kCopy) {
      const std::size_t e = free_engine();
      op.lane = static_cast<int>(e);
      consider(t, copy_last_[e], Cause::kResource);
    } else {
      consider(t, host_last_, Cause::kResource);
    }
  }

  // The copy of the tensor on edge `edge` from producer `p` to consumer `id` across the host
  // link, on the engine that frees first; its task id.
  TaskId copy_across(graphs::OpId p, graphs::OpId id, const graphs::Graph::edge_descriptor& edge) {
    ScheduledCopy c;
    c.from = p;
    c.to = id;
    c.bytes = g_[edge].bytes;
    c.to_device = in_.resources[p] == Resource::kHost;
    const std::size_t e = free_engine();
    c.lane = static_cast<int>(e);
    Trace ct;
    ct.anchor = current_;
    ct.start = host_;
    consider(ct, copy_last_[e], Cause::kResource);
    consider(ct, p, Cause::kDependency);
    const std::uint8_t dir = c.to_device ? kLinkToDevice : kLinkFromDevice;
    if (shared_) wait_for_link(ct, dir, exchange_on_link_);
    ct.end = ct.start + in_.link_latency_s +
             c.bytes / (c.to_device ? in_.h2d_bytes_per_s : in_.d2h_bytes_per_s);
    c.start_s = ct.start;
    c.end_s = ct.end;
    const TaskId copy_id = n_ + copy_trace_.size();
    copy_trace_.push_back(ct);
    if (shared_) hold_link(dir, copy_on_link_, copy_id);
    s_.copies.push_back(c);
    copy_last_[e] = copy_id;
    return copy_id;
  }

  // The directions of the host link op `id` uses. A kCopy op is an input's host -> device copy
  // (none when the input is already there and costs nothing); a collective's are its own.
  std::uint8_t link_use(graphs::OpId id, Resource r) const {
    if (!shared_) return 0;
    if (r == Resource::kCopy) return costs_[id].time_s > 0 ? kLinkToDevice : 0;
    return r == Resource::kCollective ? in_.host_link_use[id] : 0;
  }

  // Op `id` is the last on its resource; the host runs a host op itself and waits at the sync.
  void retire(graphs::OpId id, Resource r, const ScheduledOp& op) {
    if (r == Resource::kCompute)
      compute_last_ = id;
    else if (r == Resource::kCollective)
      collective_last_ = id;
    else if (r == Resource::kCopy)
      copy_last_[static_cast<std::size_t>(op.lane)] = id;
    else
      host_last_ = id;
    if (r == Resource::kHost) {
      // The host thread runs the op itself: dispatching resumes when it ends.
      s_.host_busy_s += costs_[id].time_s;
      host_ = op.end_s;
      current_ = id;
    }
    if (id == in_.sync_after) {
      if (op.end_s >= host_) {
        current_ = id;
        host_ = op.end_s;
      }
      host_ += in_.sync_latency_s;
    }
  }

  // The host issues op `id`; it starts when its resource, its inputs (copied across the host
  // link where they cross it) and the link are ready.
  void issue(graphs::OpId id) {
    ScheduledOp& op = timeline_ ? s_.ops[id] : untraced_;
    const Resource r = in_.resources[id];
    host_ += in_.issue_s[id];
    s_.host_busy_s += in_.issue_s[id];
    op.issue_s = host_;
    Trace t;
    t.anchor = current_;
    t.start = host_;
    wait_for_resource(t, r, op);
    for (auto [it, end] = boost::in_edges(id, g_); it != end; ++it) {
      const graphs::OpId p = boost::source(*it, g_);
      if (!link_ || !crosses(in_.resources[p], r))
        consider(t, p, Cause::kDependency);
      else
        consider(t, copy_across(p, id, *it), Cause::kDependency);
    }
    const std::uint8_t use = link_use(id, r);
    if (use != 0) wait_for_link(t, use, r == Resource::kCopy ? exchange_on_link_ : copy_on_link_);
    t.end = t.start + costs_[id].time_s;
    op.start_s = t.start;
    op.end_s = t.end;
    trace_[id] = t;
    if (use != 0) hold_link(use, r == Resource::kCopy ? copy_on_link_ : exchange_on_link_, id);
    retire(id, r, op);
  }

  // The critical path, walked back from the task that ends last (`last`, at `device_end`).
  std::vector<PathInterval> critical_path(TaskId last, double device_end) {
    std::vector<PathInterval> path;
    path.reserve(n_);  // a chain of ops is as long as the graph; spares re-growing it
    const double tail_start = last == kNoTask ? host_ : std::max(device_end, host_);
    if (s_.makespan_s > tail_start)
      path.push_back({tail_start, s_.makespan_s, graphs::kNoOp, Bound::kDispatch});
    if (last != kNoTask && host_ > device_end)
      // The host finished after the device: the tail is host time (a host-bound step).
      path.push_back({device_end, host_, graphs::kNoOp, Bound::kDispatch});
    TaskId cur = last;
    while (cur != kNoTask) {
      const Trace& t = task(cur);
      if (cur < n_) {
        const Bound bound =
            in_.resources[cur] == Resource::kHost && costs_[cur].bound == Bound::kLatency
                ? Bound::kDispatch
                : costs_[cur].bound;
        path.push_back({t.start, t.end, cur, bound});
      } else {
        const auto k = static_cast<int>(cur - n_);
        path.push_back(
            {t.start, t.end, s_.copies[static_cast<std::size_t>(k)].to, Bound::kTransfer, k});
      }
      if (t.cause != Cause::kIssue) {
        cur = t.binding;
        continue;
      }
      // The host issued it late: host time from its last anchor up to the issue.
      const double resumed = end_of(t.anchor);
      if (t.start > resumed)
        path.push_back({resumed, t.start, graphs::kNoOp, Bound::kDispatch, -1,
                        cur < n_ ? cur : s_.copies[cur - n_].to});
      cur = t.anchor;
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

  const ScheduleInput& in_;
  const std::vector<OpCost>& costs_;
  const graphs::Graph& g_;
  const std::size_t n_;
  const bool timeline_;
  const bool link_;            // the host link has bandwidth both ways: crossing edges are copied
  const bool shared_;          // copies and exchanges share the host link (host_link_use given)
  std::vector<Trace>& trace_;  // per op
  std::vector<Trace>& copy_trace_;  // per inserted copy (task id n + k)
  Schedule s_;
  ScheduledOp untraced_;      // the op's times when there is no timeline
  double host_ = 0;           // when the host issues next
  TaskId current_ = kNoTask;  // the host's anchor (Trace::anchor)
  TaskId compute_last_ = kNoTask;
  TaskId collective_last_ = kNoTask;
  TaskId host_last_ = kNoTask;
  std::vector<TaskId> copy_last_;  // per copy engine
  std::array<TaskId, 2> copy_on_link_{kNoTask, kNoTask};
  std::array<TaskId, 2> exchange_on_link_{kNoTask, kNoTask};
};

Schedule run(const ScheduleInput& in, const std::vector<OpCost>& costs, bool timeline) {
  return Simulator(in, costs, timeline).run();
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
