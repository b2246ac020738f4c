// amdahl whatif: re-simulate the step with op classes made faster (--speedup conv=10) or
// with another accelerator in place of the system's (--device FILE), and report the new
// step time, the speedup, the Amdahl bound, and the accelerability of every op class; or
// with the runtime in another mode (--runtime) or one kind of link replaced (--link); the
// analyses are analysis/whatif.h, this file parses the options and renders.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/accelerability.h"
#include "analysis/whatif.h"
#include "cli/assumption_text.h"
#include "cli/commands.h"
#include "cli/json_text.h"
#include "cli/output_files.h"
#include "cli/report.h"
#include "cli/workload.h"
#include "hw/system_loader.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/percent.h"
#include "util/suggest.h"
#include "util/table.h"

namespace amdahl::cli {
namespace {

std::string times(double x) { return std::isinf(x) ? "inf" : fmt::format("{:.3f}x", x); }

std::string join_classes(const analysis::ClassSpeedups& s) {
  std::string out;
  for (int i = 0; i < kOpClassCount; ++i)
    if (s.factor[i] != 1.0)
      out += (out.empty() ? "" : ", ") + std::string(op_class_name(static_cast<OpClass>(i)));
  return out;
}

Table accelerability_table(const analysis::Accelerability& a) {
  const std::string at_k = fmt::format("at {:g}x", a.k);
  Table t({"op class", "share", "busy", at_k, "speedup", "bound", "bound speedup"});
  for (const auto& c : a.classes)
    t.add({std::string(op_class_name(c.op_class)), format_percent(c.share), seconds(c.busy_s),
           seconds(c.at_k_s), times(c.speedup_at_k), seconds(c.bound_s), times(c.bound_speedup)});
  return t;
}

nlohmann::json accelerability_json(const analysis::Accelerability& a) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : a.classes)
    rows.push_back({{"op_class", op_class_name(c.op_class)},
                    {"share", c.share},
                    {"critical_s", c.critical_s},
                    {"busy_s", c.busy_s},
                    {"at_k_s", c.at_k_s},
                    {"speedup_at_k", c.speedup_at_k},
                    {"bound_s", c.bound_s},
                    {"bound_speedup", std::isinf(c.bound_speedup) ? -1.0 : c.bound_speedup}});
  return {{"k", a.k}, {"host_share", a.host_share}, {"classes", rows}};
}

// Prints the result in --format and, with -o, writes it as whatif.json and whatif.csv.
void emit(const WorkloadOptions& o, OutputDir& out,
          const std::function<void(std::ostream&, Format)>& print) {
  print(std::cout, parse_format(o.format));
  if (!out) return;
  for (const auto& [name, format] :
       {std::pair{"whatif.json", Format::kJson}, std::pair{"whatif.csv", Format::kCsv}}) {
    std::ostringstream text;
    print(text, format);
    out.add(name, text.str());
  }
  out.commit();
}

void run_speedups(const WorkloadOptions& o, OutputDir& out, const std::string& speedup_text,
                  double k) {
  const Workload w = load_workload(o);
  const analysis::ClassSpeedups speedups = analysis::parse_speedups(speedup_text);
  const model::CostedStep step = model::cost_step(w.lowered, w.system, w.predict);
  const model::Prediction base = model::predict(step);
  const analysis::WhatIf r = analysis::whatif(step, speedups);
  const analysis::Accelerability acc = analysis::accelerability(step, k);
  const std::string what = analysis::speedups_text(speedups);
  const auto print = [&](std::ostream& os, Format format) {
    switch (format) {
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
        os << json_text(j, 2) << '\n';
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
        t.print_csv(os);
        break;
      }
      case Format::kTable: {
        os << prediction_header(base) << "\n";
        os << fmt::format("what if        {}\n", what);
        os << fmt::format("baseline       {}\n", seconds(r.baseline_s));
        os << fmt::format("new step time  {}\n", seconds(r.new_s));
        os << fmt::format("speedup        {}\n", times(r.speedup));
        os << fmt::format("Amdahl bound   {} ({} with {} at zero cost)\n", seconds(r.bound_s),
                          times(r.bound_speedup), join_classes(speedups));
        os << fmt::format("Amdahl formula {} (critical-path share {}, ignoring overlap)\n\n",
                          times(r.amdahl_formula_speedup), format_percent(r.sped_up_share));
        os << fmt::format("accelerability by op class (host dispatch/sync {} of the step):\n",
                          format_percent(acc.host_share));
        accelerability_table(acc).print(os);
        print_assumptions(os, base.assumptions);
        break;
      }
    }
  };
  emit(o, out, print);
}

