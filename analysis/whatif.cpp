#include "analysis/whatif.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::analysis {

bool ClassSpeedups::any() const {
  for (double f : factor)
    if (f != 1.0) return true;
  return false;
}

std::string speedup_factor_error(double k, bool inf_allowed) {
  if ((std::isinf(k) && k > 0 && inf_allowed) || (k >= kMinSpeedupFactor && k <= kMaxSpeedupFactor))
    return {};
  return fmt::format("must be from {:g} to {:g}{} (got {:g})", kMinSpeedupFactor, kMaxSpeedupFactor,
                     inf_allowed ? ", or inf for zero cost" : "", k);
}

ClassSpeedups parse_speedups(const std::string& text) {
  ClassSpeedups s;
  std::size_t pos = 0;
  if (text.empty()) throw UserError("--speedup: expected CLASS=K[,CLASS=K] (got nothing)");
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UserError(fmt::format("--speedup: expected CLASS=K (got '{}')", item));
    const std::string name = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    const auto c = parse_op_class(name);
    if (!c)
      throw UserError(fmt::format("--speedup {}: unknown op class '{}'; {}", item, name,
                                  suggestion(name, op_class_names())));
    double k = 0;
    if (value == "inf") {
      k = std::numeric_limits<double>::infinity();
    } else {
      try {
        std::size_t used = 0;
        k = std::stod(value, &used);
        if (used != value.size()) k = -1;
      } catch (const std::logic_error&) {
        k = -1;
      }
    }
    if (!(k > 0))
      throw UserError(
          fmt::format("--speedup {}: the factor must be a positive number or 'inf' (got '{}')",
                      excerpt(item), excerpt(value)));
    if (const std::string error = speedup_factor_error(k, value == "inf"); !error.empty())
      throw UserError(fmt::format("--speedup {}: the factor {}", excerpt(item), error));
    s.factor[static_cast<int>(*c)] = k;
  }
  return s;
}

std::string speedups_text(const ClassSpeedups& s) {
  std::vector<std::string> items;
  for (int i = 0; i < kOpClassCount; ++i)
    if (s.factor[i] != 1.0)
      items.push_back(
          fmt::format("{}={}", op_class_name(static_cast<OpClass>(i)),
                      std::isinf(s.factor[i]) ? "inf" : fmt::format("{:g}", s.factor[i])));
  return join(items, ",");
}

namespace {
void scale(model::OpCost& c, double k) {
  if (k == 1.0) return;
  if (std::isinf(k)) {
    c.time_s = c.compute_s = c.memory_s = c.latency_s = c.transfer_s = 0;
    return;
  }
  c.time_s /= k;
  c.compute_s /= k;
  c.memory_s /= k;
  c.latency_s /= k;
  c.transfer_s /= k;
}
}  // namespace

std::vector<model::OpCost> scaled_costs(const model::CostedStep& step, const ClassSpeedups& s) {
  std::vector<model::OpCost> costs = step.input.costs;
  const graphs::OpGraph& g = step.net->graph;
  for (graphs::OpId id = 0; id < costs.size(); ++id)
    scale(costs[id], s.factor[static_cast<int>(g.op(id).op_class)]);
  return costs;
}

model::CostedStep with_speedups(const model::CostedStep& step, const ClassSpeedups& s) {
  model::CostedStep out = step;
  out.input.costs = scaled_costs(step, s);
  const double k = s.factor[static_cast<int>(OpClass::kTransfer)];
  if (std::isinf(k)) {
    // Zero-cost copies: no crossing edge is copied (the schedule treats them as plain edges).
    out.input.link_latency_s = 0;
    out.input.h2d_bytes_per_s = 0;
    out.input.d2h_bytes_per_s = 0;
  } else {
    out.input.link_latency_s /= k;
    out.input.h2d_bytes_per_s *= k;
    out.input.d2h_bytes_per_s *= k;
  }
  return out;
}

WhatIf whatif(const model::CostedStep& step, const ClassSpeedups& speedups) {
  WhatIf w;
  const model::Schedule base = model::simulate(step.input);
  w.baseline_s = base.makespan_s;
  w.new_s = model::simulate(with_speedups(step, speedups).input).makespan_s;
  model::check_step_time(w.new_s, fmt::format("{} on {} with {}", step.net->name, step.system->name,
                                              speedups_text(speedups)));
  ClassSpeedups zero;
  for (int i = 0; i < kOpClassCount; ++i)
    if (speedups.factor[i] != 1.0) zero.factor[i] = std::numeric_limits<double>::infinity();
  w.bound_s = model::simulate(with_speedups(step, zero).input).makespan_s;
  w.speedup = w.new_s > 0 ? w.baseline_s / w.new_s : std::numeric_limits<double>::infinity();
  w.bound_speedup =
      w.bound_s > 0 ? w.baseline_s / w.bound_s : std::numeric_limits<double>::infinity();

  // Amdahl's formula from the critical-path shares of the baseline.
  std::array<double, kOpClassCount> on_path{};
  for (const model::PathInterval& iv : base.critical_path) {
    if (iv.op == graphs::kNoOp) continue;
    const int c = iv.copy >= 0 ? static_cast<int>(OpClass::kTransfer)
                               : static_cast<int>(step.net->graph.op(iv.op).op_class);
    on_path[c] += iv.end_s - iv.start_s;
  }
  double rest = 1, sped = 0;
  for (int i = 0; i < kOpClassCount; ++i) {
    if (speedups.factor[i] == 1.0 || w.baseline_s <= 0) continue;
    const double f = on_path[i] / w.baseline_s;
    w.sped_up_share += f;
    rest -= f;
    sped += f / speedups.factor[i];
  }
  w.amdahl_formula_speedup =
      rest + sped > 0 ? 1.0 / (rest + sped) : std::numeric_limits<double>::infinity();
  return w;
}

