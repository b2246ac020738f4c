#pragma once
// SystemSpec: devices, links, runtime and topology of one machine, in SI units, validated.
// Built by load_system() from YAML; immutable plain structs afterwards (style.md rule 5).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/precision.h"

namespace amdahl::hw {

enum class DeviceKind { kCpu, kGpu, kAccelerator };
enum class ComputeUnit { kFma, kTensor, kSimd, kMatrix };

std::string_view device_kind_name(DeviceKind k);
std::string_view compute_unit_name(ComputeUnit u);

struct PeakRate {
  double flops_per_s = 0;
  ComputeUnit unit = ComputeUnit::kFma;
};

struct MemorySpec {
  double capacity_bytes = 0;
  double bandwidth_bytes_per_s = 0;
  double l2_bytes = 0;  // 0 when not given
};

// Fresh host allocations (a CPU run through a framework): an op whose output is larger than
// `above_bytes` gets it from the OS (glibc serves such sizes with mmap, 32 MiB at most), whose
// pages fault in as the op first writes them: time += output bytes / bytes_per_s
// (model/roofline.cpp). 0: none (GPUs; frameworks that cache their allocations).
struct AllocationSpec {
  double above_bytes = 0;
  double bytes_per_s = 0;
};

enum class TileChoice { kFill, kWaste };  // ClassEfficiency::tile_choice

// Calibrated efficiency of one op class on one device (see model/efficiency.h for the
// formulas that use these parameters). Fractions are of the device's roofline.
struct ClassEfficiency {
  double compute = 0;  // fraction of peak FLOP/s reached by a large, well-shaped op
  double memory = 0;   // fraction of peak bandwidth reached by a large op
  int tile_m = 0;      // GEMM/conv output tile (0: no tile quantization)
  int tile_n = 0;
  double k_half = 0;      // reduction depth at which half of `compute` is reached (0: none)
  double latency_s = 0;   // fixed time per op beyond the launch latency
  double half_bytes = 0;  // bytes at which a memory-bound op reaches half its bandwidth
  // Cache-resident operands (model/efficiency.h): small ops stream at up to cache_boost times
  // the DRAM fraction, fading to 1x around cache_bytes (cache_bytes 0: no cache term).
  double cache_boost = 1;
  double cache_bytes = 0;
  double thread_scaling = 0;  // CPU only: parallel fraction for Amdahl thread scaling (0: ideal)
  // Tile set (model/efficiency.h): candidate tiles tm x tn with tm, tn in tile_min x 2^i up to
  // tile_max; the op runs on the candidate with the highest efficiency (0: no tile set).
  int tile_min = 0;
  int tile_max = 0;
  double tile_reuse_half = 0;  // tile intensity tm*tn/(tm+tn) reaching half of `compute`
  double winograd = 1;         // efficiency multiplier of 3x3 stride-1 convolutions (>= 1)
  int narrow_max = 0;          // GEMMs with min(m, n) <= narrow_max run on a narrow kernel
  double narrow_compute = 0;   // its fraction of peak (no tile quantization; 0: none)
  // How the tile of a tile set is chosen (model/efficiency.h): kFill, the one with the highest
  // efficiency (tile x wave x reuse); kWaste, the one wasting least (tile x reuse), the wave
  // quantization it then suffers not considered.
  TileChoice tile_choice = TileChoice::kFill;
  // 3x3 stride-1 convolutions: Winograd as its own algorithm (the transformed GEMM on the same
  // tiles, the faster of it and the direct convolution) instead of a factor on the direct one.
  bool winograd_algorithm = false;
  // Strided backward data: the share of the stride^2 zero work the kernels do, as an exponent
  // on implicit_gemm_work_fraction (1: all of it, 0: none; model/efficiency.h).
  double strided_work = 1;
  // conv_bwd_data: stride-1 data gradients run as forward convolutions, costed with the `conv`
  // entry, their time multiplied by as_forward (model/efficiency.h; 0: off).
  double as_forward = 0;
  // An op whose tiles leave units idle may also run split over its reduction (split-K, partial
  // sums added atomically) at this fraction of the unsplit kernels' efficiency; the faster is
  // taken (model/efficiency.h; 0: off; calibrated for conv and conv_bwd_filter).
  double split_k = 0;
  // `conv` entry of a CPU calibrated through a framework: the convolutions the framework runs
  // as im2col + its BLAS GEMM rather than through its convolution library, costed with the
  // device's `gemm` entry (model/efficiency.h runs_as_gemm; PyTorch 1.13's use_mkldnn on one
  // thread): 1x1 stride-1 ones with batch below gemm_pointwise_below_batch, and ungrouped
  // batch-1 ones with square kernels of at most 3 whose input has at most gemm_single_max_input
  // elements. Measured by asking the framework which backend it picks (0: off).
  int gemm_pointwise_below_batch = 0;
  // The op's memory traffic runs before and after its compute instead of overlapping it (time
  // = compute + memory, not the larger): a library that converts the framework's layout into
  // its own and back on every call (oneDNN under PyTorch on a CPU).
  bool memory_in_series = false;
  // GEMM-like ops of a library without cache blocking (a reference BLAS): each of the m rows of
  // the result re-reads the n x k operand, m n k elements of traffic at the `memory` fraction,
  // the cache step keyed on that operand's size (model/efficiency.h memory_traffic).
  bool unblocked = false;
  double gemm_single_max_input = 0;
};

struct DeviceSpec {
  std::string name;   // instance name in the system ("gpu0")
  std::string model;  // "Tesla P100 SXM2 16GB"
  std::string file;   // where it was read
  DeviceKind kind = DeviceKind::kGpu;
  int parallel_units = 1;  // SMs or cores
  double clock_hz = 0;
  std::map<Precision, PeakRate> peak;
  MemorySpec memory;
  AllocationSpec allocation;
  double launch_latency_s = 0;
  int copy_engines = 1;
  bool calibrated = false;
  std::string calibration_source;
  std::map<std::string, ClassEfficiency> efficiency;  // by op class name, plus "default"
  std::vector<std::string> assumptions;               // defaults applied while loading

