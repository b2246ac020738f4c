#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/report.h"
#include "cli/table.h"
#include "cli/workload.h"
#include "hw/system_loader.h"
#include "validate/comparison.h"

namespace amdahl::cli {
namespace {

struct ValidateOptions {
  std::string measured;
  std::string system = "minsky";
  std::string device;
  std::string format = "table";
};

void print_table(std::ostream& out, const validate::ValidationReport& r) {
  Table t({"workload", "batch", "mode", "precision", "class", "measured", "predicted", "error"});
  for (const auto& p : r.points)
    t.add({p.run.workload, std::to_string(p.run.batch), p.run.mode, p.run.precision,
           p.run.op_class.empty() ? "step" : p.run.op_class, seconds(p.run.measured_s),
           seconds(p.predicted_s), fmt::format("{:+.1f}%", 100 * p.error)});
  t.print(out);
  out << fmt::format("\nwhole steps: {} points, median |error| {:.1f}%, 90th percentile {:.1f}%\n",
                     r.steps.points, 100 * r.steps.median_abs, 100 * r.steps.p90_abs);
  for (const auto& [cls, s] : r.by_class)
    out << fmt::format("{}: {} points, median |error| {:.1f}%, 90th percentile {:.1f}%\n", cls,
                       s.points, 100 * s.median_abs, 100 * s.p90_abs);
}

nlohmann::json to_json(const validate::ValidationReport& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) {
    nlohmann::json j = {{"workload", p.run.workload},   {"batch", p.run.batch},
                        {"mode", p.run.mode},           {"precision", p.run.precision},
                        {"op_class", p.run.op_class},   {"measured_s", p.run.measured_s},
                        {"predicted_s", p.predicted_s}, {"error", p.error}};
    for (const auto& [k, v] : p.run.extra) j[k] = v;
    points.push_back(j);
  }
  auto summary = [](const validate::ErrorSummary& s) {
    return nlohmann::json{
        {"points", s.points}, {"median_abs_error", s.median_abs}, {"p90_abs_error", s.p90_abs}};
  };
  nlohmann::json classes;
  for (const auto& [cls, s] : r.by_class) classes[cls] = summary(s);
  return {{"points", points}, {"steps", summary(r.steps)}, {"by_class", classes}};
}

}  // namespace

void register_validate(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "compare predictions with measured runs (workload,batch,mode,precision,measured_s CSV)");
  cmd->add_option("--measured", o->measured, "measured-runs CSV")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--system", o->system, "catalog system name or system YAML path")
      ->capture_default_str();
  cmd->add_option("--device", o->device,
                  "device that ran the measurements (default: the system's)");
  cmd->add_option("--format", o->format, "output format")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  cmd->callback([o] {
    const hw::SystemSpec system = hw::load_system(o->system);
    const auto runs = validate::read_measured_runs(o->measured);
    const auto report = validate::compare(runs, [&](const validate::MeasuredRun& run) {
      WorkloadOptions w;
      w.model = run.workload;
      w.device = o->device;
      w.mode = run.mode;
      w.precision = run.precision;
      const Workload wl = load_workload(w, {{"batch", run.batch}}, system);
      return model::predict(wl.lowered, wl.system, wl.predict);
    });
    if (o->format == "json") {
      std::cout << to_json(report).dump(2) << '\n';
    } else if (o->format == "csv") {
      Table t({"workload", "batch", "mode", "precision", "op_class", "measured_s", "predicted_s",
               "error"});
      for (const auto& p : report.points)
        t.add({p.run.workload, std::to_string(p.run.batch), p.run.mode, p.run.precision,
               p.run.op_class, fmt::format("{:.6g}", p.run.measured_s),
               fmt::format("{:.6g}", p.predicted_s), fmt::format("{:.4f}", p.error)});
      t.print_csv(std::cout);
    } else {
      print_table(std::cout, report);
    }
  });
}

}  // namespace amdahl::cli
