#include "hw/hardware_keys.h"

#include <fmt/format.h>

#include "hw/class_efficiency.h"
#include "hw/efficiency_key.h"
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

// A keyed map's row, whose numbers explore varies as `varied_as` (hw/parameter.cpp).
template <class Spec>
HardwareKey<Spec> keyed(std::string path, Field field, std::string_view varied_as) {
  HardwareKey<Spec> k = plain_key<Spec>(std::move(path), std::move(field));
  k.varies = !varied_as.empty();
  k.varied_as = varied_as;
  return k;
}

// A row of a number held in an optional member (`ref(spec)`, set only when the file gives it),
// read as `resolved(spec)` (its fallback when absent), which `explore --vary` may set.
template <class Spec, class Ref, class Resolved>
HardwareKey<Spec> optional_key(std::string path, Field field, Ref ref, Resolved resolved) {
  HardwareKey<Spec> k = plain_key<Spec>(std::move(path), std::move(field));
  k.get = resolved;
  k.set = [ref](Spec& s, double v) { ref(s) = v; };
  k.varies = true;
  return k;
}

using D = DeviceSpec;
using L = LinkSpec;
using R = RuntimeSpec;
using C = CollectiveSpec;

// A link's achieved bandwidth: the nominal one when the file leaves it out.
HardwareKey<L> achieved(std::string path, Field field, double LinkSpec::*member) {
  HardwareKey<L> k = number_key<L>(
      std::move(path), std::move(field), [member](auto& l) -> auto& { return l.*member; });
  k.nominal_when_absent = true;
  return k;
}

}  // namespace

const std::vector<HardwareKey<DeviceSpec>>& device_keys() {
  static const std::vector<HardwareKey<D>> kKeys{
      plain_key<D>("name", string_field("", "model name, e.g. 'Tesla P100 SXM2 16GB'").req()),
      plain_key<D>("kind", enum_field("", {"cpu", "gpu", "accelerator"}, "device kind").req()),
      plain_key<D>("source",
                   string_field("", "datasheet, paper or file the numbers come from").req()),
      plain_key<D>("note", string_field("", "free text")),
      number_key<D>(
          "parallel_units",
          int_field("", "SMs (GPU), cores (CPU) or engines: the unit of wave quantization")
              .req()
              .positive(),
          [](auto& d) -> auto& { return d.parallel_units; }),
      number_key<D>(
          "clock",
          quantity_field("", Dimension::kFrequency, "clock at which the peaks are quoted")
              .positive(),
          [](auto& d) -> auto& { return d.clock_hz; }),
      keyed<D>(
          "peak",
          keyed_map_field(
              "", precision_names(),
              {quantity_field("rate", Dimension::kFlopRate, "peak rate").req().positive(),
               enum_field("unit", {"fma", "tensor", "simd", "matrix"}, "the unit that delivers it")
                   .def("fma"),
               string_field("source", "where the rate comes from")},
              "peak FLOP/s per precision (fp32 required)"),
          "peak.<precision>"),
      plain_key<D>("memory", map_field("", {}, "memory").req()),
      number_key<D>(
          "memory.capacity",
          quantity_field("", Dimension::kBytes, "device memory").req().positive(),
          [](auto& d) -> auto& { return d.memory.capacity_bytes; }),
      number_key<D>(
          "memory.bandwidth",
          quantity_field("", Dimension::kBandwidth, "peak memory bandwidth").req().positive(),
          [](auto& d) -> auto& { return d.memory.bandwidth_bytes_per_s; }),
      number_key<D>(
          "memory.l2_cache", quantity_field("", Dimension::kBytes, "last-level cache").positive(),
          [](auto& d) -> auto& { return d.memory.l2_bytes; }),
      plain_key<D>("memory.source", string_field("", "where the memory figures come from")),
      plain_key<D>("allocation", map_field("", {},
                                           "CPU through a framework: the cost of fresh allocations "
                                           "(model/roofline.cpp)")),
      number_key<D>(
          "allocation.above",
          quantity_field("", Dimension::kBytes,
                         "outputs larger than this are fresh pages from the OS")
              .req()
              .non_negative(),
          [](auto& d) -> auto& { return d.allocation.above_bytes; }),
      number_key<D>(
          "allocation.bandwidth",
          quantity_field("", Dimension::kBandwidth,
                         "bytes per second such an output's pages fault in at")
              .req()
              .positive(),
          [](auto& d) -> auto& { return d.allocation.bytes_per_s; }),
      plain_key<D>("allocation.source", string_field("", "where the figures come from")),
      number_key<D>(
          "launch_latency",
          quantity_field("", Dimension::kTime,
                         "fixed cost added to every kernel: the interval between "
                         "back-to-back launches (amdahl-cudabench launch mode=async)")
              .req()
              .non_negative(),
          [](auto& d) -> auto& { return d.launch_latency_s; }),
      number_key<D>(
          "copy_engines",
          int_field("", "DMA engines for copies that overlap compute").positive().def("1"),
          [](auto& d) -> auto& { return d.copy_engines; }),
      plain_key<D>("calibrated",
                   bool_field("", "whether `efficiency` was fitted to measurements").req()),
      plain_key<D>("calibration",
                   string_field("", "provenance of the fitted efficiencies (file, date, machine)")),
      plain_key<D>(
          "deepbench_datasets",
          string_list_field("",
                            "DeepBench datasets measured on this card (`amdahl calibrate "
                            "deepbench` adjusts their rows from it to the card calibrated)")),
      plain_key<D>(
          "efficiency_from",
          string_field("",
                       "device file (relative to this file) whose efficiency entries this "
                       "device starts from; entries under `efficiency` replace them one by "
                       "one")),
      keyed<D>("efficiency",
               keyed_map_field("", efficiency_key_names(), efficiency_fields(),
                               "per op class efficiency parameters; `default` applies to the rest"),
               "efficiency.<entry>.<parameter>"),
  };
  return kKeys;
}

