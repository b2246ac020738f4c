#pragma once
// Rows timed with CUDA events around one framework call (shape `timing=event`, e.g. PyTorch's,
// torch_kernels.h) time the host's work for the call as well as the kernel. The start event is
// recorded with the device idle; the host then runs the call (argument checks, dispatch, a
// library's descriptor and heuristic work, the launch), the kernel runs, and the end event is
// recorded when the call has returned, so
//   measured = max(host, before + kernel)
// host: the host's time from one event record to the other (what a call with a short kernel
// measures: the flat floor of every size sweep of shared/data/h200/kernels), before: its time
// until the kernel starts, host - after, where `after` is the host's time from the launch to the
// end event's record (the return through the framework and the record itself), the same for
// every call.
//
// Estimated per bench from the training rows (held-out rows never take part):
//   host_b   the median of the bench's rows within kFloorBand of its fastest row (those the
//            host bounds), when they are a flat floor: two rows or more whose work (bytes or
//            FLOPs) differs by kFloorSpan or more taking about the same time. A bench without
//            one (every size's kernel outlasts the call, as for whole recurrent layers; or
//            too few small shapes, as for the H200's forward convolutions) is costed as its
//            kernels alone, the call's cost then in the entry's fitted `latency`;
//   after    over the benches of class elementwise (the simplest kernels, whose fixed cost is
//            the device's launch latency alone), the median of host_b - (intercept_b - launch
//            latency), intercept_b the zero-size intercept of the least-squares line through
//            the bench's rows of at least kKernelBoundFactor x host_b (the bandwidth-bound sizes,
//            time against bytes);
//   before_b host_b - after (at least 0).
// A bench with event rows needs `after`: without an elementwise size sweep reaching
// kKernelBoundFactor x its floor at two sizes or more, estimate_call_overheads throws UserError.

#include <map>
#include <string>
#include <vector>

#include "calibrate/efficiency_fit.h"
#include "calibrate/measurement.h"

namespace amdahl::calibrate {

inline constexpr double kFloorBand = 0.15;
inline constexpr double kKernelBoundFactor = 2;
inline constexpr double kFloorSpan = 2;

struct CallOverheads {
  std::map<std::string, CallOverhead> by_bench;  // benches with event rows and a floor
  double after_s = 0;
  bool empty() const { return by_bench.empty(); }
  // The overhead of `m`'s call; zeros for a row not timed around a framework call or of a
  // bench without a floor.
  CallOverhead of(const Measurement& m) const;
};

// Whether `m` was timed with events around a framework call (timing=event).
bool timed_around_call(const Measurement& m);

CallOverheads estimate_call_overheads(const std::vector<Measurement>& training_rows,
                                      double launch_latency_s);

}  // namespace amdahl::calibrate
