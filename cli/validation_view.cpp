#include "cli/validation_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "cli/workload.h"
#include "util/percent.h"

namespace amdahl::cli {

// The prediction of one measured configuration, its parameter count checked when the
// measurement gives one.
model::Prediction predict_run(const validate::MeasuredRun& run, const hw::SystemSpec& system,
                              const std::string& device) {
  WorkloadOptions w;
  w.model = run.workload;
  w.device = device;
  w.mode = run.mode;
  w.precision = run.precision;
  w.inputs_on_device = run.inputs_on_device;
  w.gpus = run.gpus;
  graphs::Bindings sizes = run.sizes;
  sizes["batch"] = run.batch;
  std::optional<hw::SystemSpec> updated;  // the system with the run's variable update
  if (run.variable_update) {
    updated = system;
    updated->runtime.collectives.variable_update = *run.variable_update;
  }
  const Workload wl = load_workload(w, sizes, updated ? *updated : system);
  validate::check_parameters(run, wl.lowered.parameters);
  return model::predict(wl.lowered, wl.system, wl.predict);
}

// The group summaries: percentages in a table, fractions in CSV.
Table summary_table(const validate::ValidationReport& r, bool csv) {
  Table t(
      csv ? std::vector<std::string>{"by", "group", "points", "median_abs_error", "p90_abs_error"}
          : std::vector<std::string>{"group", "points", "median |error|", "p90 |error|"});
  const auto add = [&](const std::string& by, const std::string& group,
                       const validate::ErrorSummary& s) {
    if (csv)
      t.add({by, group, std::to_string(s.points), fmt::format("{:.4f}", s.median_abs),
             fmt::format("{:.4f}", s.p90_abs)});
    else
      t.add({by == "all" ? "all" : fmt::format("{} {}", by, group), std::to_string(s.points),
             format_percent(s.median_abs), format_percent(s.p90_abs)});
  };
  for (const auto& g : r.groups) add(g.by, g.group, g.summary);
  for (const auto& [cls, s] : r.by_class) add("class", cls, s);
  return t;
}

// Predicted against measured step time, a colour per mode and precision and, for runs on
// several GPUs, GPU count ("train fp32", "train fp32, 8 GPUs").
Figure validation_figure(const std::string& name, const validate::ValidationReport& r,
                         const std::string& system) {
  std::vector<PointGroup> groups;
  for (const validate::ValidationPoint& p : r.points) {
    if (!p.run.op_class.empty()) continue;  // whole steps only
    const std::string group =
        p.run.mode + " " + p.run.precision +
        (p.run.gpus > 1 ? fmt::format(", {} GPUs", p.run.gpus) : std::string());
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const PointGroup& g) { return g.name == group; });
    if (it == groups.end()) it = groups.insert(groups.end(), PointGroup{group, {}});
    it->points.emplace_back(p.run.measured_s, p.predicted_s);
  }
  return scatter(name, fmt::format("Predicted against measured step time on {}", system),
                 "measured step (s)", "predicted step (s)", groups);
}

}  // namespace amdahl::cli
