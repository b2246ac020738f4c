// Timing of device work (CUDA events) and of host-visible round trips (steady clock).
//
// Both follow one recipe: warm-up calls, one probe call to size the measurement, then
// repetitions, reporting the median of the per-call times (the median resists the odd slow
// repetition from a clock change or a competing process).
//
// On the device, a repetition brackets calls_per_rep back-to-back calls with a pair of
// events, calls_per_rep chosen so a repetition lasts at least min_rep_seconds: kernels of a
// few microseconds are otherwise below the events' resolution (about 0.5 us). The time per
// call is then the device time between consecutive calls, launch gaps included, as a
// framework's back-to-back kernels see it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "cuda_check.h"

namespace amdahl::cudabench {

struct TimingPolicy {
  int warmup_calls = 3;
  int min_reps = 5;
  int max_reps = 25;
  double min_rep_seconds = 100e-6;  // a device repetition lasts at least this long
  double max_total_seconds = 0.25;  // stop adding repetitions past this (min_reps still run)
  int max_calls_per_rep = 1000;
};

struct Timing {
  double median_seconds = 0.0;  // median time of one call
  int reps = 0;                 // repetitions behind the median
};

// Median of values (by value: it reorders its copy). Zero when empty.
double median(std::vector<double> values);

// Two CUDA events bracketing work on a stream.
class EventPair {
 public:
  EventPair();
  ~EventPair();
  EventPair(EventPair&& other) noexcept;
  EventPair& operator=(EventPair&& other) noexcept;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  void record_start(cudaStream_t stream);
  void record_stop(cudaStream_t stream);
  // Seconds between the two events; the stop event must have completed.
  double elapsed_seconds() const;

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Times enqueue(), which enqueues one call on stream and must not synchronize.
template <typename Enqueue>
Timing time_on_stream(cudaStream_t stream, const TimingPolicy& policy, Enqueue&& enqueue) {
  for (int i = 0; i < policy.warmup_calls; ++i) enqueue();
  EventPair probe;
  probe.record_start(stream);
  enqueue();
  probe.record_stop(stream);
  AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
  const double probe_seconds = std::max(probe.elapsed_seconds(), 1e-7);

  const int calls_per_rep =
      static_cast<int>(std::clamp(std::ceil(policy.min_rep_seconds / probe_seconds), 1.0,
                                  static_cast<double>(policy.max_calls_per_rep)));
  const double rep_seconds = probe_seconds * calls_per_rep;
  const int reps = static_cast<int>(std::clamp(std::floor(policy.max_total_seconds / rep_seconds),
                                               static_cast<double>(policy.min_reps),
                                               static_cast<double>(policy.max_reps)));

  std::vector<EventPair> events(static_cast<std::size_t>(reps));
  for (EventPair& pair : events) {
    pair.record_start(stream);
    for (int call = 0; call < calls_per_rep; ++call) enqueue();
    pair.record_stop(stream);
  }
  AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> per_call;
  per_call.reserve(events.size());
  for (const EventPair& pair : events) per_call.push_back(pair.elapsed_seconds() / calls_per_rep);
  return Timing{median(per_call), reps};
}

// Times call(), which must return only when its work is complete (it synchronizes), by the
// host's steady clock: what the calling thread waits.
template <typename Call>
Timing time_on_host(const TimingPolicy& policy, Call&& call) {
  using Clock = std::chrono::steady_clock;
  const auto seconds_of = [&call] {
    const Clock::time_point start = Clock::now();
    call();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  for (int i = 0; i < policy.warmup_calls; ++i) call();
  const double probe_seconds = std::max(seconds_of(), 1e-9);
  const int reps = static_cast<int>(std::clamp(std::floor(policy.max_total_seconds / probe_seconds),
                                               static_cast<double>(policy.min_reps),
                                               static_cast<double>(policy.max_reps)));
  std::vector<double> per_call;
  per_call.reserve(static_cast<std::size_t>(reps));
  for (int rep = 0; rep < reps; ++rep) per_call.push_back(seconds_of());
  return Timing{median(per_call), reps};
}

}  // namespace amdahl::cudabench
