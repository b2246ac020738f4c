#include "cli/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "cli/assumption_text.h"
#include "cli/json_text.h"
#include "hw/units.h"
#include "util/output_encoding.h"
#include "util/percent.h"
#include "util/suggest.h"
#include "util/table.h"

namespace amdahl::cli {

std::string seconds(double s) { return hw::format_quantity(s, hw::Dimension::kTime); }

std::string pct(double part, double whole) {
  return whole > 0 ? format_percent(part / whole) : "-";
}

namespace {

// Names and seconds, as Breakdown::named() lists them (the names refer into what they came from).
using Named = std::vector<std::pair<std::string_view, double>>;

Named named(const std::map<std::string, double>& m) { return Named(m.begin(), m.end()); }

// Name order in, largest first out.
Named sorted_desc(Named v) {
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

// `slots` (in name order) largest value in `b` first.
template <typename Slots>
std::vector<int> sorted_desc(const Breakdown<Slots>& b, std::vector<int> slots) {
  std::sort(slots.begin(), slots.end(), [&](int x, int y) { return b.at_slot(x) > b.at_slot(y); });
  return slots;
}

template <typename Slots>
std::vector<int> sorted_desc(const Breakdown<Slots>& b) {
  return sorted_desc(b, present_in_any({&b}));
}

template <typename Slots>
void share_table(std::ostream& out, const std::string& title, const Breakdown<Slots>& b,
                 double total) {
  Table t({title, "time", "share"});
  for (int k : sorted_desc(b))
    t.add({std::string(b.name(k)), seconds(b.at_slot(k)), pct(b.at_slot(k), total)});
  t.print(out);
}

struct LayerTime {
  double time = 0;
  double flops = 0;
};

std::map<std::string, double> by_layer(const model::Prediction& p, const graphs::OpGraph& g) {
  std::map<std::string, double> m;
  for (const auto& iv : p.schedule.critical_path)
    if (iv.op != graphs::kNoOp) m[g.op(iv.op).layer] += iv.end_s - iv.start_s;
  return m;
}

std::vector<graphs::OpId> costliest(const model::Prediction& p, std::size_t n) {
  std::vector<graphs::OpId> ids(p.costs.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::sort(ids.begin(), ids.end(),
            [&](auto a, auto b) { return p.costs[a].time_s > p.costs[b].time_s; });
  if (ids.size() > n) ids.resize(n);
  return ids;
}

}  // namespace

namespace {

std::string gigabytes(double bytes) { return fmt::format("{:.3f} GB", bytes / 1e9); }

// The footprint table and, when the peak exceeds the device's memory, a warning line.
void print_memory(std::ostream& out, const model::Prediction& p) {
  const auto& m = p.memory;
  Table t({"memory", "size"});
  t.add({"weights", gigabytes(m.weights_bytes)});
  t.add({"gradients", gigabytes(m.gradients_bytes)});
  t.add({"optimizer state", gigabytes(m.optimizer_state_bytes)});
  t.add({"activations", gigabytes(m.activations_bytes)});
  t.add({"workspace", gigabytes(m.workspace_bytes)});
  t.add({"peak", gigabytes(m.peak_bytes)});
  t.print(out);
  if (memory_exceeded(p))
    out << printable(fmt::format("warning: peak memory {} exceeds the {} of {} ({})",
                                 gigabytes(m.peak_bytes), gigabytes(p.device_memory_bytes),
                                 p.device, p.device_model))
        << '\n';
  out << '\n';
}

}  // namespace

bool memory_exceeded(const model::Prediction& p) {
  return model::memory_exceeded(p.memory.peak_bytes, p.device_memory_bytes);
}

nlohmann::json prediction_json(const model::Prediction& p) {
  nlohmann::json j;
  j["workload"] = p.workload;
  j["system"] = p.system;
  j["device"] = p.device;
  j["device_model"] = p.device_model;
  j["batch"] = p.batch;
  j["mode"] = std::string(graphs::mode_name(p.mode));
  j["precision"] = std::string(precision_name(p.precision));
  j["step_time_s"] = p.step_time_s;
  j["samples_per_s"] = p.samples_per_s;
  j["by_class"] = named_json(p.by_class);
  j["by_bound"] = named_json(p.by_bound);
  j["by_phase"] = named_json(p.by_phase);
  j["busy_by_class"] = named_json(p.busy_by_class);
  j["host_by_class"] = named_json(p.host_by_class);
  j["host_by_phase"] = named_json(p.host_by_phase);
  j["device_by_phase"] = named_json(p.device_by_phase);
  j["binding"] = std::string(model::binding_name(model::step_binding(p)));
  j["ops"] = p.op_count;
  j["parameters"] = p.parameters;
  j["memory"] = {{"weights_bytes", p.memory.weights_bytes},
                 {"gradients_bytes", p.memory.gradients_bytes},
                 {"optimizer_state_bytes", p.memory.optimizer_state_bytes},
                 {"activations_bytes", p.memory.activations_bytes},
                 {"workspace_bytes", p.memory.workspace_bytes},
                 {"peak_bytes", p.memory.peak_bytes},
                 {"device_capacity_bytes", p.device_memory_bytes},
                 {"exceeds_device", memory_exceeded(p)}};
  j["flops"] = p.total_flops;
  j["gpus"] = p.gpus;
  if (p.gpus > 1) {
    const model::Communication& c = p.communication;
    j["communication"] = {{"variable_update", hw::variable_update_name(c.variable_update)},
                          {"devices", c.devices},
                          {"route", c.route},
                          {"buckets", c.buckets},
                          {"bytes", c.bytes},
                          {"busy_s", c.busy_s},
                          {"exposed_s", c.exposed_s},
                          {"algorithms", c.algorithms},
                          {"host_link", c.host_link},
                          {"link_wait_s", c.link_wait_s}};
  }
  j["assumptions"] = assumption_lines(p.assumptions);
  return j;
}

std::string batch_text(const model::Prediction& p) {
  return p.gpus > 1 ? fmt::format("batch {} per GPU x {} GPUs", p.batch, p.gpus)
                    : fmt::format("batch {}", p.batch);
}

std::string prediction_header(const model::Prediction& p) {
  return printable(fmt::format("{} on {} ({}, {}), {}, {}, {}", p.workload, p.system, p.device,
                               p.device_model, batch_text(p), graphs::mode_name(p.mode),
                               precision_name(p.precision)));
}

namespace {

void print_communication(std::ostream& out, const model::Prediction& p) {
  if (p.gpus <= 1) return;
  const model::Communication& c = p.communication;
  const bool ddp = c.variable_update == hw::VariableUpdate::kDdp;
  out << fmt::format(
      "\ncommunication ({} GPUs: {}; variable update {}):\n"
      "  {} {}, {:.1f} MB exchanged per step ({})\n"
      "  exchanges busy {} ({} of the step), exposed {} ({}; the rest hidden behind the "
      "backward pass)\n"
      "  route: {}\n",
      p.gpus, printable(join(c.devices)), hw::variable_update_name(c.variable_update), c.buckets,
      ddp ? "gradient buckets" : "variables", c.bytes / 1e6, printable(c.algorithms),
      seconds(c.busy_s), pct(c.busy_s, p.step_time_s), seconds(c.exposed_s),
      pct(c.exposed_s, p.step_time_s), printable(c.route));
  if (!c.host_link.empty())
    out << fmt::format(
        "  host link: crossed by {}, as the copies cross it; copies and exchanges waited {} for "
        "each other there\n",
        printable(c.host_link), seconds(c.link_wait_s));
}

}  // namespace

void print_prediction_table(std::ostream& out, const model::Prediction& p) {
  out << prediction_header(p) << '\n';
  out << fmt::format("step time     {}\n", seconds(p.step_time_s));
  out << fmt::format("throughput    {:.1f} samples/s\n", p.samples_per_s);
  out << fmt::format("ops           {}\n", p.op_count);
  out << fmt::format("parameters    {}\n", p.parameters);
  out << fmt::format("work          {:.4g} GFLOP\n\n", p.total_flops / 1e9);
  print_memory(out, p);
  share_table(out, "op class", p.by_class, p.step_time_s);
  out << '\n';
  share_table(out, "bound", p.by_bound, p.step_time_s);
  print_communication(out, p);
  print_assumptions(out, p.assumptions);
}

void print_assumptions(std::ostream& out, const std::vector<std::string>& lines,
                       std::string_view title) {
  if (lines.empty()) return;
  out << '\n' << title << ":\n";
  for (const auto& a : lines) out << "  - " << printable(a) << '\n';
}

void print_assumptions(std::ostream& out, const std::vector<Assumption>& assumptions,
                       std::string_view title) {
  print_assumptions(out, assumption_lines(assumptions), title);
}

void print_prediction_csv(std::ostream& out, const model::Prediction& p) {
  Table t({"workload", "system", "device", "batch", "gpus", "mode", "precision", "step_time_s",
           "samples_per_s", "ops", "parameters", "flops"});
  t.add({p.workload, p.system, p.device, std::to_string(p.batch), std::to_string(p.gpus),
         std::string(graphs::mode_name(p.mode)), std::string(precision_name(p.precision)),
         fmt::format("{:.6g}", p.step_time_s), fmt::format("{:.6g}", p.samples_per_s),
         std::to_string(p.op_count), std::to_string(p.parameters),
         fmt::format("{:.6g}", p.total_flops)});
  t.print_csv(out);
}

void print_breakdown_table(std::ostream& out, const model::Prediction& p,
                           const graphs::OpGraph& g) {
  out << printable(fmt::format("{} on {} ({}), {}, {}: step {}, {}", p.workload, p.system,
                               p.device_model, batch_text(p), graphs::mode_name(p.mode),
                               seconds(p.step_time_s), model::binding_name(model::step_binding(p))))
      << "\n\n";
  out << "critical path by op class (device busy time alongside):\n";
  Table classes({"op class", "time", "share", "busy"});
  const auto busy = [&](int k) {
    return p.busy_by_class.present(k) ? seconds(p.busy_by_class.at_slot(k)) : "-";
  };
  for (int k : sorted_desc(p.by_class)) {
    const double v = p.by_class.at_slot(k);
    classes.add({std::string(p.by_class.name(k)), seconds(v), pct(v, p.step_time_s), busy(k)});
  }
  classes.print(out);
  out << "\nby phase (critical path; the host's time issuing the phase's ops and the device's "
         "busy time alongside):\n";
  Table phases({"phase", "time", "share", "host", "device", "bound by"});
  const auto phase_time = [](const model::PhaseBreakdown& b, int k) {
    return b.present(k) ? seconds(b.at_slot(k)) : "-";
  };
  for (int k : sorted_desc(p.by_phase,
                           present_in_any({&p.by_phase, &p.host_by_phase, &p.device_by_phase}))) {
    const double v = p.by_phase.at_slot(k);
    const bool both = p.host_by_phase.present(k) || p.device_by_phase.present(k);
    phases.add({std::string(p.by_phase.name(k)), seconds(v), pct(v, p.step_time_s),
                phase_time(p.host_by_phase, k), phase_time(p.device_by_phase, k),
                both ? std::string(model::binding_name(model::phase_binding(p, k))) : "-"});
  }
  phases.print(out);
  if (!p.host_by_class.empty()) {
    out << "\nhost time issuing ops, by op class (device busy time alongside):\n";
    Table host({"op class", "host", "share", "busy"});
    const double total = p.host_by_class.total();
    for (int k : sorted_desc(p.host_by_class)) {
      const double v = p.host_by_class.at_slot(k);
      host.add({std::string(p.host_by_class.name(k)), seconds(v), pct(v, total), busy(k)});
    }
    host.print(out);
  }
  out << "\nby binding resource:\n";
  share_table(out, "bound", p.by_bound, p.step_time_s);
  out << "\nby layer (top 15):\n";
  Table layers({"layer", "time", "share"});
  const std::map<std::string, double> layer_times = by_layer(p, g);
  auto lt = sorted_desc(named(layer_times));
  if (lt.size() > 15) lt.resize(15);
  for (const auto& [k, v] : lt) layers.add({std::string(k), seconds(v), pct(v, p.step_time_s)});
  layers.print(out);
  out << "\n10 costliest ops:\n";
  Table ops({"op", "class", "time", "GFLOP", "MB", "bound", "compute eff", "mem eff", "kernel"});
  for (graphs::OpId id : costliest(p, 10)) {
    const auto& op = g.op(id);
    const auto& c = p.costs[id];
    ops.add({op.name, std::string(op_class_name(op.op_class)), seconds(c.time_s),
             fmt::format("{:.3f}", op.flops / 1e9), fmt::format("{:.2f}", op.bytes() / 1e6),
             std::string(model::bound_name(c.bound)), fmt::format("{:.2f}", c.compute_efficiency),
             fmt::format("{:.2f}", c.memory_efficiency), model::kernel_name(c.kernel)});
  }
  ops.print(out);
  print_communication(out, p);
}

nlohmann::json breakdown_json(const model::Prediction& p, const graphs::OpGraph& g) {
  nlohmann::json j = prediction_json(p);
  j["by_layer"] = by_layer(p, g);
  nlohmann::json top = nlohmann::json::array();
  for (graphs::OpId id : costliest(p, 10)) {
    const auto& op = g.op(id);
    const auto& c = p.costs[id];
    top.push_back({{"op", op.name},
                   {"class", op_class_name(op.op_class)},
                   {"time_s", c.time_s},
                   {"flops", op.flops},
                   {"bytes", op.bytes()},
                   {"bound", model::bound_name(c.bound)},
                   {"kernel", model::kernel_name(c.kernel)}});
  }
  j["costliest_ops"] = top;
  return j;
}

void print_breakdown_csv(std::ostream& out, const model::Prediction& p, const graphs::OpGraph& g) {
  Table t({"group", "key", "time_s", "share"});
  auto add = [&](const std::string& group, const Named& named) {
    for (const auto& [k, v] : sorted_desc(named))
      t.add({group, std::string(k), fmt::format("{:.6g}", v),
             fmt::format("{:.4f}", p.step_time_s > 0 ? v / p.step_time_s : 0)});
  };
  add("class", p.by_class.named());
  add("phase", p.by_phase.named());
  add("bound", p.by_bound.named());
  const std::map<std::string, double> layers = by_layer(p, g);
  add("layer", named(layers));
  t.print_csv(out);
}

}  // namespace amdahl::cli
