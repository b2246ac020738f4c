#include "hw/parameter.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <cmath>

#include "hw/class_efficiency.h"
#include "hw/efficiency_key.h"
#include "hw/hardware_keys.h"
#include "hw/system_schema.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::hw {
namespace {

using Getter = std::function<double(const SystemSpec&, std::size_t)>;
using Setter = std::function<void(SystemSpec&, const SystemSpec&, std::size_t, double)>;

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// The schema field `parts` (from `from`) leads to, walking maps and keyed maps; `keys` gets the
// name taken at each keyed map (an efficiency key may span two parts: "gemm.fp16"), `canonical`
// the path with "*" for each. `peak.fp16` means `peak.fp16.rate`.
const Field& walk(const std::vector<Field>& fields, const std::vector<std::string>& parts,
                  std::size_t from, const std::string& what, std::vector<std::string>& keys,
                  std::string& canonical) {
  const std::vector<Field>* level = &fields;
  std::string walked;  // the path up to the key being read
  for (std::size_t k = 0; k < from; ++k) walked += (k ? "." : "") + parts[k];
  std::size_t i = from;
  while (true) {
    if (i >= parts.size())
      throw UserError(fmt::format("{}: a key is missing after '{}'; {}", what, walked, [&] {
        std::vector<std::string> names;
        for (const Field& f : *level) names.push_back(f.key);
        return "valid: " + join(names);
      }()));
    const Field* f = nullptr;
    std::vector<std::string> names;
    for (const Field& each : *level) {
      names.push_back(each.key);
      if (each.key == parts[i]) f = &each;
    }
    if (!f)
      throw UserError(fmt::format("{}: unknown key '{}' after '{}'; {}", what, parts[i], walked,
                                  suggestion(parts[i], names)));
    walked += "." + f->key;
    canonical += (canonical.empty() ? "" : ".") + f->key;
    ++i;
    switch (f->type) {
      case FieldType::kMap:
        level = &f->children;
        continue;
      case FieldType::kKeyedMap: {
        if (i >= parts.size())
          throw UserError(fmt::format("{}: a name is missing after '{}'; valid: {}", what, walked,
                                      join(f->choices)));
        auto is_choice = [&](const std::string& k) {
          return std::find(f->choices.begin(), f->choices.end(), k) != f->choices.end();
        };
        std::string key = parts[i];
        if (i + 1 < parts.size() && is_choice(parts[i] + "." + parts[i + 1]))
          key = parts[i] + "." + parts[i + 1];
        else if (!is_choice(key))
          throw UserError(fmt::format("{}: unknown name '{}' after '{}'; {}", what, key, walked,
                                      suggestion(key, f->choices)));
        i += key == parts[i] ? 1 : 2;
        keys.push_back(key);
        walked += "." + key;
        canonical += ".*";
        level = &f->children;
        if (i == parts.size()) {
          for (const Field& child : *level)
            if (child.key == "rate") {  // peak.fp16 = peak.fp16.rate
              canonical += ".rate";
              return child;
            }
        }
        continue;
      }
      case FieldType::kList:
      case FieldType::kString:
      case FieldType::kStringList:
      case FieldType::kEnum:
      case FieldType::kBool:
        throw UserError(
            fmt::format("{}: '{}' is not a number; explore varies numbers", what, walked));
      case FieldType::kInt:
      case FieldType::kNumber:
      case FieldType::kQuantity:
        if (i != parts.size())
          throw UserError(fmt::format("{}: '{}' is a number with no keys below it", what, walked));
        return *f;
    }
  }
}

// The devices or links whose names match `pattern` (a glob), by index.
template <class T>
std::vector<std::size_t> matching(const std::vector<T>& items, const std::string& pattern,
                                  const std::string& what, const std::string& kind) {
  std::vector<std::size_t> out;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < items.size(); ++i) {
    names.push_back(items[i].name);
    if (fnmatch(pattern.c_str(), items[i].name.c_str(), 0) == 0) out.push_back(i);
  }
  if (out.empty())
    throw UserError(
        fmt::format("{}: no {} named '{}'; {}", what, kind, pattern, suggestion(pattern, names)));
  return out;
}

struct Access {
  Getter get;
  Setter set;
};

// The access to the number `key` binds in the spec `spec(system, i)` returns.
template <class Spec, class Of>
Access key_access(const HardwareKey<Spec>& key, Of spec) {
  return {[&key, spec](const SystemSpec& s, std::size_t i) { return key.get(spec(s, i)); },
          [&key, spec](SystemSpec& s, const SystemSpec& base, std::size_t i, double v) {
            if (key.vary)
              key.vary(spec(s, i), spec(base, i), v);
            else
              key.set(spec(s, i), v);
          }};
}