const std::vector<HardwareKey<LinkSpec>>& link_keys() {
  static const std::vector<HardwareKey<L>> kKeys = [] {
    HardwareKey<L> bandwidth = number_key<L>(
        "bandwidth",
        quantity_field("", Dimension::kBandwidth, "nominal bandwidth per direction")
            .req()
            .positive(),
        [](auto& l) -> auto& { return l.bandwidth_bytes_per_s; });
    // Varied, the achieved bandwidths keep their fraction of the nominal one.
    bandwidth.vary = [](LinkSpec& l, const LinkSpec& b, double v) {
      const double r = v / b.bandwidth_bytes_per_s;
      l.bandwidth_bytes_per_s = v;
      l.h2d_pinned = b.h2d_pinned * r;
      l.d2h_pinned = b.d2h_pinned * r;
      l.h2d_pageable = b.h2d_pageable * r;
      l.d2h_pageable = b.d2h_pageable * r;
      if (b.p2p_bytes_per_s) l.p2p_bytes_per_s = *b.p2p_bytes_per_s * r;
    };
    // Absent, p2p is listed by the results that use it (Topology::p2p_assumption), not by the
    // link: a host copy's prediction lists this link's assumptions and uses no device-to-device
    // bandwidth.
    HardwareKey<L> p2p = optional_key<L>(
        "p2p",
        quantity_field("", Dimension::kBandwidth,
                       "achieved device-to-device bandwidth per direction (CUDA "
                       "p2pBandwidthLatencyTest, unidirectional), what collectives use "
                       "(absent: bandwidth, listed under a collective's assumptions)")
            .positive(),
        [](LinkSpec & l) -> auto& { return l.p2p_bytes_per_s; },
        [](const LinkSpec& l) { return l.p2p_bandwidth(); });
    return std::vector<HardwareKey<L>>{
        plain_key<L>("name", string_field("", "link model, e.g. 'NVLink 1.0 x2'").req()),
        plain_key<L>("source",
                     string_field("", "datasheet, paper or file the numbers come from").req()),
        plain_key<L>("note", string_field("", "free text")),
        bandwidth,
        number_key<L>(
            "latency",
            quantity_field("", Dimension::kTime, "per-copy latency").req().non_negative(),
            [](auto& l) -> auto& { return l.latency_s; }),
        // Host copies: meaningful where the link joins a host CPU and an accelerator; a
        // device-to-device link (NVLink between GPUs, a CPU-CPU bus, a NIC) leaves them out.
        achieved("h2d_pinned",
                 quantity_field("", Dimension::kBandwidth,
                                "achieved host-to-device, pinned (host links; absent: bandwidth)")
                     .positive(),
                 &LinkSpec::h2d_pinned),
        achieved("d2h_pinned",
                 quantity_field("", Dimension::kBandwidth,
                                "achieved device-to-host, pinned (host links; absent: bandwidth)")
                     .positive(),
                 &LinkSpec::d2h_pinned),
        achieved("h2d_pageable",
                 quantity_field("", Dimension::kBandwidth,
                                "achieved host-to-device, pageable (host links; absent: bandwidth)")
                     .positive(),
                 &LinkSpec::h2d_pageable),
        achieved("d2h_pageable",
                 quantity_field("", Dimension::kBandwidth,
                                "achieved device-to-host, pageable (host links; absent: bandwidth)")
                     .positive(),
                 &LinkSpec::d2h_pageable),
        p2p,
        plain_key<L>("calibrated",
                     bool_field("", "whether achieved bandwidths were measured").req()),
    };
  }();
  return kKeys;
}