hw::SystemSpec replace_device(const hw::SystemSpec& system, const std::string& instance,
                              hw::DeviceSpec replacement) {
  hw::SystemSpec out = system;
  system.device(instance);  // throws for an unknown name, listing the devices
  for (hw::DeviceSpec& d : out.devices)
    if (d.name == instance) {
      replacement.name = instance;
      d = std::move(replacement);
    }
  return out;
}

DeviceWhatIf whatif_device(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                           const model::PredictOptions& options,
                           const hw::DeviceSpec& replacement) {
  DeviceWhatIf w;
  w.baseline = model::predict(net, system, options);
  const std::string instance = options.device.empty() ? system.default_device : options.device;
  const hw::SystemSpec changed = replace_device(system, instance, replacement);
  const model::CostedStep step = model::cost_step(net, changed, options);
  model::Schedule s = model::simulate(step.input);
  w.changed = model::account(step, step.input.costs, std::move(s));
  w.speedup = w.changed.step_time_s > 0 ? w.baseline.step_time_s / w.changed.step_time_s
                                        : std::numeric_limits<double>::infinity();
  // The limit of any faster accelerator: its ops take no time.
  std::vector<model::OpCost> zero = step.input.costs;
  for (std::size_t i = 0; i < zero.size(); ++i)
    if (step.input.resources[i] == model::Resource::kCompute) zero[i] = model::OpCost{};
  w.bound_s = model::simulate(step.input, zero).makespan_s;
  w.bound_speedup =
      w.bound_s > 0 ? w.baseline.step_time_s / w.bound_s : std::numeric_limits<double>::infinity();
  return w;
}

const RuntimeMode& runtime_mode_of(const hw::RuntimeSpec& runtime) {
  for (const RuntimeMode& m : kRuntimeModes)
    if (m.graph_capture == runtime.graph_capture && m.compile == runtime.compile) return m;
  throw InternalError("kRuntimeModes lacks a combination of graph_capture and compile");
}

const model::Prediction& RuntimeWhatIf::changed() const {
  for (const Row& r : modes)
    if (r.mode == chosen) return r.prediction;
  throw InternalError("RuntimeWhatIf without its chosen mode");
}

RuntimeWhatIf whatif_runtime(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                             const model::PredictOptions& options, const RuntimeMode& chosen) {
  RuntimeWhatIf w;
  w.baseline = model::predict(net, system, options);
  w.baseline_mode = &runtime_mode_of(system.runtime);
  w.chosen = &chosen;
  for (const RuntimeMode& m : kRuntimeModes) {
    hw::SystemSpec changed = system;
    changed.runtime.graph_capture = m.graph_capture;
    changed.runtime.compile = m.compile;
    w.modes.push_back({&m, model::predict(net, changed, options)});
  }
  const double changed_s = w.changed().step_time_s;
  w.speedup = changed_s > 0 ? w.baseline.step_time_s / changed_s : 0;
  return w;
}

LinkWhatIf whatif_link(const graphs::LoweredNetwork& net, const hw::SystemSpec& system,
                       const model::PredictOptions& options, const hw::LinkSpec& from,
                       const hw::LinkSpec& to) {
  LinkWhatIf w;
  hw::SystemSpec changed = system;
  w.replaced = changed.replace_links(from, to);
  if (w.replaced.empty()) {
    std::vector<std::string> models;
    for (const auto& l : system.links) models.push_back(l.model);
    if (system.network) models.push_back(system.network->link.model);
    std::sort(models.begin(), models.end());
    models.erase(std::unique(models.begin(), models.end()), models.end());
    throw UserError(fmt::format("system '{}' ({}) has no {} link; its links: {}", system.name,
                                system.file, from.model, join(models)));
  }
  w.baseline = model::predict(net, system, options);
  w.changed = model::predict(net, changed, options);
  w.speedup = w.baseline.step_time_s / w.changed.step_time_s;
  return w;
}

}  // namespace amdahl::analysis
