#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/figures.h"
#include "cli/json_text.h"
#include "cli/report.h"
#include "cli/validation_view.h"
#include "cli/workload.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "util/error.h"
#include "util/percent.h"
#include "util/table.h"
#include "validate/comparison.h"
#include "validate/kernel_profile.h"

namespace amdahl::cli {
namespace {

struct ValidateOptions {
  std::string measured;
  std::string profile;
  std::string system = "minsky";
  std::string device;
  std::string format = "table";
  std::string plot;  // --plot FILE.svg
  bool force = false;
};

std::string percent(double e) { return format_percent(e, true); }

void print_runs(const validate::ValidationReport& r, const std::string& format) {
  if (format == "json") {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : r.points) {
      nlohmann::json j = {{"workload", p.run.workload},
                          {"batch", p.run.batch},
                          {"gpus", p.run.gpus},
                          {"mode", p.run.mode},
                          {"precision", p.run.precision},
                          {"op_class", p.run.op_class},
                          {"measured_s", p.run.measured_s},
                          {"predicted_s", p.predicted_s},
                          {"error", p.error}};
      if (!p.run.model.empty()) j["model"] = p.run.model;
      for (const auto& [k, v] : p.run.extra) j[k] = v;
      points.push_back(j);
    }
    auto summary = [](const validate::ErrorSummary& s) {
      return nlohmann::json{
          {"points", s.points}, {"median_abs_error", s.median_abs}, {"p90_abs_error", s.p90_abs}};
    };
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : r.groups) {
      nlohmann::json j = summary(g.summary);
      j["by"] = g.by;
      j["group"] = g.group;
      groups.push_back(j);
    }
    nlohmann::json classes = nlohmann::json::object();
    for (const auto& [cls, s] : r.by_class) classes[cls] = summary(s);
    std::cout << json_text({{"points", points}, {"groups", groups}, {"by_class", classes}}, 2)
              << '\n';
    return;
  }
  const bool csv = format == "csv";
  // The table shows the GPU count only where a run used several.
  const bool gpus = std::any_of(r.points.begin(), r.points.end(),
                                [](const validate::ValidationPoint& p) { return p.run.gpus > 1; });
  std::vector<std::string> header =
      csv ? std::vector<std::string>{"workload",  "model",    "batch",      "gpus",        "mode",
                                     "precision", "op_class", "measured_s", "predicted_s", "error"}
          : std::vector<std::string>{"workload", "batch",    "mode",      "precision",
                                     "class",    "measured", "predicted", "error"};
  if (!csv && gpus) header.insert(header.begin() + 2, "gpus");
  Table t(header);
  for (const auto& p : r.points)
    if (csv) {
      t.add({p.run.workload, p.run.model, std::to_string(p.run.batch), std::to_string(p.run.gpus),
             p.run.mode, p.run.precision, p.run.op_class, fmt::format("{:.6g}", p.run.measured_s),
             fmt::format("{:.6g}", p.predicted_s), fmt::format("{:.4f}", p.error)});
    } else {
      std::vector<std::string> row{p.run.workload,
                                   std::to_string(p.run.batch),
                                   p.run.mode,
                                   p.run.precision,
                                   p.run.op_class.empty() ? "step" : p.run.op_class,
                                   seconds(p.run.measured_s),
                                   seconds(p.predicted_s),
                                   percent(p.error)};
      if (gpus) row.insert(row.begin() + 2, std::to_string(p.run.gpus));
      t.add(row);
    }
  if (csv) {
    t.print_csv(std::cout);
    std::cout << '\n';
    summary_table(r, true).print_csv(std::cout);
    return;
  }
  t.print(std::cout);
  std::cout << "\nwhole steps, |error| by group:\n";
  summary_table(r, false).print(std::cout);
}