// The critical path by op class of `baseline` and `changed` side by side, then the baseline's
// assumptions and those only `changed` made ("assumptions with <what>").
void print_comparison(std::ostream& os, const model::Prediction& baseline,
                      const model::Prediction& changed, const std::string& what) {
  Table t({"op class", "baseline", "new"});
  for (int k : present_in_any({&baseline.by_class, &changed.by_class}))
    t.add({std::string(baseline.by_class.name(k)), seconds(baseline.by_class.at_slot(k)),
           seconds(changed.by_class.at_slot(k))});
  os << "critical path by op class:\n";
  t.print(os);
  const std::vector<std::string> before = assumption_lines(baseline.assumptions);
  print_assumptions(os, before);
  std::vector<std::string> added;
  for (const std::string& a : assumption_lines(changed.assumptions))
    if (std::find(before.begin(), before.end(), a) == before.end()) added.push_back(a);
  print_assumptions(os, added, fmt::format("assumptions with {}", what));
}

void run_device(const WorkloadOptions& o, OutputDir& out, const std::string& device_file) {
  WorkloadOptions base_options = o;
  base_options.device.clear();
  const Workload w = load_workload(base_options);
  const hw::DeviceSpec replacement = hw::load_device_file(device_file);
  const analysis::DeviceWhatIf r =
      analysis::whatif_device(w.lowered, w.system, w.predict, replacement);
  const auto print = [&](std::ostream& os, Format format) {
    switch (format) {
      case Format::kJson: {
        nlohmann::json j;
        j["baseline"] = prediction_json(r.baseline);
        j["changed"] = prediction_json(r.changed);
        j["device_file"] = device_file;
        j["speedup"] = r.speedup;
        j["bound_s"] = r.bound_s;
        j["bound_speedup"] = std::isinf(r.bound_speedup) ? -1.0 : r.bound_speedup;
        os << json_text(j, 2) << '\n';
        break;
      }
      case Format::kCsv: {
        Table t({"workload", "system", "device", "batch", "baseline_model", "new_model",
                 "baseline_s", "new_s", "speedup_x", "bound_s", "bound_speedup"});
        t.add({r.baseline.workload, r.baseline.system, r.baseline.device,
               std::to_string(r.baseline.batch), r.baseline.device_model, r.changed.device_model,
               fmt::format("{:.6g}", r.baseline.step_time_s),
               fmt::format("{:.6g}", r.changed.step_time_s), fmt::format("{:.6g}", r.speedup),
               fmt::format("{:.6g}", r.bound_s), fmt::format("{:.6g}", r.bound_speedup)});
        t.print_csv(os);
        break;
      }
      case Format::kTable: {
        os << prediction_header(r.baseline) << "\n";
        os << fmt::format("what if        {} is replaced by {} ({})\n", r.baseline.device,
                          r.changed.device_model, device_file);
        os << fmt::format("baseline       {}\n", seconds(r.baseline.step_time_s));
        os << fmt::format("new step time  {}\n", seconds(r.changed.step_time_s));
        os << fmt::format("speedup        {}\n", times(r.speedup));
        os << fmt::format("Amdahl bound   {} ({} with every accelerator op at zero cost)\n\n",
                          seconds(r.bound_s), times(r.bound_speedup));
        print_comparison(os, r.baseline, r.changed, r.changed.device_model);
        break;
      }
    }
  };
  emit(o, out, print);
}