const std::vector<HardwareKey<CollectiveSpec>>& collective_keys() {
  static const std::vector<HardwareKey<C>> kKeys{
      plain_key<C>("library", string_field("", "collective library, e.g. 'nccl-2'")),
      plain_key<C>("algorithm",
                   enum_field("", {"auto", "ring", "tree"},
                              "ring, tree (double binary tree; all-reduce and broadcast), or auto: "
                              "the faster of the two for each size, as NCCL's tuner picks")
                       .def("auto")),
      number_key<C>(
          "step_latency",
          quantity_field("", Dimension::kTime,
                         "time of one ring or tree step, its hop included (absent: 9.2 us, "
                         "fitted by `calibrate allreduce` to DeepBench's P100 all-reduce "
                         "runs, P100_baidu_2018: PCIe, NCCL 2.0; an ASSUMPTION for NVLink "
                         "and InfiniBand hops)")
              .non_negative()
              .def("9.2 us"),
          [](auto& c) -> auto& { return c.step_latency_s; }),
      plain_key<C>(
          "variable_update",
          enum_field("", variable_update_names(),
                     "how data-parallel training exchanges gradients: ddp (PyTorch DDP, "
                     "buckets all-reduced), replicated (TensorFlow 1.x, one NCCL all-reduce "
                     "per variable), parameter-server-cpu or parameter-server-gpu "
                     "(TensorFlow 1.x, variables on the host CPU or spread over the GPUs)")
              .def("ddp")),
      plain_key<C>(
          "peer_links",
          bool_field("",
                     "whether the library moves data over links that join two accelerators "
                     "directly (NVLink); false: only through the host's PCIe tree, as NCCL "
                     "1.x on the DGX-1 (P100) did (Tartan)")
              .def("true")),
      plain_key<C>(
          "link_bandwidth",
          list_field(
              "",
              {string_field("link", "a link model of this system (a link file's `name`)").req(),
               quantity_field("bandwidth", Dimension::kBandwidth,
                              "achieved per direction of one hop over such a link")
                   .req()
                   .positive(),
               string_field("source", "where the number comes from").req()},
              "the library's achieved hop bandwidth over links of a model, in place of "
              "the link file's p2p (e.g. fitted by `calibrate allreduce --tartan`)")),
      // Not varied: the bucket changes how a network is lowered.
      number_key<C>(
          "bucket_cap",
          quantity_field("", Dimension::kBytes,
                         "gradient bucket of data-parallel training (absent: 25 MiB, "
                         "PyTorch DDP's bucket_cap_mb default)")
              .positive()
              .def("25 MiB"),
          [](auto& c) -> auto& { return c.bucket_cap_bytes; }, false),
      plain_key<C>("source", string_field("", "where the numbers come from")),
  };
  return kKeys;
}

