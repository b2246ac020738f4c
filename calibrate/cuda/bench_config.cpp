#include "bench_config.h"

namespace amdahl::cudabench {

TimingPolicy default_timing(bool quick) {
  TimingPolicy policy;
  if (quick) {
    policy.warmup_calls = 2;
    policy.min_reps = 3;
    policy.max_reps = 10;
    policy.min_rep_seconds = 50e-6;
    policy.max_total_seconds = 0.03;
  } else {
    policy.warmup_calls = 3;
    policy.min_reps = 5;
    policy.max_reps = 25;
    policy.min_rep_seconds = 100e-6;
    policy.max_total_seconds = 0.2;
  }
  return policy;
}

std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes, bool quick) {
  std::vector<std::size_t> sizes;
  const std::size_t factor = quick ? 4 : 2;
  for (std::size_t size = min_bytes; size <= max_bytes; size *= factor) {
    sizes.push_back(size);
    if (!quick && size * 2 <= max_bytes) sizes.push_back(size + size / 2);
  }
  return sizes;
}

}  // namespace amdahl::cudabench
