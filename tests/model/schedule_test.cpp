// A two-op DAG whose simulated time equals the hand-computed value in the host-bound and the
// device-bound regime, and a copy that overlaps independent compute.

#include "model/schedule.h"

#include <catch2/catch.hpp>

using namespace amdahl;
using namespace amdahl::model;

namespace {
struct Fixture {
  graphs::OpGraph graph;
  ScheduleInput input;
};

// A -> B on the compute stream, each taking `op_s`; the host dispatches each in `dispatch_s`.
Fixture chain(double op_s, double dispatch_s) {
  Fixture f;
  graphs::Operator a;
  a.name = "a";
  graphs::Operator b;
  b.name = "b";
  const auto ia = f.graph.add(a);
  const auto ib = f.graph.add(b);
  f.graph.depend(ia, ib, 4);
  f.input.costs = {OpCost{.time_s = op_s, .bound = Bound::kCompute},
                   OpCost{.time_s = op_s, .bound = Bound::kCompute}};
  f.input.resources = {Resource::kCompute, Resource::kCompute};
  f.input.issue_s = {dispatch_s, dispatch_s};
  return f;
}

double sum_bound(const Schedule& s, Bound b) {
  double t = 0;
  for (const auto& iv : s.critical_path)
    if (iv.bound == b) t += iv.end_s - iv.start_s;
  return t;
}
}  // namespace

TEST_CASE("device-bound: step = first dispatch + both ops", "[model][schedule]") {
  Fixture f = chain(1e-3, 10e-6);
  f.input.graph = &f.graph;
  const Schedule s = simulate(f.input);
  // The host issues A at 10 us; B is issued at 20 us but waits for A (ends 1010 us).
  CHECK(s.makespan_s == Approx(10e-6 + 2 * 1e-3));
  CHECK(sum_bound(s, Bound::kCompute) == Approx(2e-3));
  CHECK(sum_bound(s, Bound::kDispatch) == Approx(10e-6));
}

TEST_CASE("host-bound: step = both dispatches + the last op", "[model][schedule]") {
  Fixture f = chain(1e-6, 10e-6);
  f.input.graph = &f.graph;
  const Schedule s = simulate(f.input);
  // A runs 10-11 us, B is issued at 20 us and runs 20-21 us: the device idles waiting.
  CHECK(s.makespan_s == Approx(2 * 10e-6 + 1e-6));
  CHECK(sum_bound(s, Bound::kDispatch) == Approx(20e-6));
  CHECK(sum_bound(s, Bound::kCompute) == Approx(1e-6));
}

TEST_CASE("critical path covers the whole step", "[model][schedule]") {
  for (double op_s : {1e-6, 5e-6, 1e-3}) {
    Fixture f = chain(op_s, 10e-6);
    f.input.graph = &f.graph;
    f.input.sync_latency_s = 3e-6;
    const Schedule s = simulate(f.input);
    double covered = 0;
    for (const auto& iv : s.critical_path) covered += iv.end_s - iv.start_s;
    CHECK(covered == Approx(s.makespan_s));
  }
}

TEST_CASE("a copy overlaps independent compute", "[model][schedule]") {
  // copy (1 ms on a copy engine) and compute (1 ms), independent; then C needs both.
  graphs::OpGraph g;
  const auto copy = g.add(graphs::Operator{});
  const auto comp = g.add(graphs::Operator{});
  const auto join = g.add(graphs::Operator{});
  g.depend(copy, join, 1);
  g.depend(comp, join, 1);
  ScheduleInput in;
  in.graph = &g;
  in.costs = {OpCost{.time_s = 1e-3, .bound = Bound::kTransfer},
              OpCost{.time_s = 1e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 1e-3, .bound = Bound::kCompute}};
  in.resources = {Resource::kCopy, Resource::kCompute, Resource::kCompute};
  in.issue_s.assign(3, 1e-6);
  const Schedule s = simulate(in);
  // Copy 1-1001 us, compute 2-1002 us in parallel; join 1002-2002 us.
  CHECK(s.makespan_s == Approx(2e-6 + 2e-3));
  CHECK(s.ops[comp].start_s < s.ops[copy].end_s);  // overlapped
}

