#pragma once
// Comparison of measured runs with predictions: one point per measured row, the signed
// error (predicted - measured) / measured, and the summary statistics docs/architecture.md
// asks for (median and 90th percentile of |error|, overall and per op class).

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/prediction.h"
#include "validate/measured_runs.h"

namespace amdahl::validate {

struct ValidationPoint {
  MeasuredRun run;
  double predicted_s = 0;
  double error = 0;  // signed, relative
};

struct ValidationReport {
  std::vector<ValidationPoint> points;           // every row, in file order
  ErrorSummary steps;                            // whole-step rows
  std::map<std::string, ErrorSummary> by_class;  // op_class rows
};

// Predicts the run's workload at its batch, mode and precision. Throws UserError.
using Predictor = std::function<model::Prediction(const MeasuredRun&)>;

ValidationReport compare(const std::vector<MeasuredRun>& runs, const Predictor& predict);

}  // namespace amdahl::validate
