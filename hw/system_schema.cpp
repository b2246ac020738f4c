#include "hw/system_schema.h"

#include <fmt/format.h>

#include "hw/class_efficiency.h"
#include "hw/efficiency_key.h"
#include "hw/system.h"
#include "util/op_class.h"
#include "util/precision.h"

namespace amdahl::hw {

namespace {

// One field per row of the efficiency parameter table (hw/class_efficiency.h), in its order.
std::vector<Field> efficiency_fields() {
  std::vector<Field> fields;
  for (const EfficiencyParamSpec& p : efficiency_params()) {
    const std::string description =
        fmt::format("[{}] {}", p.group, std::string_view(p.description));
    Field f;
    switch (p.type) {
      case ParamType::kNumber:
        f = number_field(std::string(p.key), description);
        break;
      case ParamType::kInt:
        f = int_field(std::string(p.key), description);
        break;
      case ParamType::kBool:
        f = bool_field(std::string(p.key), description);
        break;
      case ParamType::kQuantity:
        f = quantity_field(std::string(p.key), p.dimension, description);
        break;
      case ParamType::kEnum:
        f = enum_field(std::string(p.key),
                       std::vector<std::string>(p.choices.begin(), p.choices.end()), description);
        break;
    }
    if (p.type != ParamType::kBool && p.type != ParamType::kEnum) {
      f.min_value = p.min;
      f.max_value = p.max;
      f.min_exclusive = p.min_exclusive;
    }
    fields.push_back(f.def(std::string(p.default_text)));
  }
  fields.push_back(string_field("source", "where these parameters come from"));
  return fields;
}

}  // namespace

const std::vector<Field>& device_schema() {
  static const std::vector<Field> kFields{
      string_field("name", "model name, e.g. 'Tesla P100 SXM2 16GB'").req(),
      enum_field("kind", {"cpu", "gpu", "accelerator"}, "device kind").req(),
      string_field("source", "datasheet, paper or file the numbers come from").req(),
      string_field("note", "free text"),
      int_field("parallel_units",
                "SMs (GPU), cores (CPU) or engines: the unit of wave quantization")
          .req()
          .positive(),
      quantity_field("clock", Dimension::kFrequency, "clock at which the peaks are quoted")
          .positive(),
      keyed_map_field(
          "peak", precision_names(),
          {quantity_field("rate", Dimension::kFlopRate, "peak rate").req().positive(),
           enum_field("unit", {"fma", "tensor", "simd", "matrix"}, "the unit that delivers it")
               .def("fma"),
           string_field("source", "where the rate comes from")},
          "peak FLOP/s per precision (fp32 required)"),
      map_field("memory",
                {quantity_field("capacity", Dimension::kBytes, "device memory").req().positive(),
                 quantity_field("bandwidth", Dimension::kBandwidth, "peak memory bandwidth")
                     .req()
                     .positive(),
                 quantity_field("l2_cache", Dimension::kBytes, "last-level cache").positive(),
                 string_field("source", "where the memory figures come from")},
                "memory")
          .req(),
      map_field("allocation",
                {quantity_field("above", Dimension::kBytes,
                                "outputs larger than this are fresh pages from the OS")
                     .req()
                     .non_negative(),
                 quantity_field("bandwidth", Dimension::kBandwidth,
                                "bytes per second such an output's pages fault in at")
                     .req()
                     .positive(),
                 string_field("source", "where the figures come from")},
                "CPU through a framework: the cost of fresh allocations (model/roofline.cpp)"),
      quantity_field("launch_latency", Dimension::kTime,
                     "fixed cost added to every kernel: the interval between back-to-back launches "
                     "(amdahl-cudabench launch mode=async)")
          .req()
          .non_negative(),
      int_field("copy_engines", "DMA engines for copies that overlap compute").positive().def("1"),
      bool_field("calibrated", "whether `efficiency` was fitted to measurements").req(),
      string_field("calibration", "provenance of the fitted efficiencies (file, date, machine)"),
      string_list_field("deepbench_datasets",
                        "DeepBench datasets measured on this card (`amdahl calibrate deepbench` "
                        "adjusts their rows from it to the card calibrated)"),
      string_field("efficiency_from",
                   "device file (relative to this file) whose efficiency entries this device "
                   "starts from; entries under `efficiency` replace them one by one"),
      keyed_map_field("efficiency", efficiency_key_names(), efficiency_fields(),
                      "per op class efficiency parameters; `default` applies to the rest"),
  };
  return kFields;
}

const std::vector<Field>& link_schema() {
  static const std::vector<Field> kFields{
      string_field("name", "link model, e.g. 'NVLink 1.0 x2'").req(),
      string_field("source", "datasheet, paper or file the numbers come from").req(),
      string_field("note", "free text"),
      quantity_field("bandwidth", Dimension::kBandwidth, "nominal bandwidth per direction")
          .req()
          .positive(),
      quantity_field("latency", Dimension::kTime, "per-copy latency").req().non_negative(),
      // Host copies: meaningful where the link joins a host CPU and an accelerator; a
      // device-to-device link (NVLink between GPUs, a CPU-CPU bus, a NIC) leaves them out.
      quantity_field("h2d_pinned", Dimension::kBandwidth,
                     "achieved host-to-device, pinned (host links; absent: bandwidth)")
          .positive(),
      quantity_field("d2h_pinned", Dimension::kBandwidth,
                     "achieved device-to-host, pinned (host links; absent: bandwidth)")
          .positive(),
      quantity_field("h2d_pageable", Dimension::kBandwidth,
                     "achieved host-to-device, pageable (host links; absent: bandwidth)")
          .positive(),
      quantity_field("d2h_pageable", Dimension::kBandwidth,
                     "achieved device-to-host, pageable (host links; absent: bandwidth)")
          .positive(),
      quantity_field("p2p", Dimension::kBandwidth,
                     "achieved device-to-device bandwidth per direction (CUDA "
                     "p2pBandwidthLatencyTest, unidirectional), what collectives use "
                     "(absent: bandwidth, listed under a collective's assumptions)")
          .positive(),
      bool_field("calibrated", "whether achieved bandwidths were measured").req(),
  };
  return kFields;
}

const std::vector<Field>& collectives_schema() {
  static const std::vector<Field> kFields{
      string_field("library", "collective library, e.g. 'nccl-2'"),
      enum_field("algorithm", {"auto", "ring", "tree"},
                 "ring, tree (double binary tree; all-reduce and broadcast), or auto: the faster "
                 "of the two for each size, as NCCL's tuner picks")
          .def("auto"),
      quantity_field("step_latency", Dimension::kTime,
                     "time of one ring or tree step, its hop included (absent: 9.2 us, fitted by "
                     "`calibrate allreduce` to DeepBench's P100 all-reduce runs, P100_baidu_2018: "
                     "PCIe, NCCL 2.0; an ASSUMPTION for NVLink and InfiniBand hops)")
          .non_negative()
          .def("9.2 us"),
      enum_field("variable_update", variable_update_names(),
                 "how data-parallel training exchanges gradients: ddp (PyTorch DDP, buckets "
                 "all-reduced), replicated (TensorFlow 1.x, one NCCL all-reduce per variable), "
                 "parameter-server-cpu or parameter-server-gpu (TensorFlow 1.x, variables on the "
                 "host CPU or spread over the GPUs)")
          .def("ddp"),
      bool_field("peer_links",
                 "whether the library moves data over links that join two accelerators "
                 "directly (NVLink); false: only through the host's PCIe tree, as NCCL 1.x on the "
                 "DGX-1 (P100) did (Tartan)")
          .def("true"),
      list_field("link_bandwidth",
                 {string_field("link", "a link model of this system (a link file's `name`)").req(),
                  quantity_field("bandwidth", Dimension::kBandwidth,
                                 "achieved per direction of one hop over such a link")
                      .req()
                      .positive(),
                  string_field("source", "where the number comes from").req()},
                 "the library's achieved hop bandwidth over links of a model, in place of the "
                 "link file's p2p (e.g. fitted by `calibrate allreduce --tartan`)"),
      quantity_field("bucket_cap", Dimension::kBytes,
                     "gradient bucket of data-parallel training (absent: 25 MiB, PyTorch DDP's "
                     "bucket_cap_mb default)")
          .positive()
          .def("25 MiB"),
      string_field("source", "where the numbers come from"),
  };
  return kFields;
}

const std::vector<Field>& runtime_schema() {
  static const std::vector<Field> kFields = [] {
    std::vector<std::string> op_classes;
    for (const std::string& c : op_class_names())
      if (c != op_class_name(OpClass::kOptimizer)) op_classes.push_back(c);
    std::vector<Field> engine;
    for (const EngineCostSpec& e : engine_cost_specs())
      engine.push_back(
          map_field(std::string(e.key),
                    {quantity_field("host", Dimension::kTime, "host time").req().non_negative(),
                     string_field("source", "where the number comes from").req()},
                    fmt::format("{} (absent: {})", e.description, e.fallback)));
    return std::vector<Field>{
        string_field("name", "software stack, e.g. 'tensorflow-1.x'").req(),
        string_field("source", "where the overheads come from").req(),
        quantity_field("dispatch_per_op", Dimension::kTime,
                       "host time to issue one op of a class without an `ops` entry")
            .req()
            .non_negative(),
        keyed_map_field("ops", op_classes,
                        {quantity_field("host", Dimension::kTime, "host time of one forward call")
                             .req()
                             .non_negative(),
                         quantity_field("backward", Dimension::kTime,
                                        "host time of one backward op (absent: `host`)")
                             .non_negative(),
                         int_field("kernels", "kernels one call launches").at_least(1).def("1"),
                         string_field("source", "where the numbers come from").req()},
                        "host cost of a framework call, by op class"),
        map_field("engine", engine, "host costs outside the operators"),
        map_field(
            "optimizer",
            {enum_field("impl", {"loop", "foreach", "fused"},
                        "one update call per parameter tensor, multi-tensor calls, or fused")
                 .def("loop"),
             quantity_field("step", Dimension::kTime,
                            "host per optimizer.step() (absent: 0 for loop, else dispatch_per_op)")
                 .non_negative(),
             quantity_field("per_param", Dimension::kTime,
                            "host per parameter tensor (absent: dispatch_per_op for loop, else 0)")
                 .non_negative(),
             int_field("kernels", "kernels per update op (loop: per tensor; else per step)")
                 .at_least(1)
                 .def("1"),
             string_field("source", "where the numbers come from")},
            "the optimizer update's host cost"),
        quantity_field("sync_latency", Dimension::kTime, "host-device round trip at a sync point")
            .non_negative()
            .def("10 us"),
        enum_field("sync", {"end_of_step", "after_loss", "none"},
                   "where the host waits for the device")
            .def("end_of_step"),
        bool_field("graph_capture",
                   "the step replayed from a captured graph: one launch per step, no per-op "
                   "dispatch")
            .def("false"),
        bool_field("compile", "compiled: each chain of elementwise ops fused into one kernel")
            .def("false"),
        bool_field("pinned_inputs", "step inputs copied from pinned host memory").def("true"),
        bool_field("calibrated", "whether the overheads were measured").req(),
        map_field("collectives", collectives_schema(),
                  "the collective library (model/collective.h); absent: every key's default"),
    };
  }();
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