  // The peak for `p`, falling back to fp32 for tf32 when the device has no TF32 unit.
  // nullopt when the device has no rate at that precision.
  std::optional<PeakRate> peak_for(Precision p) const;
  // The efficiency for `op_class`, or the "default" entry.
  const ClassEfficiency& efficiency_for(const std::string& op_class) const;
};

struct LinkSpec {
  std::string name;
  std::string from;
  std::string to;
  std::string model;
  double bandwidth_bytes_per_s = 0;  // nominal, per direction
  double latency_s = 0;
  double h2d_pinned = 0;  // achieved bandwidths (B/s), host to device / device to host
  double d2h_pinned = 0;
  double h2d_pageable = 0;
  double d2h_pageable = 0;
  bool calibrated = false;
  std::vector<std::string> assumptions;
};

enum class SyncPoint { kEndOfStep, kAfterLoss, kNone };
enum class OptimizerMode { kPerTensor, kFused };

struct RuntimeSpec {
  std::string name;
  double dispatch_per_op_s = 0;  // host time to issue one op
  double sync_latency_s = 0;     // host<->device round trip at a synchronization point
  SyncPoint sync = SyncPoint::kEndOfStep;
  OptimizerMode optimizer = OptimizerMode::kPerTensor;
  bool graph_capture = false;
  bool pinned_inputs = true;
  bool calibrated = false;
  std::vector<std::string> assumptions;
};

struct SystemSpec {
  std::string name;
  std::string description;
  std::string file;
  std::vector<DeviceSpec> devices;
  std::vector<LinkSpec> links;
  RuntimeSpec runtime;
  std::string default_device;

  // Throws UserError listing the valid names when `name` is not a device.
  const DeviceSpec& device(const std::string& name) const;
  // The host CPU that drives `accelerator` (the far end of its link to a CPU), else the
  // first CPU; nullptr when the system has none.
  const DeviceSpec* host_of(const std::string& accelerator) const;
  // The link joining a and b in either direction, or nullptr.
  const LinkSpec* link_between(const std::string& a, const std::string& b) const;
  // Whether any number used from this system is uncalibrated.
  std::vector<std::string> uncalibrated_parts() const;
};

}  // namespace amdahl::hw
