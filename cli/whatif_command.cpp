// amdahl whatif: re-simulate the step with op classes made faster (--speedup conv=10) or
// with another accelerator in place of the system's (--device FILE), and report the new
// step time, the speedup, the Amdahl bound, and the accelerability of every op class.

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/report.h"
#include "cli/table.h"
#include "cli/workload.h"
#include "hw/system_loader.h"
#include "model/accelerability.h"
#include "model/whatif.h"
#include "util/error.h"

namespace amdahl::cli {
namespace {

std::string times(double x) { return std::isinf(x) ? "inf" : fmt::format("{:.3f}x", x); }

std::string header(const model::Prediction& p) {
  return fmt::format("{} on {} ({}, {}), batch {}, {}, {}", p.workload, p.system, p.device,
                     p.device_model, p.batch, graphs::mode_name(p.mode),
                     precision_name(p.precision));
}

std::string join_classes(const model::ClassSpeedups& s) {
  std::string out;
  for (int i = 0; i < graphs::kOpClassCount; ++i)
    if (s.factor[i] != 1.0)
      out += (out.empty() ? "" : ", ") +
             std::string(graphs::op_class_name(static_cast<graphs::OpClass>(i)));
  return out;
}

Table accelerability_table(const model::Accelerability& a) {
  const std::string at_k = fmt::format("at {:g}x", a.k);
  Table t({"op class", "share", "busy", at_k, "speedup", "bound", "bound speedup"});
  for (const auto& c : a.classes)
    t.add({std::string(graphs::op_class_name(c.op_class)), fmt::format("{:.1f}%", 100 * c.share),
           seconds(c.busy_s), seconds(c.at_k_s), times(c.speedup_at_k), seconds(c.bound_s),
           times(c.bound_speedup)});
  return t;
}

nlohmann::json accelerability_json(const model::Accelerability& a) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : a.classes)
    rows.push_back({{"op_class", graphs::op_class_name(c.op_class)},
                    {"share", c.share},
                    {"critical_s", c.critical_s},
                    {"busy_s", c.busy_s},
                    {"at_k_s", c.at_k_s},
                    {"speedup_at_k", c.speedup_at_k},
                    {"bound_s", c.bound_s},
                    {"bound_speedup", std::isinf(c.bound_speedup) ? -1.0 : c.bound_speedup}});
  return {{"k", a.k}, {"host_share", a.host_share}, {"classes", rows}};
}

void run_speedups(const WorkloadOptions& o, const std::string& speedup_text, double k) {
  const Workload w = load_workload(o);
  const model::ClassSpeedups speedups = model::parse_speedups(speedup_text);
  const model::CostedStep step = model::cost_step(w.lowered, w.system, w.predict);
  const model::Prediction base = model::predict(w.lowered, w.system, w.predict);
  const model::WhatIf r = model::whatif(step, speedups);
  const model::Accelerability acc = model::accelerability(step, k);
  const std::string what = model::speedups_text(speedups);
  switch (parse_format(o.format)) {
    case Format::kJson: {
      nlohmann::json j = prediction_json(base);
      j["speedup"] = what;
      j["baseline_s"] = r.baseline_s;
      j["new_s"] = r.new_s;
      j["speedup_x"] = r.speedup;
      j["bound_s"] = r.bound_s;
      j["bound_speedup"] = std::isinf(r.bound_speedup) ? -1.0 : r.bound_speedup;
      j["sped_up_share"] = r.sped_up_share;
      j["amdahl_formula_speedup"] =
          std::isinf(r.amdahl_formula_speedup) ? -1.0 : r.amdahl_formula_speedup;
      j["accelerability"] = accelerability_json(acc);
      std::cout << j.dump(2) << '\n';
      break;
    }
    case Format::kCsv: {
      Table t({"workload", "system", "device", "batch", "speedup", "baseline_s", "new_s",
               "speedup_x", "bound_s", "bound_speedup", "sped_up_share", "amdahl_formula"});
      t.add({base.workload, base.system, base.device, std::to_string(base.batch), what,
             fmt::format("{:.6g}", r.baseline_s), fmt::format("{:.6g}", r.new_s),
             fmt::format("{:.6g}", r.speedup), fmt::format("{:.6g}", r.bound_s),
             fmt::format("{:.6g}", r.bound_speedup), fmt::format("{:.4f}", r.sped_up_share),
             fmt::format("{:.6g}", r.amdahl_formula_speedup)});
      t.print_csv(std::cout);
      break;
    }
    case Format::kTable: {
      std::cout << header(base) << "\n";
      std::cout << fmt::format("what if        {}\n", what);
      std::cout << fmt::format("baseline       {}\n", seconds(r.baseline_s));
      std::cout << fmt::format("new step time  {}\n", seconds(r.new_s));
      std::cout << fmt::format("speedup        {}\n", times(r.speedup));
      std::cout << fmt::format("Amdahl bound   {} ({} with {} at zero cost)\n", seconds(r.bound_s),
                               times(r.bound_speedup), join_classes(speedups));
      std::cout << fmt::format(
          "Amdahl formula {} (critical-path share {:.1f}%, ignoring overlap)\n\n",
          times(r.amdahl_formula_speedup), 100 * r.sped_up_share);
      std::cout << fmt::format(
          "accelerability by op class (host dispatch/sync {:.1f}% of the step):\n",
          100 * acc.host_share);
      accelerability_table(acc).print(std::cout);
      break;
    }
  }
}

