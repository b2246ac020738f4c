#include "hw/system_schema.h"

#include "util/precision.h"

namespace amdahl::hw {

const std::vector<std::string>& efficiency_class_names() {
  // The classes and phase entries, then the matrix ones at each tensor-core precision
  // (model/efficiency.h: "gemm.fp16" is gemm at fp16).
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names{
        "gemm", "conv", "rnn", "attention", "elementwise", "normalization", "reduction", "softmax",
        "embedding", "pooling", "data_movement", "optimizer", "transfer", "host", "default",
        "conv_bwd_data", "conv_bwd_filter",
        // CPU frameworks: the gradient GEMMs of linear layers, batch norm's and max pooling's
        // backward differ from their forward
        "gemm_bwd_data", "gemm_bwd_filter", "normalization_bwd_data", "pooling_bwd_data"};
    for (const char* key : {"gemm", "conv", "conv_bwd_data", "conv_bwd_filter", "rnn", "attention"})
      for (Precision precision : tensor_core_precisions())
        names.push_back(std::string(key) + precision_suffix(precision));
    return names;
  }();
  return kNames;
}

namespace {

std::vector<Field> efficiency_fields() {
  return {
      number_field("compute", "fraction of peak FLOP/s a large, well-shaped op reaches")
          .fraction()
          .def("0.75"),
      number_field("memory", "fraction of peak bandwidth a large op reaches").fraction().def("0.8"),
      int_field("tile_m",
                "output tile rows for tile and wave quantization (0: none); with a tile set, "
                "the rows of every candidate")
          .non_negative()
          .def("0"),
      int_field("tile_n", "output tile columns for tile and wave quantization (0: none)")
          .non_negative()
          .def("0"),
      number_field("k_half", "reduction depth reaching half of `compute` (0: none)")
          .non_negative()
          .def("0"),
      quantity_field("latency", Dimension::kTime, "fixed time per op beyond launch latency")
          .non_negative()
          .def("0 s"),
      quantity_field("half_bytes", Dimension::kBytes,
                     "bytes at which a memory-bound op reaches half its bandwidth (0: none)")
          .non_negative()
          .def("0 B"),
      number_field("cache_boost",
                   "bandwidth multiple of cache-resident operands over `memory` (>= 1; 1: none)")
          .at_least(1)
          .def("1"),
      quantity_field("cache_bytes", Dimension::kBytes,
                     "bytes at which the cache boost has fallen halfway to 1x (0: none)")
          .non_negative()
          .def("0 B"),
      number_field("thread_scaling", "CPU: parallel fraction for thread scaling (0: ideal)")
          .non_negative()
          .def("0"),
      int_field("tile_min",
                "smallest tile side of the tile set (0: none; tiles are tile_min x 2^i)")
          .non_negative()
          .def("0"),
      int_field("tile_max", "largest tile side of the tile set (0: none)").non_negative().def("0"),
      number_field("tile_reuse_half",
                   "tile intensity tm*tn/(tm+tn) at which a tile reaches half of `compute` (0: "
                   "none)")
          .non_negative()
          .def("0"),
      number_field("winograd",
                   "efficiency multiplier of 3x3 stride-1 convolutions (Winograd FLOP saving)")
          .non_negative()
          .def("1"),
      int_field("narrow_max",
                "GEMMs with min(m, n) <= narrow_max run on a narrow (GEMV-like) kernel (0: none)")
          .non_negative()
          .def("0"),
      number_field("narrow_compute", "fraction of peak FLOP/s of the narrow kernel (0: none)")
          .non_negative()
          .def("0"),
      enum_field("tile_choice", {"fill", "waste"},
                 "tile set: the tile an op runs on: the most efficient (fill: tile x wave x "
                 "reuse) or the one wasting least (waste: tile x reuse)")
          .def("fill"),
      number_field("strided_work",
                   "strided backward data: exponent on the stride^2 work fraction (1: all the "
                   "zero work, 0: none)")
          .non_negative()
          .def("1"),
      number_field("as_forward",
                   "conv_bwd_data: stride-1 data gradients cost this many times the forward "
                   "convolution they run as, through the conv entry (0: off)")
          .non_negative()
          .def("0"),
      number_field("split_k",
                   "efficiency fraction of split-K kernels for ops whose tiles leave units idle; "
                   "the faster of split and unsplit is taken (0: off)")
          .within(0, 1)
          .def("0"),
      bool_field("memory_in_series",
                 "the op's memory time adds to its compute time instead of overlapping it "
                 "(layout conversions around a library kernel)")
          .def("false"),
      bool_field("unblocked",
                 "GEMMs of a library without cache blocking (reference BLAS): each result row "
                 "re-reads the n x k operand; the cache step is keyed on that operand's size")
          .def("false"),
      int_field("gemm_pointwise_below_batch",
                "conv on a CPU framework: 1x1 stride-1 convolutions with batch below this run as "
                "im2col + GEMM, costed with the gemm entry (0: off)")
          .non_negative()
          .def("0"),
      number_field("gemm_single_max_input",
                   "conv on a CPU framework: ungrouped batch-1 convolutions with kernels of at "
                   "most 3x3 and at most this many input elements run as im2col + GEMM (0: off)")
          .non_negative()
          .def("0"),
      bool_field("winograd_algorithm",
                 "3x3 stride-1 convolutions: Winograd as its own algorithm (the transformed "
                 "GEMM, the faster of it and the direct one) rather than a factor")
          .def("false"),
      string_field("source", "where these parameters come from"),
  };
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
      keyed_map_field("efficiency", efficiency_class_names(), efficiency_fields(),
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
      quantity_field("h2d_pinned", Dimension::kBandwidth, "achieved host-to-device, pinned")
          .positive(),
      quantity_field("d2h_pinned", Dimension::kBandwidth, "achieved device-to-host, pinned")
          .positive(),
      quantity_field("h2d_pageable", Dimension::kBandwidth, "achieved host-to-device, pageable")
          .positive(),
      quantity_field("d2h_pageable", Dimension::kBandwidth, "achieved device-to-host, pageable")
          .positive(),
      bool_field("calibrated", "whether achieved bandwidths were measured").req(),
  };
  return kFields;
}

const std::vector<Field>& runtime_schema() {
  static const std::vector<Field> kFields{
      string_field("name", "software stack, e.g. 'tensorflow-1.x'").req(),
      string_field("source", "where the overheads come from").req(),
      quantity_field("dispatch_per_op", Dimension::kTime, "host time to issue one op")
          .req()
          .non_negative(),
      quantity_field("sync_latency", Dimension::kTime, "host-device round trip at a sync point")
          .non_negative()
          .def("10 us"),
      enum_field("sync", {"end_of_step", "after_loss", "none"},
                 "where the host waits for the device")
          .def("end_of_step"),
      enum_field("optimizer", {"per_tensor", "fused"},
                 "optimizer update: one op per tensor or fused")
          .def("per_tensor"),
      bool_field("graph_capture", "ops replayed from a captured graph (no per-op dispatch)")
          .def("false"),
      bool_field("pinned_inputs", "step inputs copied from pinned host memory").def("true"),
      bool_field("calibrated", "whether the overheads were measured").req(),
  };
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
      list_field(
          "links",
          {string_field("name", "instance name").req(), string_field("from", "device name").req(),
           string_field("to", "device name").req(),
           string_field("include", "link file, relative to this file").req()},
          "the links (topology)"),
      map_field("runtime", runtime_schema(), "the software runtime").req(),
      string_field("default_device", "device that runs ops unless placed otherwise").req(),
  };
  return kFields;
}

}  // namespace amdahl::hw
