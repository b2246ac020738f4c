#include "hw/system_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>

#include "hw/hardware_keys.h"
#include "hw/system_schema.h"
#include "hw/topology.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/path_policy.h"
#include "util/suggest.h"
#include "util/yaml_file.h"

namespace amdahl::hw {
namespace fs = std::filesystem;

namespace {

Record read_file(const YamlFile& file, const std::vector<Field>& schema) {
  Diagnostics diags;
  if (!file.root.IsMap()) {
    diags.add(file.where(file.root), "", "expected a map at the top level",
              describe_node(file.root));
    diags.throw_if_any();
  }
  Record r =
      with_yaml_errors(file, [&] { return read_record(file, file.root, schema, "", diags); });
  diags.throw_if_any();
  return r;
}

// The value at `path` ("memory.bandwidth") of `r`, or nullptr when the file leaves it out (or
// a map above it).
const Value* value_at(const Record& r, const std::string& path) {
  const std::size_t dot = path.find('.');
  const std::string key = path.substr(0, dot);
  if (!r.has(key)) return nullptr;
  if (dot == std::string::npos) return &r.value(key);
  return value_at(r.map(key), path.substr(dot + 1));
}

// Every member a row of `keys` binds, set from `r` where the file gives it or its schema
// default (hw/hardware_keys.h); a member the file leaves out keeps the spec's own value.
template <class Spec>
void apply_keys(const std::vector<HardwareKey<Spec>>& keys, const Record& r, Spec& spec) {
  for (const HardwareKey<Spec>& k : keys) {
    if (!k.set) continue;
    const Value* v = value_at(r, k.path);
    if (!v) continue;
    k.set(spec, k.field.type == FieldType::kInt ? std::round(v->number) : v->number);
  }
}

// An entry from its record, one parameter per row of hw/class_efficiency.h (every key is
// present: given or defaulted by the schema).
ClassEfficiency to_efficiency(const Record& r) {
  ClassEfficiency e;
  for (const EfficiencyParamSpec& p : efficiency_params()) {
    const std::string key(p.key);
    double v = 0;
    switch (p.type) {
      case ParamType::kNumber:
      case ParamType::kQuantity:
        v = r.number(key);
        break;
      case ParamType::kInt:
        v = static_cast<double>(r.integer(key));
        break;
      case ParamType::kBool:
        v = r.boolean(key) ? 1 : 0;
        break;
      case ParamType::kEnum: {
        const auto it = std::find(p.choices.begin(), p.choices.end(), r.text(key));
        v = static_cast<double>(it - p.choices.begin());  // the schema checked the choice
        break;
      }
    }
    p.access.set(e, v);
  }
  return e;
}

// The folders includes may resolve into for one top-level file: its own and the catalog
// (util/path_policy.h).
PathScope scope_of(const std::string& top_level_file);
std::string resolve_include(const YamlFile& file, const std::string& include,
                            const PathScope& scope);
DeviceSpec load_device_chain(const std::string& path, std::vector<std::string> chain,
                             const PathScope& scope);

// The efficiency entries of the device file `r` names under efficiency_from (resolved like an
// include), for `d` to start from; a problem with that file is located at the key.
void inherit_efficiency(DeviceSpec& d, const Record& r, const YamlFile& file,
                        const std::vector<std::string>& chain, const PathScope& scope,
                        Diagnostics& diags) {
  try {
    const std::string from = resolve_include(file, r.text("efficiency_from"), scope);
    const DeviceSpec source = load_device_chain(from, chain, scope);
    d.efficiency = source.efficiency;
    d.assumptions.push_back(
        {AssumptionKind::kEfficiencyFrom,
         {d.model, source.model, from, source.calibrated ? "fitted" : "uncalibrated"},
         {}});
  } catch (const ConfigError&) {
    throw;  // located in the other file
  } catch (const UserError& e) {
    diags.add(r.value("efficiency_from").where, "efficiency_from", e.what(),
              fmt::format("'{}'", excerpt(r.text("efficiency_from"))));
  }
}

DeviceSpec to_device(const Record& r, const YamlFile& file, const std::vector<std::string>& chain,
                     const PathScope& scope) {
  DeviceSpec d;
  d.model = r.text("name");
  d.file = file.path;
  const std::string& kind = r.text("kind");
  d.kind = kind == "cpu" ? DeviceKind::kCpu
                         : (kind == "gpu" ? DeviceKind::kGpu : DeviceKind::kAccelerator);
  apply_keys(device_keys(), r, d);
  Diagnostics diags;
  bool has_fp32 = false;
  if (r.has("peak")) {
    for (const Record& p : r.list("peak")) {
      const auto precision = parse_precision(p.name());
      const std::string& unit = p.text("unit");
      ComputeUnit u = ComputeUnit::kFma;
      if (unit == "tensor")
        u = ComputeUnit::kTensor;
      else if (unit == "simd")
        u = ComputeUnit::kSimd;
      else if (unit == "matrix")
        u = ComputeUnit::kMatrix;
      d.peak[*precision] = PeakRate{p.number("rate"), u};
      has_fp32 = has_fp32 || *precision == Precision::kFp32;
    }
  }
  if (!has_fp32) diags.add(r.where(), "peak.fp32", "required key is missing (peak fp32 rate)");
  d.calibrated = r.boolean("calibrated");
  d.calibration_source = r.text_or("calibration", "");
  if (d.calibrated && d.calibration_source.empty())
    diags.add(r.where(), "calibration", "required when calibrated is true (name the measurements)");
  if (r.has("efficiency_from")) inherit_efficiency(d, r, file, chain, scope, diags);
  if (r.has("efficiency"))
    for (const Record& e : r.list("efficiency"))  // the schema admits efficiency_keys() only
      d.efficiency[entry(e.name())] = to_efficiency(e);
  // A tile set runs from tile_min up to tile_max: an empty range is a typo, not a model.
  if (r.has("efficiency"))
    for (const Record& e : r.list("efficiency"))
      if (e.has("tile_min") && e.has("tile_max") && e.integer("tile_max") > 0 &&
          e.integer("tile_min") > e.integer("tile_max"))
        diags.add(e.value("tile_min").where, e.path() + ".tile_min",
                  fmt::format("must not exceed tile_max ({})", e.integer("tile_max")),
                  fmt::format("'{}'", e.integer("tile_min")));
  if (!d.efficiency.count(EfficiencyKey::fallback())) {
    const ClassEfficiency fallback{0.75, 0.8};
    d.efficiency[EfficiencyKey::fallback()] = fallback;
    d.assumptions.push_back(
        {AssumptionKind::kDefaultEfficiency, {d.model}, {fallback.compute, fallback.memory}});
  }
  // Defaulted efficiency model terms (tiles, k_half, winograd, ...) are switched off, not
  // assumed; only the defaulted roofline fractions are assumptions.
  for (const auto& p : r.defaulted_paths()) {
    const bool efficiency = p.path.starts_with("efficiency.");
    const bool fraction = p.path.ends_with(".compute") || p.path.ends_with(".memory");
    if (!efficiency || fraction)
      d.assumptions.push_back({AssumptionKind::kDefaultedKey, {d.model, p.path, p.text}, {}});
  }

  diags.throw_if_any();
  return d;
}

LinkSpec to_link(const Record& r) {
  LinkSpec l;
  l.model = r.text("name");
  l.calibrated = r.boolean("calibrated");
  apply_keys(link_keys(), r, l);
  for (const HardwareKey<LinkSpec>& k : link_keys())
    if (k.nominal_when_absent && !r.has(k.path)) {
      k.set(l, l.bandwidth_bytes_per_s);
      l.assumptions.push_back(
          {AssumptionKind::kNominalBandwidth, {l.model, k.path}, {l.bandwidth_bytes_per_s}});
    }
  return l;
}

// `r`: the runtime's `collectives` map, or the schema's defaults of every key when absent.
CollectiveSpec to_collectives(const Record& r) {
  CollectiveSpec c;
  c.library = r.text_or("library", "");
  const std::string& algorithm = r.text("algorithm");
  c.algorithm = algorithm == "ring" ? CollectiveAlgorithmChoice::kRing
                                    : (algorithm == "tree" ? CollectiveAlgorithmChoice::kTree
                                                           : CollectiveAlgorithmChoice::kAuto);
  c.variable_update = *parse_variable_update(r.text("variable_update"));  // the schema checked it
  apply_keys(collective_keys(), r, c);
  c.peer_links = r.boolean("peer_links");
  if (r.has("link_bandwidth"))
    for (const Record& l : r.list("link_bandwidth"))
      c.link_bandwidth.push_back({l.text("link"), l.number("bandwidth")});
  c.source = r.text_or("source", "");
  // The variable update and the links the library takes are choices of software, stated by the
  // prediction, not numbers assumed.
  for (const Field& f : collectives_schema())
    if (f.key != "variable_update" && f.key != "peer_links" && r.has(f.key) &&
        r.value(f.key).defaulted)
      c.assumptions.push_back({AssumptionKind::kCollectiveDefault,
                               {r.path() + "." + f.key, r.text(f.key), f.description},
                               {}});
  return c;
}

// The record of a map the file leaves out: every key at its schema default.
Record defaults_of(const std::vector<Field>& fields, const std::string& path) {
  const YamlFile none{"", YAML::Node(YAML::NodeType::Map)};
  Diagnostics diags;
  Record r = read_record(none, none.root, fields, path, diags);
  if (!diags.empty()) throw InternalError("schema defaults: " + diags.items().front().str());
  return r;
}

RuntimeSpec to_runtime(const Record& r) {
  RuntimeSpec rt;
  rt.name = r.text("name");
  apply_keys(runtime_keys(), r, rt);
  if (r.has("ops"))
    for (const Record& o : r.list("ops")) {
      OpHostCost c;
      c.host_s = o.number("host");
      c.backward_s = o.has("backward") ? o.number("backward") : c.host_s;
      c.kernels = static_cast<int>(o.integer("kernels"));
      c.source = o.text("source");
      rt.ops[static_cast<std::size_t>(*parse_op_class(o.name()))] = std::move(c);
    }
  if (r.has("engine"))
    for (const EngineCostSpec& e : engine_cost_specs()) {
      const Record& engine = r.map("engine");
      if (!engine.has(std::string(e.key))) continue;
      const Record& c = engine.map(std::string(e.key));
      const auto i = static_cast<std::size_t>(e.cost);
      rt.engine[i] = c.number("host");
      rt.engine_sources[i] = c.text("source");
    }
  if (r.has("optimizer")) {
    const Record& o = r.map("optimizer");
    OptimizerRuntime& opt = rt.optimizer;
    const std::string& impl = o.text("impl");
    opt.impl = impl == "foreach" ? OptimizerImpl::kForeach
                                 : (impl == "fused" ? OptimizerImpl::kFused : OptimizerImpl::kLoop);
    opt.source = o.text_or("source", "");
  }
  const std::string& sync = r.text("sync");
  rt.sync = sync == "end_of_step"
                ? SyncPoint::kEndOfStep
                : (sync == "after_loss" ? SyncPoint::kAfterLoss : SyncPoint::kNone);
  rt.graph_capture = r.boolean("graph_capture");
  rt.compile = r.boolean("compile");
  rt.pinned_inputs = r.boolean("pinned_inputs");
  rt.calibrated = r.boolean("calibrated");
  const std::string collectives_path = r.path().empty() ? "collectives" : r.path() + ".collectives";
  rt.collectives =
      to_collectives(r.has("collectives") ? r.map("collectives")
                                          : defaults_of(collectives_schema(), collectives_path));
  // The collectives' defaults are listed by what uses collectives (CollectiveSpec::assumptions).
  for (const auto& p : r.defaulted_paths())
    if (!p.path.starts_with(collectives_path + "."))
      rt.assumptions.push_back({AssumptionKind::kDefaultedKey, {"", p.path, p.text}, {}});
  return rt;
}

PathScope scope_of(const std::string& top_level_file) {
  return PathScope({fs::path(top_level_file).parent_path().string(), catalog_dir()});
}

std::string resolve_include(const YamlFile& file, const std::string& include,
                            const PathScope& scope) {
  return scope.resolve(file.path, include, "the file");
}

// `chain`: the files whose efficiency_from led here, for cycles.
DeviceSpec load_device_chain(const std::string& path, std::vector<std::string> chain,
                             const PathScope& scope) {
  const std::string key = fs::absolute(path).lexically_normal().string();
  if (std::find(chain.begin(), chain.end(), key) != chain.end()) {
    chain.push_back(key);
    throw UserError(fmt::format("goes round in a cycle: {}", join(chain, " -> ")));
  }
  chain.push_back(key);
  const YamlFile file = load_yaml_file(path);
  return to_device(read_file(file, device_schema()), file, chain, scope);
}

// Collectives run over every device of the default device's model: each must be joined to
// the default device (node 0's) by a chain of links, located at the device's entry.
void check_reachable(const Record& r, const SystemSpec& s, Diagnostics& diags) {
  const Topology topology(s);
  const std::string& model = s.device(s.default_device).model;
  const std::string from = topology.vertex_name(0, s.default_device);
  const std::vector<Record>& entries = r.list("devices");
  for (std::size_t i = 0; i < s.devices.size() && i < entries.size(); ++i) {
    const DeviceSpec& d = s.devices[i];
    if (d.model != model) continue;
    for (int k = 0; k < s.nodes; ++k) {
      const std::string to = topology.vertex_name(k, d.name);
      if (topology.connected(from, to)) continue;
      diags.add(entries[i].value("name").where, entries[i].path() + ".name",
                fmt::format("no chain of links joins {} to the default device {} (collectives "
                            "need every {} reachable; add a link{})",
                            to, from, model, s.nodes > 1 ? " or a network.attach device" : ""),
                fmt::format("'{}'", d.name));
      break;
    }
  }
}

// What one included file loads to, kept for the rest of one system's load: a node of eight
// GPUs names one device file eight times and one link file for each of its links. A file that
// failed keeps its error, thrown again (the system reports each problem once).
template <class Spec>
class IncludeCache {
 public:
  template <class Load>
  Spec get(const std::string& path, Load load) {
    auto it = loaded_.find(path);
    if (it == loaded_.end()) {
      Entry entry;
      try {
        entry.spec = load(path);
      } catch (const UserError&) {
        entry.error = std::current_exception();
      }
      it = loaded_.emplace(path, std::move(entry)).first;
    }
    if (it->second.error) std::rethrow_exception(it->second.error);
    return it->second.spec;
  }

