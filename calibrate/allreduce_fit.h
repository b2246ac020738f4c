#pragma once
// The collectives' latency and bandwidth from DeepBench's all-reduce runs
// (shared/data/deepbench/deepbench_allreduce.csv: time of one all-reduce of `size_bytes` over
// `n_gpus` GPUs, by dataset: one machine and GPU each).
//
// What is fitted: for each dataset, the single-node NCCL rows (algorithm "NCCL ..."; NCCL 2.0
// ran rings only, so the ring is forced), the two numbers of model::CollectiveGroup's ring
// all-reduce, 2(p-1) (a + S/(pB)):
//   a  the time of one ring step (runtime.collectives.step_latency with links of no latency)
//   B  the bandwidth of one hop between two GPUs (a link's p2p bandwidth)
// costed by CollectiveGroup itself over a star of p GPUs, each on its own link of bandwidth B
// to one host vertex (DeepBench's machines were PCIe boxes whose GPUs exchange through the
// host's PCIe tree; their switch layout is not published, so one hop is one fitted link).
// The time is linear in (a, 1/B); the fit is least squares on relative error (each row
// weighted by 1 / its measured time), a >= 0 (a negative intercept is refitted through zero).
// The held-out rule of calibrate/holdout.h: every fifth row of a dataset's fitted rows (file
// order) is held out and only reports its error.
//
// Not fitted: the multi-node rows (their network and NIC layout are not published) and the
// MPI, OSU and Baidu ring rows (not NCCL); they are counted in the report, not costed.

#include <string>
#include <vector>

#include "calibrate/error_stats.h"
#include "model/collective.h"

namespace amdahl::calibrate {

struct AllReduceRow {
  std::string where;  // "file:line"
  std::string dataset;
  std::string gpu;
  std::string algorithm;
  int gpus = 0;
  int nodes = 1;
  double bytes = 0;
  double measured_s = 0;
};

// The rows of deepbench_allreduce.csv. Throws UserError located at the row for a missing
// column, a non-number, a non-positive time, size or GPU count.
std::vector<AllReduceRow> read_deepbench_allreduce(const std::string& path);

// Whether a row is one the fit uses: one node, an NCCL algorithm, at least 2 GPUs.
bool fitted_allreduce_row(const AllReduceRow& r);

// CollectiveGroup's ring all-reduce over p GPUs joined as above.
model::CollectiveCost star_ring_allreduce(int gpus, double bytes, double step_latency_s,
                                          double hop_bytes_per_s);

struct AllReduceResidual {
  AllReduceRow row;
  double predicted_s = 0;
  bool held_out = false;
};

struct AllReduceFit {
  std::string dataset;
  std::string gpu;
  double step_latency_s = 0;
  double hop_bytes_per_s = 0;
  ErrorStats train;
  ErrorStats held_out;
  int rows_not_fitted = 0;  // the dataset's multi-node and non-NCCL rows
  std::vector<AllReduceResidual> residuals;
};

// One fit per dataset with fitted rows, in order of first appearance. Throws UserError naming
// the dataset when it has fewer than 3 training rows or its fitted bandwidth is not positive.
std::vector<AllReduceFit> fit_allreduce(const std::vector<AllReduceRow>& rows);

}  // namespace amdahl::calibrate