// --link OLD=NEW (catalog link names or link files): analysis::whatif_link.
void run_link(const WorkloadOptions& o, OutputDir& out, const std::string& swap_text) {
  const std::size_t eq = swap_text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == swap_text.size())
    throw UserError(fmt::format(
        "--link: expected OLD=NEW, two catalog link names or link files (got '{}'); catalog "
        "links: {}",
        swap_text, join(hw::catalog_link_names())));
  const hw::LinkSpec from = hw::load_link(swap_text.substr(0, eq));
  const hw::LinkSpec to = hw::load_link(swap_text.substr(eq + 1));
  const Workload w = load_workload(o);
  const analysis::LinkWhatIf l = analysis::whatif_link(w.lowered, w.system, w.predict, from, to);
  const model::Prediction& base = l.baseline;
  const model::Prediction& changed = l.changed;
  const std::vector<std::string>& replaced = l.replaced;
  const double speedup = l.speedup;
  const std::string what = fmt::format("{} links replaced by {}", from.model, to.model);
  const auto print = [&](std::ostream& os, Format format) {
    switch (format) {
      case Format::kJson: {
        nlohmann::json j;
        j["baseline"] = prediction_json(base);
        j["changed"] = prediction_json(changed);
        j["link_from"] = from.model;
        j["link_to"] = to.model;
        j["links_replaced"] = replaced;
        j["speedup"] = speedup;
        os << json_text(j, 2) << '\n';
        break;
      }
      case Format::kCsv: {
        Table t({"workload", "system", "device", "batch", "gpus", "link_from", "link_to",
                 "links_replaced", "baseline_s", "new_s", "speedup_x"});
        t.add({base.workload, base.system, base.device, std::to_string(base.batch),
               std::to_string(base.gpus), from.model, to.model, std::to_string(replaced.size()),
               fmt::format("{:.6g}", base.step_time_s), fmt::format("{:.6g}", changed.step_time_s),
               fmt::format("{:.6g}", speedup)});
        t.print_csv(os);
        break;
      }
      case Format::kTable: {
        os << prediction_header(base) << "\n";
        os << fmt::format("what if        {} ({}: {})\n", what, replaced.size(), join(replaced));
        os << fmt::format("baseline       {}\n", seconds(base.step_time_s));
        os << fmt::format("new step time  {}\n", seconds(changed.step_time_s));
        os << fmt::format("speedup        {}\n", times(speedup));
        if (base.gpus > 1)
          os << fmt::format(
              "all-reduce     busy {} -> {}, exposed {} -> {}\n",
              seconds(base.communication.busy_s), seconds(changed.communication.busy_s),
              seconds(base.communication.exposed_s), seconds(changed.communication.exposed_s));
        os << '\n';
        print_comparison(os, base, changed, to.model);
        break;
      }
    }
  };
  emit(o, out, print);
}

// The mode --runtime names. Throws UserError for an unknown one, naming the modes.
const analysis::RuntimeMode& runtime_mode(const std::string& name) {
  std::vector<std::string> names;
  for (const analysis::RuntimeMode& m : analysis::kRuntimeModes) {
    if (m.name == name) return m;
    names.emplace_back(m.name);
  }
  throw UserError(fmt::format("--runtime: unknown mode '{}'; {}", name, suggestion(name, names)));
}

