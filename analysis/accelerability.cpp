#include "analysis/accelerability.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "analysis/whatif.h"

namespace amdahl::analysis {

Accelerability accelerability(const model::CostedStep& step, double k) {
  Accelerability a;
  a.k = k;
  const model::Schedule base = model::simulate(step.input);
  a.baseline_s = base.makespan_s;
  const graphs::OpGraph& g = step.net->graph;

  std::array<double, kOpClassCount> critical{}, busy{};
  std::array<bool, kOpClassCount> present{};
  for (graphs::OpId id = 0; id < g.size(); ++id) {
    const int c = static_cast<int>(g.op(id).op_class);
    present[c] = true;
    busy[c] += step.input.costs[id].time_s;
  }
  for (const model::ScheduledCopy& c : base.copies) {
    const int t = static_cast<int>(OpClass::kTransfer);
    present[t] = true;
    busy[t] += c.end_s - c.start_s;
  }
  double host = 0;
  for (const model::PathInterval& iv : base.critical_path) {
    const double dt = iv.end_s - iv.start_s;
    if (iv.op == graphs::kNoOp) {
      host += dt;
      continue;
    }
    critical[iv.copy >= 0 ? static_cast<int>(OpClass::kTransfer)
                          : static_cast<int>(g.op(iv.op).op_class)] += dt;
  }
  a.host_share = a.baseline_s > 0 ? host / a.baseline_s : 0;

  auto ratio = [&](double t) {
    return t > 0 ? a.baseline_s / t : std::numeric_limits<double>::infinity();
  };
  for (int i = 0; i < kOpClassCount; ++i) {
    if (!present[i]) continue;
    ClassAccelerability c;
    c.op_class = static_cast<OpClass>(i);
    c.critical_s = critical[i];
    c.share = a.baseline_s > 0 ? critical[i] / a.baseline_s : 0;
    c.busy_s = busy[i];
    ClassSpeedups faster, zero;
    faster.factor[i] = k;
    zero.factor[i] = std::numeric_limits<double>::infinity();
    c.at_k_s = model::simulate(with_speedups(step, faster).input).makespan_s;
    model::check_step_time(c.at_k_s, fmt::format("{} on {} with {}", step.net->name,
                                                 step.system->name, speedups_text(faster)));
    c.bound_s = model::simulate(with_speedups(step, zero).input).makespan_s;
    c.speedup_at_k = ratio(c.at_k_s);
    c.bound_speedup = ratio(c.bound_s);
    a.classes.push_back(c);
  }
  std::stable_sort(a.classes.begin(), a.classes.end(),
                   [](const auto& x, const auto& y) { return x.share > y.share; });
  return a;
}

}  // namespace amdahl::analysis
