#pragma once
// Comparison of measured runs with predictions: one point per measured row, the signed
// error (predicted - measured) / measured, and the summary statistics docs/architecture.md
// asks for: median and 90th percentile of |error| over the whole steps, grouped by
// precision, by mode, by batch size (up to kSmallBatch and above) and, where some run used
// several GPUs, by GPU count, and per op class for per-class rows.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/prediction.h"
#include "validate/measured_runs.h"

namespace amdahl::validate {

// The batch size that splits the batch groups (<= and >): at 16 and below a GPU training
// step is mostly the framework's host time, above it mostly kernels
// (../shared/data/h200/README.md; docs/validation.md).
inline constexpr std::int64_t kSmallBatch = 16;

struct ValidationPoint {
  MeasuredRun run;
  double predicted_s = 0;
  double error = 0;  // signed, relative
};

// The whole-step points of one group: `by` is "all", "precision", "mode", "batch" or "gpus";
// `group` the value ("bf16", "train", "<= 16", "8", ...).
struct GroupSummary {
  std::string by;
  std::string group;
  ErrorSummary summary;
};

struct ValidationReport {
  std::vector<ValidationPoint> points;           // every row, in file order
  std::vector<GroupSummary> groups;              // whole-step rows (group_summaries)
  std::map<std::string, ErrorSummary> by_class;  // op_class rows
};

// Predicts the run's workload at its batch, mode and precision. Throws UserError.
using Predictor = std::function<model::Prediction(const MeasuredRun&)>;

ValidationReport compare(const std::vector<MeasuredRun>& runs, const Predictor& predict);

// The groups of whole-step points, in the order reports print them: all; each precision and
// each mode in order of first appearance; batch <= kSmallBatch, batch > kSmallBatch; each GPU
// count in order of first appearance when some run used several. Groups without points are
// left out.
std::vector<GroupSummary> group_summaries(const std::vector<ValidationPoint>& points);

}  // namespace amdahl::validate
