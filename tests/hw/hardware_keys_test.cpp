// The hardware key tables (hw/hardware_keys.h): every number of a device, link, runtime and
// collectives schema outside a keyed map is bound to a member, so the loader and
// `explore --vary` cannot miss one; the schemas nest each row under the map its path names;
// the loader's members equal what the catalog's files say.

#include "hw/hardware_keys.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "hw/system_loader.h"
#include "hw/system_schema.h"

using namespace amdahl;
using namespace amdahl::hw;

namespace {

bool is_number(FieldType t) {
  return t == FieldType::kInt || t == FieldType::kNumber || t == FieldType::kQuantity;
}

// The paths of the numbers of `fields` outside keyed maps and lists ("memory.bandwidth"), and
// outside maps whose children another table declares (`engine`, the runtime's `collectives`:
// their row carries its children).
template <class Spec>
void number_paths(const std::vector<HardwareKey<Spec>>& keys, const std::vector<Field>& fields,
                  const std::string& prefix, std::vector<std::string>& out) {
  for (const Field& f : fields) {
    const HardwareKey<Spec>* row = find_key(keys, prefix + f.key);
    if (f.type == FieldType::kMap && row && row->field.children.empty())
      number_paths(keys, f.children, prefix + f.key + ".", out);
    if (is_number(f.type)) out.push_back(prefix + f.key);
  }
}

template <class Spec>
void check_bound(const std::vector<HardwareKey<Spec>>& keys, const std::vector<Field>& schema) {
  std::vector<std::string> paths;
  number_paths(keys, schema, "", paths);
  REQUIRE(!paths.empty());
  for (const std::string& p : paths) {
    INFO(p);
    const HardwareKey<Spec>* k = find_key(keys, p);
    REQUIRE(k != nullptr);
    CHECK(k->get);
    CHECK(k->set);
  }
}

}  // namespace

TEST_CASE("every number of a hardware schema is bound to a member", "[hw][keys]") {
  // The maps walked: memory, allocation and optimizer (their numbers' rows are their own).
  for (const char* map : {"memory", "allocation"})
    CHECK(find_key(device_keys(), map)->field.children.empty());
  CHECK(find_key(runtime_keys(), "optimizer")->field.children.empty());
  check_bound(device_keys(), device_schema());
  check_bound(link_keys(), link_schema());
  check_bound(runtime_keys(), runtime_schema());
  check_bound(collective_keys(), collectives_schema());
}

TEST_CASE("a key's row lands under the map its path names", "[hw][keys]") {
  const std::vector<Field>& schema = device_schema();
  const auto memory =
      std::find_if(schema.begin(), schema.end(), [](const Field& f) { return f.key == "memory"; });
  REQUIRE(memory != schema.end());
  REQUIRE(memory->children.size() == 4);
  CHECK(memory->children[0].key == "capacity");
  CHECK(memory->children[1].key == "bandwidth");
  CHECK(memory->children[2].key == "l2_cache");
  CHECK(memory->children[3].key == "source");
  // No row is left at the top level under its dotted path.
  for (const Field& f : schema) CHECK(f.key.find('.') == std::string::npos);
}

TEST_CASE("the varied keys are the rows that vary, keyed maps as their paths read", "[hw][keys]") {
  const std::vector<std::string> device = varied_keys(device_keys());
  CHECK(device == std::vector<std::string>{"parallel_units", "clock", "peak.<precision>",
                                           "memory.capacity", "memory.bandwidth", "memory.l2_cache",
                                           "allocation.above", "allocation.bandwidth",
                                           "launch_latency", "copy_engines",
                                           "efficiency.<entry>.<parameter>"});
  const std::vector<std::string> collectives = varied_keys(collective_keys(), "collectives.");
  CHECK(collectives == std::vector<std::string>{"collectives.step_latency"});  // not bucket_cap
}

TEST_CASE("the loader sets each bound member from the file", "[hw][keys]") {
  // hw/catalog/devices/p100-sxm2.yaml and links/nvlink1-x2.yaml, through the Minsky.
  const SystemSpec s = load_system("minsky");
  const DeviceSpec& gpu = s.device("gpu0");
  CHECK(find_key(device_keys(), "memory.bandwidth")->get(gpu) == 732e9);
  CHECK(find_key(device_keys(), "parallel_units")->get(gpu) == 56);
  CHECK(find_key(device_keys(), "copy_engines")->get(gpu) == 3);
  CHECK(find_key(device_keys(), "launch_latency")->get(gpu) == Approx(5e-6));
  // The collectives' schema defaults, as minsky.yaml has no `collectives`: 9.2 us and 25 MiB.
  const HardwareKey<CollectiveSpec>* step = find_key(collective_keys(), "step_latency");
  const HardwareKey<CollectiveSpec>* bucket = find_key(collective_keys(), "bucket_cap");
  CHECK(step->get(s.runtime.collectives) == Approx(9.2e-6));
  CHECK(bucket->get(s.runtime.collectives) == 25.0 * 1024 * 1024);
}