// "a, b and c".
std::string and_list(const std::vector<std::string>& items) {
  if (items.size() < 2) return join(items);
  const std::vector<std::string> head(items.begin(), items.end() - 1);
  return join(head) + " and " + items.back();
}

Access device_access(const SystemSpec& system, const std::vector<std::size_t>& targets,
                     const std::string& canonical, const std::vector<std::string>& keys,
                     const std::string& what) {
  if (const HardwareKey<DeviceSpec>* k = find_key(device_keys(), canonical); k && k->varies)
    return key_access(
        *k, [](auto& s, std::size_t i) -> auto& { return s.devices[i]; });
  if (canonical == "peak.*.rate") {
    const Precision p = *parse_precision(keys.at(0));  // the schema checked the name
    for (const std::size_t i : targets)
      if (!system.devices[i].peak.count(p))
        throw UserError(
            fmt::format("{}: {} ({}) has no {} rate to vary; give it in the device file", what,
                        system.devices[i].name, system.devices[i].model, keys.at(0)));
    return {[p](const SystemSpec& s, std::size_t i) { return s.devices[i].peak.at(p).flops_per_s; },
            [p](SystemSpec& s, const SystemSpec&, std::size_t i, double v) {
              s.devices[i].peak.at(p).flops_per_s = v;
            }};
  }
  if (canonical.rfind("efficiency.*.", 0) == 0) {
    const EfficiencyKey key = *parse_efficiency_key(keys.at(0));
    const std::string param = canonical.substr(std::string("efficiency.*.").size());
    for (const EfficiencyParamSpec& spec : efficiency_params()) {
      if (spec.key != param) continue;
      const ParamAccess access = spec.access;
      // An entry the device does not give falls back on `default`: varying it starts from
      // the default entry, as a file giving the entry with only this key would.
      return {[key, access](const SystemSpec& s, std::size_t i) {
                const DeviceSpec& d = s.devices[i];
                auto it = d.efficiency.find(key);
                return access.get(it != d.efficiency.end() ? it->second : d.default_efficiency());
              },
              [key, access](SystemSpec& s, const SystemSpec& base, std::size_t i, double v) {
                const DeviceSpec& b = base.devices[i];
                auto it = b.efficiency.find(key);
                ClassEfficiency e = it != b.efficiency.end() ? it->second : b.default_efficiency();
                access.set(e, v);
                s.devices[i].efficiency[key] = e;
              }};
    }
  }
  throw UserError(fmt::format("{}: explore cannot vary '{}'; a device's varied keys are {}", what,
                              canonical, and_list(varied_keys(device_keys()))));
}

Access link_access(const std::string& canonical, bool network, const std::string& what) {
  if (const HardwareKey<LinkSpec>* k = find_key(link_keys(), canonical); k && k->varies)
    return key_access(
        *k, [network](auto& s, std::size_t i) -> auto& {
          return network ? s.network->link : s.links[i];
        });
  throw UserError(fmt::format("{}: explore cannot vary '{}'; a link's varied keys are {}", what,
                              canonical, and_list(varied_keys(link_keys()))));
}