// Per profiled configuration and op class: the profile's kernel time per step against the
// prediction's busy time of that class; then the matrix classes together (cuBLAS kernels
// serve several of them, kernel_profile.h) and every class.
void run_profile(const ValidateOptions& o, const hw::SystemSpec& system) {
  const auto configs = validate::read_kernel_profile(o.profile);
  Table t({"model", "workload", "batch", "class", "measured", "predicted", "error"});
  nlohmann::json json = nlohmann::json::array();
  std::vector<std::pair<std::string, validate::ProfiledKernel>> unmapped;
  for (const auto& c : configs) {
    validate::MeasuredRun run;
    run.workload = graphs::zoo_network_for_pytorch(c.model, c.where + ": column model");
    run.model = c.model;
    run.batch = c.batch;
    run.mode = "train";  // the profile's steps are training steps
    // shared/data/h200/models.py makes the inputs on the device, as the steps' layout says.
    run.inputs_on_device = true;
    run.precision = c.precision;
    run.where = c.where;
    const model::Prediction p = predict_run(run, system, o.device);
    std::map<std::string, std::pair<double, double>> rows;  // class -> measured, predicted
    for (const auto& [cls, s] : c.device_s_per_step) rows[cls].first = s;
    for (const auto& [cls, s] : p.busy_by_class.named())
      if (cls != op_class_name(OpClass::kHost)) rows[std::string(cls)].second = s;
    double matrix_m = 0, matrix_p = 0, all_m = 0, all_p = 0;
    for (const auto& [cls, mp] : rows) {
      const auto oc = parse_op_class(cls);
      if (oc && is_matrix_class(*oc)) matrix_m += mp.first, matrix_p += mp.second;
      all_m += mp.first;
      all_p += mp.second;
    }
    rows["matrix (gemm+conv+rnn+attention)"] = {matrix_m, matrix_p};
    rows["all device time"] = {all_m, all_p};
    for (const auto& [cls, mp] : rows) {
      const std::string err =
          mp.first > 0 ? percent(validate::signed_error(mp.second, mp.first)) : "-";
      t.add({c.model, run.workload, std::to_string(c.batch), cls, seconds(mp.first),
             seconds(mp.second), err});
      json.push_back({{"model", c.model},
                      {"workload", run.workload},
                      {"batch", c.batch},
                      {"precision", c.precision},
                      {"class", cls},
                      {"measured_s_per_step", mp.first},
                      {"predicted_s", mp.second}});
    }
    for (const auto& k : c.kernels)
      if (k.family == validate::kUnmapped) unmapped.emplace_back(c.model, k);
  }
  if (o.format == "json") {
    std::cout << json_text(json, 2) << '\n';
  } else if (o.format == "csv") {
    t.print_csv(std::cout);
  } else {
    t.print(std::cout);
    std::cout << fmt::format("\n{} unmapped device activities{}\n", unmapped.size(),
                             unmapped.empty() ? "" : ":");
    for (const auto& [model, k] : unmapped)
      std::cout << fmt::format("  {}: {} ({} per step)\n", model, k.name.substr(0, 120),
                               seconds(k.device_s_per_step));
  }
}

}  // namespace

void register_validate(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "compare predictions with measured runs (--measured: whole steps; --profile: device "
      "time per op class of a torch.profiler key-average CSV)");
  auto* measured = cmd->add_option("--measured", o->measured,
                                   "measured-runs CSV (workload,batch,mode,precision,measured_s "
                                   "or model,batch,precision,mode,median_us)")
                       ->check(CLI::ExistingFile);
  auto* profile = cmd->add_option("--profile", o->profile,
                                  "profile CSV (model,batch,precision,op,calls,self_device_us,"
                                  "self_cpu_us,steps)")
                      ->check(CLI::ExistingFile);
  measured->excludes(profile);
  cmd->add_option("--system", o->system, "catalog system name or system YAML path")
      ->capture_default_str();
  cmd->add_option("--device", o->device,
                  "device that ran the measurements (default: the system's)");
  add_allow_path_option(cmd);
  cmd->add_option("--format", o->format, "output format")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("--plot", o->plot,
                  "with --measured, also draw predicted against measured step time into "
                  "FILE.svg (with FILE.png, the CSV and the gnuplot script beside it)");
  cmd->add_flag("--force", o->force, "let --plot replace its files");
  cmd->callback([o] {
    if (!o->plot.empty() && o->measured.empty())
      throw UserError("validate: --plot draws the --measured comparison");
    if (o->measured.empty() == o->profile.empty())
      throw UserError("validate: give --measured FILE or --profile FILE");
    const hw::SystemSpec system = hw::load_system(o->system);
    if (!o->profile.empty()) {
      run_profile(*o, system);
      return;
    }
    if (!o->plot.empty()) check_plot(o->plot, o->force);  // fails before any work
    const auto runs = validate::read_measured_runs(o->measured);
    const auto report = validate::compare(runs, [&](const validate::MeasuredRun& run) {
      return predict_run(run, system, o->device);
    });
    print_runs(report, o->format);
    if (!o->plot.empty())
      write_plot(o->plot, validation_figure(plot_name(o->plot), report, system.name), o->force);
  });
}

}  // namespace amdahl::cli