TEST_CASE("a tensor crossing host -> device is copied on a copy engine", "[model][schedule]") {
  // H (host op, 1 ms) -> D (compute, 1 ms), 10 MB over a 10 GB/s link with 5 us latency.
  graphs::OpGraph g;
  const auto h = g.add(graphs::Operator{});
  const auto d = g.add(graphs::Operator{});
  g.depend(h, d, 10e6);
  ScheduleInput in;
  in.graph = &g;
  in.costs = {OpCost{.time_s = 1e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 1e-3, .bound = Bound::kCompute}};
  in.resources = {Resource::kHost, Resource::kCompute};
  in.issue_s.assign(2, 0.0);
  in.link_latency_s = 5e-6;
  in.h2d_bytes_per_s = 10e9;
  in.d2h_bytes_per_s = 10e9;
  const Schedule s = simulate(in);
  REQUIRE(s.copies.size() == 1);
  CHECK(s.copies[0].to_device);
  CHECK(s.copies[0].start_s == Approx(1e-3));
  CHECK(s.copies[0].end_s == Approx(1e-3 + 5e-6 + 1e-3));
  CHECK(s.makespan_s == Approx(3e-3 + 5e-6));
  CHECK(sum_bound(s, Bound::kTransfer) == Approx(1e-3 + 5e-6));
  double covered = 0;
  for (const auto& iv : s.critical_path) covered += iv.end_s - iv.start_s;
  CHECK(covered == Approx(s.makespan_s));
}

TEST_CASE("host ops block dispatch, and the host waits for device results", "[model][schedule]") {
  // D (compute, 1 ms) -> H (host, 0.5 ms) -> D2 (compute, 1 ms); no link: no copy cost.
  graphs::OpGraph g;
  const auto d = g.add(graphs::Operator{});
  const auto h = g.add(graphs::Operator{});
  const auto d2 = g.add(graphs::Operator{});
  g.depend(d, h, 1);
  g.depend(h, d2, 1);
  ScheduleInput in;
  in.graph = &g;
  in.costs = {OpCost{.time_s = 1e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 0.5e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 1e-3, .bound = Bound::kCompute}};
  in.resources = {Resource::kCompute, Resource::kHost, Resource::kCompute};
  in.issue_s.assign(3, 10e-6);
  const Schedule s = simulate(in);
  // D runs 10-1010 us; H is issued at 20 us, waits for D, runs 1010-1510 us;
  // D2 is dispatched after H returns: issued 1520 us, ends 2520 us.
  CHECK(s.ops[h].start_s == Approx(1010e-6));
  CHECK(s.ops[d2].issue_s == Approx(1520e-6));
  CHECK(s.makespan_s == Approx(2520e-6));
  double covered = 0;
  for (const auto& iv : s.critical_path) covered += iv.end_s - iv.start_s;
  CHECK(covered == Approx(s.makespan_s));
}

TEST_CASE("host-bound versus device-bound on chains of tiny and large ops", "[model][schedule]") {
  // 100 ops in a chain, 10 us dispatch each. Tiny ops (1 us): the host binds, step =
  // 100 x 10 us + 1 us. Large ops (1 ms): the device binds, step = 10 us + 100 x 1 ms.
  auto run = [](double op_s) {
    graphs::OpGraph g;
    ScheduleInput in;
    for (int i = 0; i < 100; ++i) {
      const auto id = g.add(graphs::Operator{});
      if (i > 0) g.depend(id - 1, id, 1);
      in.costs.push_back(OpCost{.time_s = op_s, .bound = Bound::kCompute});
      in.resources.push_back(Resource::kCompute);
    }
    in.graph = &g;
    in.issue_s.assign(100, 10e-6);
    return simulate(in);
  };
  const Schedule tiny = run(1e-6);
  CHECK(tiny.makespan_s == Approx(100 * 10e-6 + 1e-6));
  CHECK(sum_bound(tiny, Bound::kDispatch) == Approx(100 * 10e-6));
  const Schedule large = run(1e-3);
  CHECK(large.makespan_s == Approx(10e-6 + 100 * 1e-3));
  CHECK(sum_bound(large, Bound::kCompute) == Approx(100 * 1e-3));
}

