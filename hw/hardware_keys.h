#pragma once
// Every key of a device, link, runtime and collectives file, declared once, in the file's
// order: its path, its schema field (type, unit, required or its default, range, description)
// and, for a number one member of the spec holds, that member and whether `explore --vary`
// may set it. From these tables:
//   - the schemas (hw/system_schema.h): each row's field placed at its path, so `describe hw`
//     and every located error of a file read from them;
//   - the loader (hw/system_loader.cpp): each bound member set from the file (apply_keys);
//   - the varied paths (hw/parameter.h): a number's access found by its path, and the list of
//     varied keys in an error.
// Adding a number to a device file is one row here plus the code that uses the member
// (docs/architecture.md "Adding a hardware key"). The rows of keyed maps (peak.<precision>,
// efficiency.<entry>, ops.<class>, engine.<cost>) carry their children, which their own
// tables declare (hw/class_efficiency.h, engine_cost_specs()); their access is written out in
// hw/parameter.cpp.

#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "hw/schema.h"
#include "hw/system.h"

namespace amdahl::hw {

template <class Spec>
struct HardwareKey {
  std::string path;  // "memory.bandwidth": the map keys above it, then its own
  Field field;       // its key is the path's last part; a map's children are the rows below it
  // For a number one member holds: read it (resolved, for a member whose absence falls back on
  // another number) and set it from the file's value (SI; an integer's exactly).
  std::function<double(const Spec&)> get;
  std::function<void(Spec&, double)> set;
  // Whether `explore --vary` may set it; `varied_as` is how its error lists the key (empty:
  // the path), for a keyed map's numbers ("peak.<precision>").
  bool varies = false;
  std::string_view varied_as;
  // Explore's set of a number whose variation moves others with it (a link's bandwidth keeps
  // the achieved bandwidths' fraction of it); empty: `set`.
  std::function<void(Spec& out, const Spec& base, double)> vary;
  // A link's achieved bandwidth: absent from the file, it is the nominal bandwidth, stated as an
  // assumption of the link.
  bool nominal_when_absent = false;
};

// A row of a key with no member of its own (a string, a choice, a map, a keyed map).
template <class Spec>
HardwareKey<Spec> plain_key(std::string path, Field field) {
  HardwareKey<Spec> k;
  field.key = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  k.path = std::move(path);
  k.field = std::move(field);
  return k;
}

// A row of a number held by the member `ref(spec)` returns (a generic lambda returning a
// reference, so one lambda reads and writes it), which `explore --vary` may set.
template <class Spec, class Ref>
HardwareKey<Spec> number_key(std::string path, Field field, Ref ref, bool varies = true) {
  HardwareKey<Spec> k = plain_key<Spec>(std::move(path), std::move(field));
  k.get = [ref](const Spec& s) { return static_cast<double>(ref(s)); };
  k.set = [ref](Spec& s, double v) {
    auto& m = ref(s);
    m = static_cast<std::remove_cvref_t<decltype(m)>>(v);
  };
  k.varies = varies;
  return k;
}

const std::vector<HardwareKey<DeviceSpec>>& device_keys();
const std::vector<HardwareKey<LinkSpec>>& link_keys();
const std::vector<HardwareKey<RuntimeSpec>>& runtime_keys();
const std::vector<HardwareKey<CollectiveSpec>>& collective_keys();

// The schema of a table: each row's field under the map its path names, in the table's order.
template <class Spec>
std::vector<Field> schema_of(const std::vector<HardwareKey<Spec>>& keys,
                             const std::string& under = "") {
  std::vector<Field> fields;
  for (const HardwareKey<Spec>& k : keys) {
    const std::size_t dot = k.path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : k.path.substr(0, dot);
    if (parent != under) continue;
    Field f = k.field;
    if (f.type == FieldType::kMap && f.children.empty()) f.children = schema_of(keys, k.path);
    fields.push_back(std::move(f));
  }
  return fields;
}

// The row at `path` (a schema's canonical path, "memory.bandwidth"), or nullptr.
template <class Spec>
const HardwareKey<Spec>* find_key(const std::vector<HardwareKey<Spec>>& keys,
                                  std::string_view path) {
  for (const HardwareKey<Spec>& k : keys)
    if (k.path == path) return &k;
  return nullptr;
}

// The keys `explore --vary` may set, as its errors list them: "a, b and c".
template <class Spec>
std::vector<std::string> varied_keys(const std::vector<HardwareKey<Spec>>& keys,
                                     const std::string& prefix = "") {
  std::vector<std::string> out;
  for (const HardwareKey<Spec>& k : keys)
    if (k.varies) out.push_back(prefix + std::string(k.varied_as.empty() ? k.path : k.varied_as));
  return out;
}

}  // namespace amdahl::hw
