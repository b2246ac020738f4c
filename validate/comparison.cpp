#include "validate/comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "util/error.h"
#include "util/op_class.h"

namespace amdahl::validate {

std::vector<GroupSummary> group_summaries(const std::vector<ValidationPoint>& points) {
  // One grouping: its name and the group a point belongs to.
  struct Grouping {
    const char* by;
    std::function<std::string(const MeasuredRun&)> group_of;
  };
  const Grouping groupings[] = {
      {"all", [](const MeasuredRun&) { return std::string("all"); }},
      {"precision", [](const MeasuredRun& r) { return r.precision; }},
      {"mode", [](const MeasuredRun& r) { return r.mode; }},
      {"batch",
       [](const MeasuredRun& r) {
         return fmt::format("{} {}", r.batch <= kSmallBatch ? "<=" : ">", kSmallBatch);
       }},
      {"gpus", [](const MeasuredRun& r) { return std::to_string(r.gpus); }},
  };
  // Grouping by GPU count only where some run used several.
  const bool several = std::any_of(points.begin(), points.end(),
                                   [](const ValidationPoint& p) { return p.run.gpus > 1; });
  std::vector<GroupSummary> out;
  for (const Grouping& g : groupings) {
    if (std::string(g.by) == "gpus" && !several) continue;
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> errors;
    for (const ValidationPoint& p : points) {
      if (!p.run.op_class.empty()) continue;
      const std::string group = g.group_of(p.run);
      if (!errors.contains(group)) order.push_back(group);
      errors[group].push_back(p.error);
    }
    if (std::string(g.by) == "batch") std::sort(order.begin(), order.end());  // "<=" before ">"
    for (const auto& group : order) out.push_back({g.by, group, summarize(errors[group])});
  }
  return out;
}

ValidationReport compare(const std::vector<MeasuredRun>& runs, const Predictor& predict) {
  ValidationReport report;
  std::map<std::string, std::vector<double>> class_errors;
  for (const MeasuredRun& run : runs) {
    const model::Prediction p = predict(run);
    ValidationPoint point{run, p.step_time_s, 0};
    if (!run.op_class.empty()) {
      // Per-class rows compare the device busy time of that class.
      // A class amdahl does not have is predicted to take nothing.
      const std::optional<OpClass> c = parse_op_class(run.op_class);
      point.predicted_s = c ? p.busy_by_class[*c] : 0;
    }
    point.error = signed_error(point.predicted_s, run.measured_s);
    if (!run.op_class.empty()) class_errors[run.op_class].push_back(point.error);
    report.points.push_back(std::move(point));
  }
  report.groups = group_summaries(report.points);
  for (const auto& [cls, errors] : class_errors) report.by_class[cls] = summarize(errors);
  return report;
}

}  // namespace amdahl::validate