TEST_CASE("makespan() is simulate()'s step time", "[model][schedule]") {
  // The same simulation without the timeline: exactly equal, on a host op feeding the device
  // over a link (an inserted copy), a sync after the first op, and the chains above.
  graphs::OpGraph g;
  const auto h = g.add(graphs::Operator{});
  const auto d = g.add(graphs::Operator{});
  const auto d2 = g.add(graphs::Operator{});
  g.depend(h, d, 10e6);
  g.depend(d, d2, 1);
  ScheduleInput in;
  in.graph = &g;
  in.costs = {OpCost{.time_s = 1e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 2e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 0.5e-3, .bound = Bound::kMemory}};
  in.resources = {Resource::kHost, Resource::kCompute, Resource::kCompute};
  in.issue_s.assign(3, 7e-6);
  in.sync_after = h;
  in.sync_latency_s = 3e-6;
  in.link_latency_s = 5e-6;
  in.h2d_bytes_per_s = 10e9;
  in.d2h_bytes_per_s = 10e9;
  CHECK(makespan(in, in.costs) == simulate(in).makespan_s);
  for (double op_s : {1e-6, 1e-3}) {
    Fixture f = chain(op_s, 10e-6);
    f.input.graph = &f.graph;
    CHECK(makespan(f.input, f.input.costs) == simulate(f.input).makespan_s);
  }
}

TEST_CASE("data parallel: a bucket's all-reduce overlaps the rest of the backward pass",
          "[model][schedule]") {
  // g1 -> g2 on the compute stream (1 ms each, the backward pass); ar1 and ar2 all-reduce
  // their gradients on the collective stream (0.6 ms each); the update u (0.1 ms) waits for
  // both. Hand timeline (no dispatch cost): g1 0-1, ar1 1-1.6 (beside g2 1-2), ar2 2-2.6,
  // u 2.6-2.7. Only ar2 is exposed; run in series the step would be 3.3 ms.
  graphs::OpGraph graph;
  const auto g1 = graph.add(graphs::Operator{});
  const auto ar1 = graph.add(graphs::Operator{});
  const auto g2 = graph.add(graphs::Operator{});
  const auto ar2 = graph.add(graphs::Operator{});
  const auto u = graph.add(graphs::Operator{});
  graph.depend(g1, ar1, 4);
  graph.depend(g1, g2, 4);
  graph.depend(g2, ar2, 4);
  graph.depend(ar1, u, 4);
  graph.depend(ar2, u, 4);
  constexpr double kCompute = 1e-3, kAllReduce = 0.6e-3, kUpdate = 0.1e-3;
  ScheduleInput in;
  in.graph = &graph;
  in.costs = {OpCost{.time_s = kCompute, .bound = Bound::kCompute},
              OpCost{.time_s = kAllReduce, .bound = Bound::kInterconnect},
              OpCost{.time_s = kCompute, .bound = Bound::kCompute},
              OpCost{.time_s = kAllReduce, .bound = Bound::kInterconnect},
              OpCost{.time_s = kUpdate, .bound = Bound::kCompute}};
  in.resources = {Resource::kCompute, Resource::kCollective, Resource::kCompute,
                  Resource::kCollective, Resource::kCompute};
  in.issue_s = {0, 0, 0, 0, 0};
  in.sync_at_end = false;
  const Schedule s = simulate(in);
  CHECK(s.ops[ar1].start_s == Approx(kCompute));
  CHECK(s.ops[g2].start_s == Approx(kCompute));  // not held back by the all-reduce
  CHECK(s.ops[ar2].start_s == Approx(2 * kCompute));
  CHECK(s.ops[u].start_s == Approx(2 * kCompute + kAllReduce));
  CHECK(s.makespan_s == Approx(2 * kCompute + kAllReduce + kUpdate));
  CHECK(sum_bound(s, Bound::kInterconnect) == Approx(kAllReduce));  // exposed: ar2 only
  CHECK(sum_bound(s, Bound::kCompute) == Approx(2 * kCompute + kUpdate));
}

