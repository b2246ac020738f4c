#pragma once
// Accelerability per op class (docs/architecture.md, analysis/): each class's share of the
// step's critical path and busy time, the step time were the class k times faster, and
// the Amdahl bound, the step time with the class at zero cost. Every figure comes from
// re-simulating the step (analysis/whatif.h), so overlap with host dispatch and copies is
// accounted for: a class hidden behind the host has a bound speedup near 1 however large
// its busy time.

#include <vector>

#include "model/prediction.h"

namespace amdahl::analysis {

struct ClassAccelerability {
  OpClass op_class = OpClass::kGemm;
  double critical_s = 0;  // seconds on the baseline critical path
  double share = 0;       // critical_s / baseline
  double busy_s = 0;      // sum of the class's op times (ignores overlap)
  double at_k_s = 0;      // step time with the class k times faster
  double speedup_at_k = 1;
  double bound_s = 0;  // step time with the class at zero cost
  double bound_speedup = 1;
};

struct Accelerability {
  double baseline_s = 0;
  double k = 10;
  double host_share = 0;  // share of the critical path that is host dispatch / sync
  std::vector<ClassAccelerability> classes;  // classes with ops in the step, by share, desc
};

Accelerability accelerability(const model::CostedStep& step, double k = 10);

}  // namespace amdahl::analysis
