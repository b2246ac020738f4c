#include "hw/system.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {

std::string_view device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::kCpu:
      return "cpu";
    case DeviceKind::kGpu:
      return "gpu";
    case DeviceKind::kAccelerator:
      return "accelerator";
  }
  return "?";
}

std::string_view compute_unit_name(ComputeUnit u) {
  switch (u) {
    case ComputeUnit::kFma:
      return "fma";
    case ComputeUnit::kTensor:
      return "tensor";
    case ComputeUnit::kSimd:
      return "simd";
    case ComputeUnit::kMatrix:
      return "matrix";
  }
  return "?";
}

const std::vector<EngineCostSpec>& engine_cost_specs() {
  static const std::vector<EngineCostSpec> kSpecs{
      {EngineCost::kBackwardNode, "backward_node",
       "autograd engine, per backward node (a layer's backward ops)", "0"},
      {EngineCost::kAccumulateGrad, "accumulate_grad",
       "per parameter tensor whose gradient the backward pass produces", "0"},
      {EngineCost::kZeroGradPerParam, "zero_grad_per_param",
       "optimizer.zero_grad(), per parameter tensor, at the start of a training step", "0"},
      {EngineCost::kAutocastCast, "autocast_cast", "one cast op inserted by autocast",
       "the data_movement class's host time"},
      {EngineCost::kGraphReplay, "graph_replay", "launching the captured graph, per step",
       "dispatch_per_op"},
      {EngineCost::kAutogradRecord, "autograd_record",
       "recording one layer's forward call under autograd (training): its node, saved tensors "
       "and edges; ops.<class>.host is the call without it",
       "0"},
      {EngineCost::kModuleCall, "module_call",
       "a training step's host time per layer call that no profiler row records (the Python "
       "around the module call under autograd, the autograd graph's teardown)",
       "0"},
  };
  return kSpecs;
}

std::string_view optimizer_impl_name(OptimizerImpl i) {
  switch (i) {
    case OptimizerImpl::kLoop:
      return "loop";
    case OptimizerImpl::kForeach:
      return "foreach";
    case OptimizerImpl::kFused:
      return "fused";
  }
  return "?";
}

std::string_view collective_algorithm_choice_name(CollectiveAlgorithmChoice c) {
  switch (c) {
    case CollectiveAlgorithmChoice::kAuto:
      return "auto";
    case CollectiveAlgorithmChoice::kRing:
      return "ring";
    case CollectiveAlgorithmChoice::kTree:
      return "tree";
  }
  return "?";
}

const std::vector<std::string>& variable_update_names() {
  static const std::vector<std::string> kNames{"ddp", "replicated", "parameter-server-cpu",
                                               "parameter-server-gpu"};
  return kNames;
}

std::string_view variable_update_name(VariableUpdate v) {
  return variable_update_names().at(static_cast<std::size_t>(v));
}

std::optional<VariableUpdate> parse_variable_update(std::string_view name) {
  const auto& names = variable_update_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<VariableUpdate>(i);
  return std::nullopt;
}

double RuntimeSpec::op_host_s(OpClass c, bool backward) const {
  const auto& o = ops[static_cast<std::size_t>(c)];
  if (!o) return dispatch_per_op_s;
  return backward ? o->backward_s : o->host_s;
}

int RuntimeSpec::op_kernels(OpClass c) const {
  const auto& o = ops[static_cast<std::size_t>(c)];
  return o ? o->kernels : 1;
}

double RuntimeSpec::cost(EngineCost c) const {
  if (const auto& v = engine[static_cast<std::size_t>(c)]) return *v;
  switch (c) {
    case EngineCost::kAutocastCast:
      return op_host_s(OpClass::kDataMovement, false);
    case EngineCost::kGraphReplay:
      return dispatch_per_op_s;
    default:
      return 0;
  }
}

double RuntimeSpec::optimizer_step_s() const {
  if (optimizer.step_s) return *optimizer.step_s;
  return optimizer.impl == OptimizerImpl::kLoop ? 0 : dispatch_per_op_s;
}

double RuntimeSpec::optimizer_per_param_s() const {
  if (optimizer.per_param_s) return *optimizer.per_param_s;
  return optimizer.impl == OptimizerImpl::kLoop ? dispatch_per_op_s : 0;
}

std::optional<PeakRate> DeviceSpec::peak_for(Precision p) const {
  if (auto it = peak.find(p); it != peak.end()) return it->second;
  if (p == Precision::kTf32) return peak_for(Precision::kFp32);
  return std::nullopt;
}

const ClassEfficiency& DeviceSpec::efficiency_for(OpClass op_class) const {
  if (auto it = efficiency.find({op_class}); it != efficiency.end()) return it->second;
  return default_efficiency();
}

const ClassEfficiency& DeviceSpec::default_efficiency() const {
  return efficiency.at(EfficiencyKey::fallback());
}

