#include "validate/comparison.h"

#include <fmt/format.h>

#include "util/error.h"

namespace amdahl::validate {

ValidationReport compare(const std::vector<MeasuredRun>& runs, const Predictor& predict) {
  ValidationReport report;
  std::vector<double> step_errors;
  std::map<std::string, std::vector<double>> class_errors;
  for (const MeasuredRun& run : runs) {
    const model::Prediction p = predict(run);
    ValidationPoint point{run, p.step_time_s, 0};
    if (!run.op_class.empty()) {
      // Per-class rows compare the device busy time of that class.
      const auto it = p.busy_by_class.find(run.op_class);
      point.predicted_s = it == p.busy_by_class.end() ? 0 : it->second;
    }
    point.error = signed_error(point.predicted_s, run.measured_s);
    (run.op_class.empty() ? step_errors : class_errors[run.op_class]).push_back(point.error);
    report.points.push_back(std::move(point));
  }
  report.steps = summarize(step_errors);
  for (const auto& [cls, errors] : class_errors) report.by_class[cls] = summarize(errors);
  return report;
}

}  // namespace amdahl::validate
