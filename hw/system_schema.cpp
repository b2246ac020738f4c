#include "hw/system_schema.h"

#include <fmt/format.h>

#include "hw/hardware_keys.h"

namespace amdahl::hw {

const std::vector<Field>& device_schema() {
  static const std::vector<Field> kFields = schema_of(device_keys());
  return kFields;
}

const std::vector<Field>& link_schema() {
  static const std::vector<Field> kFields = schema_of(link_keys());
  return kFields;
}

const std::vector<Field>& collectives_schema() {
  static const std::vector<Field> kFields = schema_of(collective_keys());
  return kFields;
}

const std::vector<Field>& runtime_schema() {
  static const std::vector<Field> kFields = schema_of(runtime_keys());
  return kFields;
}

const std::vector<Field>& system_schema() {
  static const std::vector<Field> kFields{
      string_field("name", "catalog name, e.g. 'minsky'").req(),
      string_field("description", "one line").req(),
      string_field("source", "where the topology comes from").req(),
      list_field("devices",
                 {string_field("name", "instance name, e.g. gpu0").req(),
                  string_field("include", "device file, relative to this file").req()},
                 "the devices")
          .req(),
      list_field("switches",
                 {string_field("name", "instance name, e.g. plx0").req(),
                  string_field("model", "e.g. 'PLX PEX 8764 PCIe 3.0 switch'").req()},
                 "PCIe switches: topology vertices that forward and compute nothing; links join "
                 "them to devices and to each other"),
      list_field("links",
                 {string_field("name", "instance name").req(),
                  string_field("from", "device or switch name").req(),
                  string_field("to", "device or switch name").req(),
                  string_field("include", "link file, relative to this file").req()},
                 "the links (topology)"),
      map_field("runtime", runtime_schema(), "the software runtime").req(),
      string_field("default_device", "device that runs ops unless placed otherwise").req(),
      string_field("measured_runs",
                   "measured-runs CSV of whole steps on this system (validate --measured's "
                   "format), relative to this file: `amdahl report` validates against it when "
                   "it exists"),
      int_field("nodes",
                "identical nodes, each with the devices and links above, joined by `network`")
          .within(1, 4096)
          .def("1"),
      map_field(
          "network",
          {string_field("include", "link file of one NIC link, relative to this file").req(),
           string_list_field("attach",
                             "the devices or switches of a node that have a NIC: one NIC link "
                             "each to the "
                             "fabric switch (a name twice: two NICs)")
               .req()},
          "the network between the nodes (one non-blocking switch): required when nodes > 1, "
          "an error when nodes is 1"),
  };
  return kFields;
}

}  // namespace amdahl::hw
