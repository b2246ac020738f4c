// What every benchmark group is given: the run mode, the stream to enqueue on, the timing
// recipe, and a soft time budget.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "timer.h"

namespace amdahl::cudabench {

// A soft time limit: a group checks it between shapes and skips the rest once it has passed,
// so a whole run stays inside the time its caller planned for.
class Deadline {
 public:
  explicit Deadline(double seconds)
      : seconds_(seconds),
        end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(seconds))) {}
  bool passed() const { return std::chrono::steady_clock::now() > end_; }
  double seconds() const { return seconds_; }

 private:
  double seconds_;
  std::chrono::steady_clock::time_point end_;
};

struct BenchConfig {
  bool quick = false;             // fewer shapes and repetitions (--quick)
  int sm_count = 0;               // streaming multiprocessors of the device
  cudaStream_t stream = nullptr;  // all device work goes here
  TimingPolicy timing;
  Deadline deadline{0.0};
};

// The timing recipe of a full or a quick run.
TimingPolicy default_timing(bool quick);

// Sizes in bytes from min_bytes up to max_bytes (min_bytes a power of two). A full run takes
// every power of two and the points 1.5 * 2^k between them (4 KiB..1 GiB: 37 sizes); a quick
// run takes min_bytes times the powers of four (4 KiB..1 GiB: 10 sizes).
std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes, bool quick);

}  // namespace amdahl::cudabench