TEST_CASE("data parallel: all-reduces run in order on one stream", "[model][schedule]") {
  // Two all-reduces ready at once share the collective stream: the second starts when the
  // first ends, not when its gradient is ready.
  graphs::OpGraph graph;
  const auto g = graph.add(graphs::Operator{});
  const auto ar1 = graph.add(graphs::Operator{});
  const auto ar2 = graph.add(graphs::Operator{});
  graph.depend(g, ar1, 4);
  graph.depend(g, ar2, 4);
  ScheduleInput in;
  in.graph = &graph;
  in.costs = {OpCost{.time_s = 1e-3}, OpCost{.time_s = 2e-3, .bound = Bound::kInterconnect},
              OpCost{.time_s = 2e-3, .bound = Bound::kInterconnect}};
  in.resources = {Resource::kCompute, Resource::kCollective, Resource::kCollective};
  in.issue_s = {0, 0, 0};
  in.sync_at_end = false;
  const Schedule s = simulate(in);
  CHECK(s.ops[ar2].start_s == Approx(3e-3));
  CHECK(s.makespan_s == Approx(5e-3));
}

namespace {
// g (compute, 0.5 ms) -> ar (exchange, 2 ms); h (a host op, 1 ms) -> d (compute, 1 ms), whose
// input crosses host -> device: a copy of 1 MB at 1 GB/s (1 ms, no setup). Program order g, ar,
// h, d; no dispatch cost. `use`: the host link directions ar crosses.
struct SharedLink {
  graphs::OpGraph graph;
  ScheduleInput in;
  graphs::OpId g, ar, h, d;
  explicit SharedLink(std::uint8_t use) {
    g = graph.add(graphs::Operator{});
    ar = graph.add(graphs::Operator{});
    h = graph.add(graphs::Operator{});
    d = graph.add(graphs::Operator{});
    graph.depend(g, ar, 4);
    graph.depend(h, d, 1e6);
    in.graph = &graph;
    in.costs = {OpCost{.time_s = 0.5e-3, .bound = Bound::kCompute},
                OpCost{.time_s = 2e-3, .bound = Bound::kInterconnect},
                OpCost{.time_s = 1e-3, .bound = Bound::kCompute},
                OpCost{.time_s = 1e-3, .bound = Bound::kCompute}};
    in.resources = {Resource::kCompute, Resource::kCollective, Resource::kHost, Resource::kCompute};
    in.issue_s = {0, 0, 0, 0};
    in.sync_at_end = false;
    in.h2d_bytes_per_s = 1e9;
    in.d2h_bytes_per_s = 1e9;
    in.host_link_use = {0, use, 0, 0};
  }
};
}  // namespace

TEST_CASE("data parallel: a copy and an exchange take turns on a host link they both cross",
          "[model][schedule]") {
  // Hand timeline: g 0-0.5, ar 0.5-2.5 on the collective stream; h runs on the host 0-1; d's
  // input copy is ready at 1 but ar holds the link toward the device until 2.5: copy 2.5-3.5,
  // d 3.5-4.5. The copy waited 1.5 ms; the critical path is g, ar, the copy, d.
  SharedLink f(kLinkToDevice);
  const Schedule s = simulate(f.in);
  REQUIRE(s.copies.size() == 1);
  CHECK(s.copies[0].start_s == Approx(2.5e-3));
  CHECK(s.copies[0].end_s == Approx(3.5e-3));
  CHECK(s.ops[f.d].start_s == Approx(3.5e-3));
  CHECK(s.makespan_s == Approx(4.5e-3));
  CHECK(s.link_wait_s == Approx(1.5e-3));
  CHECK(sum_bound(s, Bound::kInterconnect) == Approx(2e-3));
  CHECK(sum_bound(s, Bound::kTransfer) == Approx(1e-3));
  CHECK(sum_bound(s, Bound::kCompute) == Approx(1.5e-3));
  CHECK(makespan(f.in, f.in.costs) == Approx(s.makespan_s));
}

