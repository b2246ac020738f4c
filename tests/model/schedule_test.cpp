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
  f.input.dispatch_s = dispatch_s;
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
  in.dispatch_s = 1e-6;
  const Schedule s = simulate(in);
  // Copy 1-1001 us, compute 2-1002 us in parallel; join 1002-2002 us.
  CHECK(s.makespan_s == Approx(2e-6 + 2e-3));
  CHECK(s.ops[comp].start_s < s.ops[copy].end_s);  // overlapped
}