const std::vector<HardwareKey<RuntimeSpec>>& runtime_keys() {
  static const std::vector<HardwareKey<R>> kKeys = [] {
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
    // optimizer.step and per_param: given or not (their absence falls back on dispatch_per_op
    // by implementation, RuntimeSpec::optimizer_step_s).
    HardwareKey<R> step = optional_key<R>(
        "optimizer.step",
        quantity_field("", Dimension::kTime,
                       "host per optimizer.step() (absent: 0 for loop, else dispatch_per_op)")
            .non_negative(),
        [](RuntimeSpec & r) -> auto& { return r.optimizer.step_s; },
        [](const RuntimeSpec& r) { return r.optimizer_step_s(); });
    HardwareKey<R> per_param = optional_key<R>(
        "optimizer.per_param",
        quantity_field("", Dimension::kTime,
                       "host per parameter tensor (absent: dispatch_per_op for loop, else 0)")
            .non_negative(),
        [](RuntimeSpec & r) -> auto& { return r.optimizer.per_param_s; },
        [](const RuntimeSpec& r) { return r.optimizer_per_param_s(); });
    return std::vector<HardwareKey<R>>{
        plain_key<R>("name", string_field("", "software stack, e.g. 'tensorflow-1.x'").req()),
        plain_key<R>("source", string_field("", "where the overheads come from").req()),
        number_key<R>(
            "dispatch_per_op",
            quantity_field("", Dimension::kTime,
                           "host time to issue one op of a class without an `ops` entry")
                .req()
                .non_negative(),
            [](auto& r) -> auto& { return r.dispatch_per_op_s; }),
        keyed<R>("ops",
                 keyed_map_field(
                     "", op_classes,
                     {quantity_field("host", Dimension::kTime, "host time of one forward call")
                          .req()
                          .non_negative(),
                      quantity_field("backward", Dimension::kTime,
                                     "host time of one backward op (absent: `host`)")
                          .non_negative(),
                      int_field("kernels", "kernels one call launches").at_least(1).def("1"),
                      string_field("source", "where the numbers come from").req()},
                     "host cost of a framework call, by op class"),
                 "ops.<class>.host, ops.<class>.backward"),
        keyed<R>("engine", map_field("", engine, "host costs outside the operators"),
                 "engine.<cost>.host"),
        plain_key<R>("optimizer", map_field("", {}, "the optimizer update's host cost")),
        plain_key<R>(
            "optimizer.impl",
            enum_field("", {"loop", "foreach", "fused"},
                       "one update call per parameter tensor, multi-tensor calls, or fused")
                .def("loop")),
        step,
        per_param,
        // Not varied: the kernels counts change how a network is lowered.
        number_key<R>(
            "optimizer.kernels",
            int_field("", "kernels per update op (loop: per tensor; else per step)")
                .at_least(1)
                .def("1"),
            [](auto& r) -> auto& { return r.optimizer.kernels; }, false),
        plain_key<R>("optimizer.source", string_field("", "where the numbers come from")),
        number_key<R>(
            "sync_latency",
            quantity_field("", Dimension::kTime, "host-device round trip at a sync point")
                .non_negative()
                .def("10 us"),
            [](auto& r) -> auto& { return r.sync_latency_s; }),
        plain_key<R>("sync", enum_field("", {"end_of_step", "after_loss", "none"},
                                        "where the host waits for the device")
                                 .def("end_of_step")),
        plain_key<R>("graph_capture",
                     bool_field("",
                                "the step replayed from a captured graph: one launch per step, no "
                                "per-op dispatch")
                         .def("false")),
        plain_key<R>("compile",
                     bool_field("", "compiled: each chain of elementwise ops fused into one kernel")
                         .def("false")),
        plain_key<R>("pinned_inputs",
                     bool_field("", "step inputs copied from pinned host memory").def("true")),
        plain_key<R>("calibrated", bool_field("", "whether the overheads were measured").req()),
        plain_key<R>("collectives",
                     map_field("", schema_of(collective_keys()),
                               "the collective library (model/collective.h); absent: every key's "
                               "default")),
    };
  }();
  return kKeys;
}

}  // namespace amdahl::hw