TEST_CASE("data parallel: an exchange crossing the host link the other way leaves the copy be",
          "[model][schedule]") {
  // ar crosses the link only from the device: the copy runs 1-2 beside it, d 2-3 (ar ends at
  // 2.5), and the step ends at 3. The same without any host_link_use.
  for (const bool listed : {true, false}) {
    SharedLink f(kLinkFromDevice);
    if (!listed) f.in.host_link_use.clear();
    const Schedule s = simulate(f.in);
    CHECK(s.copies[0].start_s == Approx(1e-3));
    CHECK(s.makespan_s == Approx(3e-3));
    CHECK(s.link_wait_s == 0);
  }
}

TEST_CASE("data parallel: an exchange waits for a copy on the host link", "[model][schedule]") {
  // Program order h, d, ar. h runs on the host 0-1; d's input copy 1-2, d 2-3. ar (2 ms, no
  // inputs) is issued at 1, when the host is free again, but the copy holds the link toward the
  // device until 2: ar 2-4. Waited: 1 ms; without sharing ar would run 1-3 and the step end at 3.
  graphs::OpGraph graph;
  const auto h = graph.add(graphs::Operator{});
  const auto d = graph.add(graphs::Operator{});
  const auto ar = graph.add(graphs::Operator{});
  graph.depend(h, d, 1e6);
  ScheduleInput in;
  in.graph = &graph;
  in.costs = {OpCost{.time_s = 1e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 1e-3, .bound = Bound::kCompute},
              OpCost{.time_s = 2e-3, .bound = Bound::kInterconnect}};
  in.resources = {Resource::kHost, Resource::kCompute, Resource::kCollective};
  in.issue_s = {0, 0, 0};
  in.sync_at_end = false;
  in.h2d_bytes_per_s = 1e9;
  in.d2h_bytes_per_s = 1e9;
  in.host_link_use = {0, 0, kLinkToDevice | kLinkFromDevice};
  const Schedule s = simulate(in);
  CHECK(s.ops[ar].start_s == Approx(2e-3));
  CHECK(s.makespan_s == Approx(4e-3));
  CHECK(s.link_wait_s == Approx(1e-3));
  // The critical path: h (host), the copy, then ar, which waited for it.
  REQUIRE(s.critical_path.size() == 3);
  CHECK(s.critical_path[1].bound == Bound::kTransfer);
  CHECK(s.critical_path[2].op == ar);
  in.host_link_use.clear();
  CHECK(simulate(in).makespan_s == Approx(3e-3));
}

TEST_CASE("data parallel: host_link_use covers every op or none", "[model][schedule]") {
  SharedLink f(kLinkToDevice);
  f.in.host_link_use.pop_back();
  CHECK_THROWS_WITH(simulate(f.in), Catch::Contains("host_link_use must cover every op"));
}

TEST_CASE("data parallel: an input already on the device holds no host link", "[model][schedule]") {
  // ar (2 ms, crossing the link toward the device) runs 0-2; input x is already on the device
  // (no time) and starts at 0; input y (a 1 ms copy) waits for ar: 2-3. Waited: 2 ms, y's.
  graphs::OpGraph graph;
  const auto ar = graph.add(graphs::Operator{});
  const auto x = graph.add(graphs::Operator{});
  const auto y = graph.add(graphs::Operator{});
  ScheduleInput in;
  in.graph = &graph;
  in.costs = {OpCost{.time_s = 2e-3, .bound = Bound::kInterconnect},
              OpCost{.bound = Bound::kTransfer}, OpCost{.time_s = 1e-3, .bound = Bound::kTransfer}};
  in.resources = {Resource::kCollective, Resource::kCopy, Resource::kCopy};
  in.issue_s = {0, 0, 0};
  in.copy_engines = 2;
  in.sync_at_end = false;
  in.host_link_use = {kLinkToDevice, 0, 0};
  const Schedule s = simulate(in);
  CHECK(s.ops[ar].end_s == Approx(2e-3));
  CHECK(s.ops[x].start_s == 0);
  CHECK(s.ops[y].start_s == Approx(2e-3));
  CHECK(s.makespan_s == Approx(3e-3));
  CHECK(s.link_wait_s == Approx(2e-3));
}