void run_device(const WorkloadOptions& o, const std::string& device_file) {
  WorkloadOptions base_options = o;
  base_options.device.clear();
  const Workload w = load_workload(base_options);
  const hw::DeviceSpec replacement = hw::load_device_file(device_file);
  const model::DeviceWhatIf r = model::whatif_device(w.lowered, w.system, w.predict, replacement);
  switch (parse_format(o.format)) {
    case Format::kJson: {
      nlohmann::json j;
      j["baseline"] = prediction_json(r.baseline);
      j["changed"] = prediction_json(r.changed);
      j["device_file"] = device_file;
      j["speedup"] = r.speedup;
      j["bound_s"] = r.bound_s;
      j["bound_speedup"] = std::isinf(r.bound_speedup) ? -1.0 : r.bound_speedup;
      std::cout << j.dump(2) << '\n';
      break;
    }
    case Format::kCsv: {
      Table t({"workload", "system", "device", "batch", "baseline_model", "new_model", "baseline_s",
               "new_s", "speedup_x", "bound_s", "bound_speedup"});
      t.add({r.baseline.workload, r.baseline.system, r.baseline.device,
             std::to_string(r.baseline.batch), r.baseline.device_model, r.changed.device_model,
             fmt::format("{:.6g}", r.baseline.step_time_s),
             fmt::format("{:.6g}", r.changed.step_time_s), fmt::format("{:.6g}", r.speedup),
             fmt::format("{:.6g}", r.bound_s), fmt::format("{:.6g}", r.bound_speedup)});
      t.print_csv(std::cout);
      break;
    }
    case Format::kTable: {
      std::cout << header(r.baseline) << "\n";
      std::cout << fmt::format("what if        {} is replaced by {} ({})\n", r.baseline.device,
                               r.changed.device_model, device_file);
      std::cout << fmt::format("baseline       {}\n", seconds(r.baseline.step_time_s));
      std::cout << fmt::format("new step time  {}\n", seconds(r.changed.step_time_s));
      std::cout << fmt::format("speedup        {}\n", times(r.speedup));
      std::cout << fmt::format("Amdahl bound   {} ({} with every accelerator op at zero cost)\n\n",
                               seconds(r.bound_s), times(r.bound_speedup));
      Table t({"op class", "baseline", "new"});
      std::map<std::string, std::pair<double, double>> rows;
      for (const auto& [k, v] : r.baseline.by_class) rows[k].first = v;
      for (const auto& [k, v] : r.changed.by_class) rows[k].second = v;
      for (const auto& [k, v] : rows) t.add({k, seconds(v.first), seconds(v.second)});
      std::cout << "critical path by op class:\n";
      t.print(std::cout);
      break;
    }
  }
}

}  // namespace

void register_whatif(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto speedup = std::make_shared<std::string>();
  auto k = std::make_shared<double>(10);
  CLI::App* cmd = app.add_subcommand(
      "whatif",
      "re-simulate with op classes made faster (--speedup conv=10,gemm=4) or with a device "
      "file in place of the default device (--device FILE): new step time, speedup, Amdahl "
      "bound, accelerability");
  add_workload_options(cmd, *o, true, {"table", "csv", "json"});
  cmd->add_option("--speedup", *speedup,
                  "CLASS=K[,CLASS=K]: divide the time of every op of CLASS by K ('inf': zero)");
  cmd->add_option("--k", *k, "speedup factor of the accelerability table's 'at Kx' column")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  // --device FILE (a device YAML file rather than an instance name) replaces the system's
  // default device with the file's.
  cmd->callback([o, speedup, k] {
    const bool device_file = !o->device.empty() && std::filesystem::is_regular_file(o->device);
    if (device_file && !speedup->empty())
      throw UserError("whatif: give --speedup or --device FILE, not both");
    if (device_file) return run_device(*o, o->device);
    if (speedup->empty())
      throw UserError(
          "whatif: give --speedup CLASS=K[,CLASS=K] or --device FILE (a device YAML file)");
    run_speedups(*o, *speedup, *k);
  });
}

}  // namespace amdahl::cli
