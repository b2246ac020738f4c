#pragma once
// Host<->device copies and kernel launches from amdahl-cudabench's `transfer` and `launch` rows
// (measurement_format.md): the link's per-copy latency and achieved bandwidths, and the
// device's launch latency.
//
// Copy curve, one per bench (copy_h2d_pinned, copy_d2h_pinned, copy_h2d_pageable,
// copy_d2h_pageable), the model model::estimate_transfer costs copies with:
//   time = latency + bytes / bandwidth
// fitted by linear least squares on relative error (each row weighted by 1 / its measured time,
// so a 4 KiB copy counts as much as a 256 MiB one), with latency >= 0 (a negative intercept is
// refitted through zero). Every fifth size (the held-out rule of calibrate/holdout.h) is held
// out of the fit and only reports its error.
// The link file gets the four bandwidths and, as its one per-copy `latency`, the mean of the
// pinned curves' latencies (pageable copies stage through a pinned buffer, which their own
// curves include).
//
// Launch: `launch mode=async` (time per launch over back-to-back launches: the rate at which
// the host issues kernels, what the device file's launch_latency stands for), `launch
// mode=sync` (one launch and a synchronization: the round trip) and the largest graph's
// `graph_launch mode=async` (time per kernel of a captured graph: the device's own gap
// between kernels), each as measured.

#include <string>
#include <vector>

#include "calibrate/error_stats.h"
#include "calibrate/measurement.h"
#include "hw/system.h"

namespace amdahl::calibrate {

struct CopyCurve {
  std::string bench;       // copy_h2d_pinned, ...
  double latency_s = 0;    // fixed cost per copy
  double bytes_per_s = 0;  // achieved bandwidth of large copies
  ErrorStats train;        // relative errors of the fitted curve
  ErrorStats held_out;
};

// The copy benches, in the order fit_copy_curves returns them.
const std::vector<std::string>& copy_bench_names();

// One curve per copy bench present in `set`. Throws UserError naming the bench when it has
// fewer than 3 training sizes or its fitted bandwidth is not positive.
std::vector<CopyCurve> fit_copy_curves(const MeasurementSet& set);

struct LaunchTimes {
  double async_s = 0;  // 0: not measured
  double sync_s = 0;
  double graph_kernel_s = 0;
  int graph_kernels = 0;  // kernels in the graph behind graph_kernel_s
};
LaunchTimes launch_times(const MeasurementSet& set);

// The link file: `base_text` with latency, the four achieved bandwidths, `calibrated: true`
// and a `note:` (the provenance and every curve's fit) set; everything else kept.
std::string render_calibrated_link(const std::string& base_text,
                                   const std::vector<CopyCurve>& curves,
                                   const std::string& provenance);

}  // namespace amdahl::calibrate