 private:
  struct Entry {
    Spec spec;
    std::exception_ptr error;
  };
  std::map<std::string, Entry> loaded_;
};

}  // namespace

std::string catalog_dir() {
  if (const char* env = std::getenv("AMDAHL_CATALOG"); env && *env) return env;
  return AMDAHL_CATALOG_DIR;
}

namespace {

// The files of catalog/<kind> without .yaml, sorted.
std::vector<std::string> catalog_names(const char* kind) {
  std::vector<std::string> names;
  const fs::path dir = fs::path(catalog_dir()) / kind;
  if (!fs::is_directory(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The file a catalog name or a path names: catalog/<kind>/<name>.yaml for a name in the
// catalog, the path itself when it names a file that exists; else a UserError listing the
// catalog's names of `kind` ("unknown system 'x'; did you mean ...").
std::string catalog_or_file(const std::string& name_or_path, const char* kind,
                            std::string_view what) {
  const auto names = catalog_names(kind);
  if (!names_a_file(name_or_path)) {
    if (std::find(names.begin(), names.end(), name_or_path) == names.end())
      throw UserError(
          fmt::format("unknown {} '{}'; {}", what, name_or_path, suggestion(name_or_path, names)));
    return (fs::path(catalog_dir()) / kind / (name_or_path + ".yaml")).string();
  }
  if (!fs::exists(name_or_path))
    throw UserError(
        fmt::format("{}: no such {} file (catalog {}: {})", name_or_path, what, kind, join(names)));
  return name_or_path;
}

}  // namespace

std::vector<std::string> catalog_system_names() { return catalog_names("systems"); }

std::vector<std::string> catalog_link_names() { return catalog_names("links"); }

DeviceSpec load_device_file(const std::string& path) {
  return load_device_chain(path, {}, scope_of(path));
}

LinkSpec load_link_file(const std::string& path) {
  const YamlFile file = load_yaml_file(path);
  return to_link(read_file(file, link_schema()));
}

LinkSpec load_link(const std::string& name_or_path) {
  return load_link_file(catalog_or_file(name_or_path, "links", "link"));
}

SystemSpec load_system(const std::string& name_or_path) {
  const std::string path = catalog_or_file(name_or_path, "systems", "system");

  const YamlFile file = load_yaml_file(path);
  const Record r = read_file(file, system_schema());
  const PathScope scope = scope_of(path);
  SystemSpec s;
  s.name = r.text("name");
  s.description = r.text("description");
  s.file = path;
  s.default_device = r.text("default_device");
  s.runtime = to_runtime(r.map("runtime"));

  // Included files are validated on their own; their errors carry their own locations.
  std::vector<Diagnostic> problems;
  auto collect = [&](const std::exception& e, const Value& where, const std::string& key) {
    if (const auto* ce = dynamic_cast<const ConfigError*>(&e)) {
      problems.insert(problems.end(), ce->items().begin(), ce->items().end());
    } else {
      problems.push_back(Diagnostic{where.where, key, e.what(), ""});
    }
  };
  Diagnostics diags;
  if (r.has("measured_runs")) {
    // Held to the include rule, but for the shipped catalog's own systems: they are part of
    // the tool and name the measurements under shared/data (hw/catalog/systems/h200.yaml).
    const std::string& named = r.text("measured_runs");
    try {
      s.measured_runs = resolved_path(fs::path(path).parent_path()) ==
                                resolved_path(fs::path(catalog_dir()) / "systems")
                            ? (fs::path(path).parent_path() / named).lexically_normal().string()
                            : scope.resolve(path, named, "the measured runs");
    } catch (const UserError& e) {
      diags.add(r.value("measured_runs").where, "measured_runs", e.what(),
                fmt::format("'{}'", excerpt(named)));
    }
  }
  // Names identify devices and links: each must be unique in the system.
  auto check_unique = [&](const std::vector<Record>& records, const char* what) {
    std::map<std::string, std::size_t> first_line;
    for (const Record& x : records) {
      const Value& name = x.value("name");
      if (const auto [it, fresh] = first_line.emplace(name.text, name.where.line); !fresh)
        diags.add(
            name.where, x.path() + ".name",
            fmt::format("a second {} of this name (the first is at line {})", what, it->second),
            fmt::format("'{}'", excerpt(name.text)));
    }
  };
  {  // devices and switches share one name space: a link's ends name either
    std::vector<Record> vertices = r.list("devices");
    if (r.has("switches"))
      vertices.insert(vertices.end(), r.list("switches").begin(), r.list("switches").end());
    check_unique(vertices, r.has("switches") ? "device or switch" : "device");
  }
  if (r.has("links")) check_unique(r.list("links"), "link");
  IncludeCache<DeviceSpec> device_files;
  IncludeCache<LinkSpec> link_files;
  auto load_link_include = [&](const std::string& include) {
    return link_files.get(resolve_include(file, include, scope), load_link_file);
  };
  std::vector<std::string> device_names;
  std::vector<std::string> failed_devices;  // their links are not checked again
  for (const Record& d : r.list("devices")) {
    try {
      DeviceSpec spec =
          device_files.get(resolve_include(file, d.text("include"), scope),
                           [&](const std::string& p) { return load_device_chain(p, {}, scope); });
      spec.name = d.text("name");
      device_names.push_back(spec.name);
      s.devices.push_back(std::move(spec));
    } catch (const UserError& e) {
      failed_devices.push_back(d.text("name"));
      collect(e, d.value("include"), d.path() + ".include");
    }
  }
  std::vector<std::string> ends = device_names;  // what a link may join
  if (r.has("switches"))
    for (const Record& w : r.list("switches")) {
      s.switches.push_back({w.text("name"), w.text("model")});
      if (std::find(ends.begin(), ends.end(), w.text("name")) == ends.end())
        ends.push_back(w.text("name"));
    }
  if (r.has("links")) {
    for (const Record& l : r.list("links")) {
      if (l.text("from") == l.text("to"))
        diags.add(l.value("to").where, l.path() + ".to",
                  "a link joins two different devices (from and to are the same)",
                  fmt::format("'{}'", excerpt(l.text("to"))));
      for (const char* end : {"from", "to"}) {
        const std::string& dev = l.text(end);
        if (std::find(ends.begin(), ends.end(), dev) == ends.end() &&
            std::find(failed_devices.begin(), failed_devices.end(), dev) == failed_devices.end())
          diags.add(l.value(end).where, l.path() + "." + end,
                    fmt::format("unknown device{}; {}", s.switches.empty() ? "" : " or switch",
                                suggestion(dev, ends)),
                    fmt::format("'{}'", dev));
      }
      try {
        LinkSpec spec = load_link_include(l.text("include"));
        spec.name = l.text("name");
        spec.from = l.text("from");
        spec.to = l.text("to");
        s.links.push_back(std::move(spec));
      } catch (const UserError& e) {
        collect(e, l.value("include"), l.path() + ".include");
      }
    }
  }
  if (r.has("switches"))
    for (const Record& w : r.list("switches")) {
      const std::string& name = w.text("name");
      const bool linked =
          r.has("links") &&
          std::any_of(r.list("links").begin(), r.list("links").end(), [&](const Record& l) {
            return l.text("from") == name || l.text("to") == name;
          });
      if (!linked)
        diags.add(w.value("name").where, w.path() + ".name",
                  "no link joins this switch (a switch forwards between the links that join it)",
                  fmt::format("'{}'", excerpt(name)));
    }
  if (!device_names.empty() &&
      std::find(device_names.begin(), device_names.end(), s.default_device) == device_names.end())
    diags.add(r.value("default_device").where, "default_device",
              fmt::format("unknown device; {}", suggestion(s.default_device, device_names)),
              fmt::format("'{}'", s.default_device));
  s.nodes = static_cast<int>(r.integer("nodes"));
  if (r.has("network")) {
    const Record& n = r.map("network");
    if (s.nodes == 1)
      diags.add(r.value("network").where, "network",
                "only a system of more than one node has a network (nodes is 1)");
    const Value& attach = n.value("attach");
    if (attach.strings.empty())
      diags.add(attach.where, "network.attach",
                "names at least one device (the devices of a node that have a NIC)",
                "an empty list");
    for (std::size_t i = 0; i < attach.strings.size(); ++i) {
      const std::string& dev = attach.strings[i];
      if (std::find(ends.begin(), ends.end(), dev) == ends.end() &&
          std::find(failed_devices.begin(), failed_devices.end(), dev) == failed_devices.end())
        diags.add(attach.where, fmt::format("network.attach[{}]", i),
                  fmt::format("unknown device{}; {}", s.switches.empty() ? "" : " or switch",
                              suggestion(dev, ends)),
                  fmt::format("'{}'", excerpt(dev)));
    }
    try {
      NetworkSpec network;
      network.link = load_link_include(n.text("include"));
      network.link.name = "nic";
      network.attach = attach.strings;
      s.network = std::move(network);
    } catch (const UserError& e) {
      collect(e, n.value("include"), "network.include");
    }
  } else if (s.nodes > 1) {
    diags.add(r.value("nodes").where, "nodes",
              "a system of more than one node needs `network` (the links between its nodes)",
              fmt::format("'{}'", s.nodes));
  }
  // The collectives' link_bandwidth names link models the system has.
  if (r.map("runtime").has("collectives") &&
      r.map("runtime").map("collectives").has("link_bandwidth")) {
    std::vector<std::string> models;
    for (const LinkSpec& l : s.links)
      if (std::find(models.begin(), models.end(), l.model) == models.end())
        models.push_back(l.model);
    if (s.network && std::find(models.begin(), models.end(), s.network->link.model) == models.end())
      models.push_back(s.network->link.model);
    for (const Record& l : r.map("runtime").map("collectives").list("link_bandwidth")) {
      const Value& model = l.value("link");
      if (problems.empty() && std::find(models.begin(), models.end(), model.text) == models.end())
        diags.add(model.where, l.path() + ".link",
                  fmt::format("no link of this system is of this model; {}",
                              suggestion(model.text, models)),
                  fmt::format("'{}'", excerpt(model.text)));
    }
  }
  problems.insert(problems.end(), diags.items().begin(), diags.items().end());
  if (problems.empty()) {
    Diagnostics reach;
    check_reachable(r, s, reach);
    problems.insert(problems.end(), reach.items().begin(), reach.items().end());
  }
  // A file included several times reports its problems once.
  std::vector<Diagnostic> unique;
  for (const auto& p : problems) {
    bool seen = false;
    for (const auto& u : unique) seen = seen || u.str() == p.str();
    if (!seen) unique.push_back(p);
  }
  if (!unique.empty()) throw ConfigError(unique);
  return s;
}

}  // namespace amdahl::hw
