#include "graphs/optimizer.h"

namespace amdahl::graphs {

UpdateCost update_cost(OptimizerKind kind) {
  constexpr double kF32 = 4;
  switch (kind) {
    case OptimizerKind::kSgd:
      return {2, 2 * kF32, 1 * kF32, 0};
    case OptimizerKind::kMomentum:
      return {4, 3 * kF32, 2 * kF32, 1};
    case OptimizerKind::kRmsprop:
      return {8, 3 * kF32, 2 * kF32, 1};
    case OptimizerKind::kAdam:
      return {12, 4 * kF32, 3 * kF32, 2};
  }
  return {2, 2 * kF32, 1 * kF32, 0};
}

}  // namespace amdahl::graphs