const DeviceSpec& SystemSpec::device(const std::string& device_name) const {
  std::vector<std::string> names;
  for (const auto& d : devices) {
    if (d.name == device_name) return d;
    names.push_back(d.name);
  }
  throw UserError(fmt::format("{}: no device '{}' in system '{}'; {}", file, device_name, name,
                              suggestion(device_name, names)));
}

std::vector<std::string> SystemSpec::replace_links(const LinkSpec& from, const LinkSpec& to) {
  std::vector<std::string> replaced;
  const auto replace = [&](LinkSpec& l, const std::string& name) {
    if (l.model != from.model) return;
    LinkSpec swapped = to;
    swapped.name = l.name;
    swapped.from = l.from;
    swapped.to = l.to;
    l = std::move(swapped);
    replaced.push_back(name);
  };
  for (LinkSpec& l : links) replace(l, l.name);
  if (network) replace(network->link, "network");
  return replaced;
}

const LinkSpec* SystemSpec::link_between(const std::string& a, const std::string& b) const {
  for (const auto& l : links)
    if ((l.from == a && l.to == b) || (l.from == b && l.to == a)) return &l;
  return nullptr;
}

bool SystemSpec::is_switch(const std::string& name) const {
  return std::any_of(switches.begin(), switches.end(),
                     [&](const SwitchSpec& s) { return s.name == name; });
}

HostRoute SystemSpec::host_route(const std::string& accelerator) const {
  for (const auto& d : devices)
    if (d.kind == DeviceKind::kCpu)
      if (const LinkSpec* l = link_between(d.name, accelerator)) return {&d, l};
  auto cpu_named = [&](const std::string& name) -> const DeviceSpec* {
    for (const auto& d : devices)
      if (d.kind == DeviceKind::kCpu && d.name == name) return &d;
    return nullptr;
  };
  auto other_end = [](const LinkSpec& l, const std::string& end) {
    return l.from == end ? l.to : l.from;
  };
  for (const LinkSpec& first : links) {
    if (first.from != accelerator && first.to != accelerator) continue;
    const std::string start = other_end(first, accelerator);
    if (!is_switch(start)) continue;
    // Breadth first through switches only, links in file order.
    std::vector<std::string> frontier{start}, seen{start};
    for (std::size_t i = 0; i < frontier.size(); ++i)
      for (const LinkSpec& l : links) {
        if (l.from != frontier[i] && l.to != frontier[i]) continue;
        const std::string next = other_end(l, frontier[i]);
        if (const DeviceSpec* cpu = cpu_named(next)) return {cpu, &first};
        if (is_switch(next) && std::find(seen.begin(), seen.end(), next) == seen.end()) {
          seen.push_back(next);
          frontier.push_back(next);
        }
      }
  }
  for (const auto& d : devices)
    if (d.kind == DeviceKind::kCpu) return {&d, nullptr};
  return {};
}

const DeviceSpec* SystemSpec::host_of(const std::string& accelerator) const {
  return host_route(accelerator).host;
}

std::map<std::string, std::size_t, std::less<>> SystemSpec::host_links() const {
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t i = 0; i < devices.size(); ++i) index.emplace(devices[i].name, i);
  std::vector<std::size_t> cpu(devices.size(), devices.size());  // the chosen link's CPU
  std::map<std::string, std::size_t, std::less<>> link;
  for (std::size_t j = 0; j < links.size(); ++j) {
    const auto from = index.find(links[j].from);
    const auto to = index.find(links[j].to);
    if (from == index.end() || to == index.end()) continue;
    for (const auto& [c, a] : {std::pair{from->second, to->second}, {to->second, from->second}})
      // host_of: the first CPU in device order linked to it; link_between: the first link.
      if (devices[c].kind == DeviceKind::kCpu && devices[a].kind != DeviceKind::kCpu &&
          c < cpu[a]) {
        cpu[a] = c;
        link[devices[a].name] = j;
      }
  }
  if (!switches.empty())  // devices behind a switch
    for (const DeviceSpec& d : devices)
      if (d.kind != DeviceKind::kCpu && !link.count(d.name))
        if (const LinkSpec* l = host_route(d.name).link)
          link[d.name] = static_cast<std::size_t>(l - links.data());
  return link;
}

std::vector<std::string> SystemSpec::uncalibrated_parts() const {
  std::vector<std::string> out;
  for (const auto& d : devices)
    if (!d.calibrated) out.push_back(fmt::format("device {} ({})", d.name, d.model));
  for (const auto& l : links)
    if (!l.calibrated) out.push_back(fmt::format("link {} ({})", l.name, l.model));
  if (!runtime.calibrated) out.push_back(fmt::format("runtime {}", runtime.name));
  return out;
}

}  // namespace amdahl::hw