Access runtime_access(const std::string& canonical, const std::vector<std::string>& keys,
                      const std::string& what) {
  if (const HardwareKey<RuntimeSpec>* k = find_key(runtime_keys(), canonical); k && k->varies)
    return key_access(
        *k, [](auto& s, std::size_t) -> auto& { return s.runtime; });
  if (canonical.starts_with("collectives."))
    if (const HardwareKey<CollectiveSpec>* k =
            find_key(collective_keys(), canonical.substr(std::string("collectives.").size()));
        k && k->varies)
      return key_access(
          *k, [](auto& s, std::size_t) -> auto& { return s.runtime.collectives; });
  if (canonical == "ops.*.host" || canonical == "ops.*.backward") {
    const OpClass c = *parse_op_class(keys.at(0));
    const bool backward = canonical == "ops.*.backward";
    return {[c, backward](const SystemSpec& s, std::size_t) {
              return s.runtime.op_host_s(c, backward);
            },
            [c, backward](SystemSpec& s, const SystemSpec& base, std::size_t, double v) {
              // An absent entry starts as the file would give it: both times the fallback.
              const auto& given = base.runtime.ops[static_cast<std::size_t>(c)];
              OpHostCost cost =
                  given.value_or(OpHostCost{base.runtime.op_host_s(c, false),
                                            base.runtime.op_host_s(c, true), 1, "amdahl explore"});
              (backward ? cost.backward_s : cost.host_s) = v;
              s.runtime.ops[static_cast<std::size_t>(c)] = cost;
            }};
  }
  if (canonical.rfind("engine.", 0) == 0 && canonical.size() > 12 &&
      canonical.substr(canonical.size() - 5) == ".host") {
    const std::string key = canonical.substr(7, canonical.size() - 12);
    for (const EngineCostSpec& spec : engine_cost_specs())
      if (spec.key == key) {
        const EngineCost c = spec.cost;
        return {[c](const SystemSpec& s, std::size_t) { return s.runtime.cost(c); },
                [c](SystemSpec& s, const SystemSpec&, std::size_t, double v) {
                  s.runtime.engine[static_cast<std::size_t>(c)] = v;
                }};
      }
  }
  std::vector<std::string> varied = varied_keys(runtime_keys());
  for (const std::string& k : varied_keys(collective_keys(), "collectives.")) varied.push_back(k);
  throw UserError(fmt::format(
      "{}: explore cannot vary 'runtime.{}'; the runtime's varied keys are {} (bucket_cap and the "
      "kernels counts change how a network is lowered)",
      what, canonical, and_list(varied)));
}

}  // namespace

SystemParameter::SystemParameter(const SystemSpec& system, std::string path)
    : path_(std::move(path)) {
  const std::string what = fmt::format("--vary {}", excerpt(path_));
  const std::vector<std::string> parts = split(path_);
  std::vector<std::string> keys;
  std::string canonical;
  Access access;
  if (parts.size() < 2) {
    std::vector<std::string> names{"links", "runtime"};
    if (system.network) names.push_back("network");
    for (const DeviceSpec& d : system.devices) names.push_back(d.name);
    throw UserError(fmt::format(
        "{}: expected <device>.<key>, links.<link>.<key>, network.<key> or runtime.<key> "
        "(a device: {})",
        what, join(names)));
  }
  if (parts[0] == "links" || parts[0] == "network") {
    const bool network = parts[0] == "network";
    std::size_t from = 1;
    if (network) {
      if (!system.network)
        throw UserError(
            fmt::format("{}: {} is one node, with no network between nodes", what, system.name));
      targets_ = {0};
      target_names_ = {"network"};
    } else {
      targets_ = matching(system.links, parts[1], what, "link");
      for (const std::size_t i : targets_) target_names_.push_back(system.links[i].name);
      from = 2;
    }
    field_ = walk(link_schema(), parts, from, what, keys, canonical);
    access = link_access(canonical, network, what);
  } else if (parts[0] == "runtime") {
    targets_ = {0};
    target_names_ = {""};
    field_ = walk(runtime_schema(), parts, 1, what, keys, canonical);
    access = runtime_access(canonical, keys, what);
  } else {
    targets_ = matching(system.devices, parts[0], what, "device");
    for (const std::size_t i : targets_) target_names_.push_back(system.devices[i].name);
    field_ = walk(device_schema(), parts, 1, what, keys, canonical);
    access = device_access(system, targets_, canonical, keys, what);
  }
  get_ = std::move(access.get);
  set_ = std::move(access.set);
}

double SystemParameter::get(const SystemSpec& system) const {
  return get_(system, targets_.front());
}

void SystemParameter::set(SystemSpec& out, const SystemSpec& base, double value) const {
  for (const std::size_t i : targets_) set_(out, base, i, value);
}

void SystemParameter::scale(SystemSpec& out, const SystemSpec& base, double factor) const {
  for (const std::size_t i : targets_) set_(out, base, i, get_(base, i) * factor);
}

void SystemParameter::check(double value, const std::string& text,
                            const SourceLocation& where) const {
  Value v;
  v.type = field_.type;
  v.number = value;
  v.text = text;
  v.where = where;
  Diagnostics diags;
  if (field_.type == FieldType::kInt && value != std::floor(value))
    diags.add(where, path_, "must be a whole number", fmt::format("'{}'", excerpt(text)));
  else
    check_value(field_, v, path_, diags);
  diags.throw_if_any();
}

std::string SystemParameter::format(double value) const {
  if (field_.type == FieldType::kInt) return fmt::format("{:.0f}", value);
  return format_quantity(value, field_.dimension);
}

}  // namespace amdahl::hw