void run_runtime(const WorkloadOptions& o, OutputDir& out, const std::string& mode_name) {
  const analysis::RuntimeMode& chosen = runtime_mode(mode_name);
  const Workload w = load_workload(o);
  const analysis::RuntimeWhatIf rw =
      analysis::whatif_runtime(w.lowered, w.system, w.predict, chosen);
  const model::Prediction& base = rw.baseline;
  const model::Prediction& changed = rw.changed();
  using Row = analysis::RuntimeWhatIf::Row;
  const std::vector<Row>& rows = rw.modes;
  auto host_total = [](const model::Prediction& p) { return p.host_by_class.total(); };
  auto device_total = [](const model::Prediction& p) { return p.device_by_phase.total(); };
  const double speedup = rw.speedup;
  const auto print = [&](std::ostream& os, Format format) {
    switch (format) {
      case Format::kJson: {
        nlohmann::json j;
        j["baseline"] = prediction_json(base);
        j["baseline_runtime"] = std::string(rw.baseline_mode->name);
        j["runtime"] = std::string(chosen.name);
        j["changed"] = prediction_json(changed);
        j["speedup"] = speedup;
        nlohmann::json modes = nlohmann::json::array();
        for (const Row& r : rows)
          modes.push_back({{"runtime", r.mode->name},
                           {"step_time_s", r.prediction.step_time_s},
                           {"binding", model::binding_name(model::step_binding(r.prediction))},
                           {"host_s", host_total(r.prediction)},
                           {"device_s", device_total(r.prediction)}});
        j["modes"] = modes;
        os << json_text(j, 2) << '\n';
        break;
      }
      case Format::kCsv: {
        Table t({"workload", "system", "device", "batch", "runtime", "step_s", "speedup_x",
                 "binding", "host_s", "device_s"});
        for (const Row& r : rows)
          t.add({r.prediction.workload, r.prediction.system, r.prediction.device,
                 std::to_string(r.prediction.batch), std::string(r.mode->name),
                 fmt::format("{:.6g}", r.prediction.step_time_s),
                 fmt::format("{:.6g}", base.step_time_s / r.prediction.step_time_s),
                 std::string(model::binding_name(model::step_binding(r.prediction))),
                 fmt::format("{:.6g}", host_total(r.prediction)),
                 fmt::format("{:.6g}", device_total(r.prediction))});
        t.print_csv(os);
        break;
      }
      case Format::kTable: {
        os << prediction_header(base) << "\n";
        os << fmt::format("what if        the runtime {} runs {} ({})\n", w.system.runtime.name,
                          chosen.name, chosen.description);
        os << fmt::format("baseline       {} ({}, {})\n", seconds(base.step_time_s),
                          rw.baseline_mode->name, model::binding_name(model::step_binding(base)));
        os << fmt::format("new step time  {} ({})\n", seconds(changed.step_time_s),
                          model::binding_name(model::step_binding(changed)));
        os << fmt::format("speedup        {}\n\n", times(speedup));
        os << "every mode (host: time issuing ops; device: busy time):\n";
        Table t({"runtime", "step", "speedup", "binding", "host", "device"});
        for (const Row& r : rows)
          t.add({std::string(r.mode->name), seconds(r.prediction.step_time_s),
                 times(base.step_time_s / r.prediction.step_time_s),
                 std::string(model::binding_name(model::step_binding(r.prediction))),
                 seconds(host_total(r.prediction)), seconds(device_total(r.prediction))});
        t.print(os);
        print_assumptions(os, base.assumptions);
        break;
      }
    }
  };
  emit(o, out, print);
}

}  // namespace

void register_whatif(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto speedup = std::make_shared<std::string>();
  auto k = std::make_shared<double>(10);
  auto runtime = std::make_shared<std::string>();
  auto link = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "whatif",
      "re-simulate with op classes made faster (--speedup conv=10,gemm=4), with a device "
      "file in place of the default device (--device FILE), or with the runtime in another "
      "execution mode (--runtime eager|graph|compiled|compiled+graph), or with one kind of link "
      "replaced by another (--link nvlink1-x2=nvlink2-x2): new step time, speedup, Amdahl "
      "bound, accelerability");
  add_workload_options(cmd, *o, true, {"table", "csv", "json"});
  cmd->add_option("--speedup", *speedup,
                  "CLASS=K[,CLASS=K]: divide the time of every op of CLASS by K ('inf': zero)");
  cmd->add_option("--runtime", *runtime,
                  "execution mode: eager, graph (CUDA-graph replay), compiled (elementwise "
                  "chains fused), compiled+graph");
  cmd->add_option("--link", *link,
                  "OLD=NEW: every link of the system whose model is OLD's takes NEW's numbers "
                  "(catalog link names or link files)");
  cmd->add_option("--k", *k, "speedup factor of the accelerability table's 'at Kx' column")
      ->check(speedup_factor())
      ->capture_default_str();
  // --device FILE (a device YAML file rather than an instance name) replaces the system's
  // default device with the file's.
  cmd->callback([o, speedup, k, runtime, link] {
    OutputDir out(o->out_dir, o->force);
    // A --device that names a file must be a readable one; any other name is a device
    // instance of the system, checked against its list.
    const bool device_file = names_a_file(o->device);
    if (device_file) check_input_file(o->device, kMaxTextInputBytes, "device file");
    if (int(device_file) + int(!speedup->empty()) + int(!runtime->empty()) + int(!link->empty()) >
        1)
      throw UserError("whatif: give one of --speedup, --device FILE, --runtime and --link");
    if (device_file) return run_device(*o, out, o->device);
    if (!runtime->empty()) return run_runtime(*o, out, *runtime);
    if (!link->empty()) return run_link(*o, out, *link);
    if (speedup->empty())
      throw UserError(
          "whatif: give --speedup CLASS=K[,CLASS=K], --device FILE (a device YAML file), "
          "--runtime MODE or --link OLD=NEW");
    run_speedups(*o, out, *speedup, *k);
  });
}

}  // namespace amdahl::cli
