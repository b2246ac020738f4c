#pragma once
// ClassEfficiency: the calibrated efficiency of one op class on one device, and the table that
// declares each of its parameters once: YAML key, the member it fills, unit, bounds, default,
// how a fit starts and moves it, how a calibrated file writes it, and its description. The
// device schema (hw/system_schema.cpp), the loader (hw/system_loader.cpp), the calibrated-file
// writer (calibrate/profile_writer.cpp), the fitter (calibrate/efficiency_fit.cpp) and
// `amdahl describe hw` are all driven by efficiency_params(); adding a parameter is a member
// below, its enumerator and its row, and its use in model/efficiency.cpp.
// The formulas that use the parameters are in model/efficiency.h.

#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "hw/units.h"

namespace amdahl::hw {

// How the tile of a tile set is chosen (model/efficiency.h): kFill, the one with the highest
// efficiency (tile x wave x reuse); kWaste, the one wasting least (tile x reuse), the wave
// quantization it then suffers not considered.
enum class TileChoice { kFill, kWaste };

// GEMM-like kernels: output tiles and their quantization, reduction depth, the narrow kernel
// family and split-K (model/efficiency.h).
struct GemmParams {
  int tile_m = 0;  // output tile (0: no tile quantization); with a tile set, its fixed rows
  int tile_n = 0;
  int tile_min = 0;  // tile set: candidates tile_min x 2^i up to tile_max (0: no tile set)
  int tile_max = 0;
  double tile_reuse_half = 0;  // tile intensity tm*tn/(tm+tn) reaching half of `compute`
  TileChoice tile_choice = TileChoice::kFill;
  double k_half = 0;          // reduction depth at which half of `compute` is reached (0: none)
  int narrow_max = 0;         // GEMMs with min(m, n) <= narrow_max run on a narrow kernel
  double narrow_compute = 0;  // its fraction of peak (0: none)
  double split_k = 0;         // split-K kernels' fraction of the unsplit efficiency (0: off)
};

// Convolution algorithms (model/efficiency.h): Winograd, strided data gradients, data gradients
// run as forward convolutions.
struct ConvAlgorithmParams {
  double winograd = 1;              // efficiency multiplier of 3x3 stride-1 convolutions (>= 1)
  bool winograd_algorithm = false;  // Winograd as its own algorithm, not a factor
  double strided_work = 1;          // exponent on the strided backward-data work fraction
  double as_forward = 0;  // conv_bwd_data: stride-1 ones cost this x their forward (0: off)
};

// Memory traffic: the latency-plus-bandwidth curve, the cache step, and how traffic relates to
// compute (model/efficiency.h).
struct MemoryTrafficParams {
  double half_bytes = 0;          // bytes at which a memory-bound op reaches half its bandwidth
  double cache_boost = 1;         // cache-resident operands stream at up to this x `memory`
  double cache_bytes = 0;         // where the boost has fallen halfway (0: no cache term)
  bool memory_in_series = false;  // memory time adds to compute time (layout conversions)
  bool unblocked = false;         // GEMM rows re-read the n x k operand (reference BLAS)
};

// A CPU run through a framework: thread scaling and the convolutions it runs as im2col + GEMM.
struct CpuBackendParams {
  double thread_scaling = 0;           // parallel fraction for Amdahl thread scaling (0: ideal)
  int gemm_pointwise_below_batch = 0;  // conv: 1x1 stride-1 below this batch as GEMM (0: off)
  double gemm_single_max_input = 0;    // conv: batch-1 <= 3x3 with <= this input as GEMM (0: off)
};

// Fractions are of the device's roofline.
struct ClassEfficiency {
  double compute = 0;    // fraction of peak FLOP/s reached by a large, well-shaped op
  double memory = 0;     // fraction of peak bandwidth reached by a large op
  double latency_s = 0;  // fixed time per op beyond the launch latency
  GemmParams gemm;
  ConvAlgorithmParams conv;
  MemoryTrafficParams traffic;
  CpuBackendParams cpu;
};

// One enumerator per parameter, in the order of efficiency_params() (the order a calibrated
// file writes them in).
enum class EfficiencyParam {
  kCompute,
  kMemory,
  kTileM,
  kTileN,
  kTileMin,
  kTileMax,
  kTileChoice,
  kTileReuseHalf,
  kNarrowMax,
  kNarrowCompute,
  kWinograd,
  kWinogradAlgorithm,
  kStridedWork,
  kAsForward,
  kSplitK,
  kMemoryInSeries,
  kUnblocked,
  kGemmPointwiseBelowBatch,
  kGemmSingleMaxInput,
  kKHalf,
  kLatency,
  kHalfBytes,
  kCacheBoost,
  kCacheBytes,
  kThreadScaling,
};

enum class ParamType { kNumber, kInt, kBool, kQuantity, kEnum };

// How a fit moves a free parameter: in an unconstrained coordinate u.
enum class FitTransform {
  kFixed,     // never fitted
  kFraction,  // (0, 1): logistic(u)
  kPositive,  // (0, inf): exp(u)
  kRange,     // (fit_min, fit_max): fit_min + (fit_max - fit_min) logistic(u)
  kAboveOne,  // (1, inf): 1 + exp(u)
  kBelow,     // (0, a bound the fit sets from its samples): bound x logistic(u)
};

// How a calibrated file writes the value: significant digits, an integer, whole units.
enum class WriteFormat { kSignificant, kInteger, kWhole, kText };

struct EfficiencyParamSpec {
  EfficiencyParam id;
  std::string_view key;    // YAML key
  std::string_view group;  // the ClassEfficiency group it belongs to, for describe hw
  ParamType type;
  Dimension dimension;                    // kQuantity: the unit's dimension
  double (*get)(const ClassEfficiency&);  // enums: the enumerator's index; bools: 0 or 1
  void (*set)(ClassEfficiency&, double);
  // Schema bounds: [min, max], or (min, max] with min_exclusive.
  double min;
  double max;
  bool min_exclusive;
  std::string_view default_text;          // the schema default ("0 s", "fill")
  double default_value;                   // the same as a number (enums: index)
  std::vector<std::string_view> choices;  // kEnum, in enumerator order
  FitTransform transform;
  double fit_min;  // kRange
  double fit_max;
  double start;       // a fit's starting value where the base entry gives none (or always, below)
  bool start_always;  // the default is the edge of the range ("term off"), where no fit starts
  WriteFormat format;
  double write_scale;           // value x scale is written ...
  std::string_view write_unit;  // ... followed by this unit ("us", "B"; empty: none)
  // Whether a calibrated file writes it; nullptr: when it differs from default_value.
  bool (*written)(const ClassEfficiency&);
  std::string_view description;
};

namespace detail {

template <class T>
double to_double(T v) {
  if constexpr (std::is_enum_v<T>)
    return static_cast<double>(static_cast<int>(v));
  else
    return static_cast<double>(v);
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != 0;
  else if constexpr (std::is_enum_v<T>)
    return static_cast<T>(static_cast<int>(v));
  else
    return static_cast<T>(v);
}

// get and set of the member reached through the member pointers `Path` (a group, then its
// member; or a member of ClassEfficiency itself).
template <auto... Path>
constexpr double get(const ClassEfficiency& e) {
  return to_double((e.*....*Path));
}
template <auto... Path>
constexpr void set(ClassEfficiency& e, double v) {
  auto& member = (e.*....*Path);
  member = from_double<std::remove_cvref_t<decltype(member)>>(v);
}

inline bool always(const ClassEfficiency&) { return true; }

}  // namespace detail

// The table (hw/class_efficiency.cpp would split one concept over two files; it lives here).
inline const std::vector<EfficiencyParamSpec>& efficiency_params() {
  using CE = ClassEfficiency;
  using P = EfficiencyParam;
  using T = ParamType;
  using F = FitTransform;
  using W = WriteFormat;
  constexpr auto kNone = Dimension::kDimensionless;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  static const std::vector<EfficiencyParamSpec> kParams{
      {P::kCompute,
       "compute",
       "roofline",
       T::kNumber,
       kNone,
       detail::get<&CE::compute>,
       detail::set<&CE::compute>,
       0,
       1,
       true,
       "0.75",
       0.75,
       {},
       F::kFraction,
       0,
       0,
       0.75,
       false,
       W::kSignificant,
       1,
       "",
       detail::always,
       "fraction of peak FLOP/s a large, well-shaped op reaches"},
      {P::kMemory,
       "memory",
       "roofline",
       T::kNumber,
       kNone,
       detail::get<&CE::memory>,
       detail::set<&CE::memory>,
       0,
       1,
       true,
       "0.8",
       0.8,
       {},
       F::kFraction,
       0,
       0,
       0.8,
       false,
       W::kSignificant,
       1,
       "",
       detail::always,
       "fraction of peak bandwidth a large op reaches"},
      {P::kTileM,
       "tile_m",
       "gemm",
       T::kInt,
       kNone,
       detail::get<&CE::gemm, &GemmParams::tile_m>,
       detail::set<&CE::gemm, &GemmParams::tile_m>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kInteger,
       1,
       "",
       nullptr,
       "output tile rows for tile and wave quantization (0: none); with a tile set, the rows of "
       "every candidate"},
      {P::kTileN,
       "tile_n",
       "gemm",
       T::kInt,
       kNone,
       detail::get<&CE::gemm, &GemmParams::tile_n>,
       detail::set<&CE::gemm, &GemmParams::tile_n>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kInteger,
       1,
       "",
       nullptr,
       "output tile columns for tile and wave quantization (0: none)"},
      {P::kTileMin,
       "tile_min",
       "gemm",
       T::kInt,
       kNone,
       detail::get<&CE::gemm, &GemmParams::tile_min>,
       detail::set<&CE::gemm, &GemmParams::tile_min>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kInteger,
       1,
       "",
       [](const CE& e) { return e.gemm.tile_min > 0 || e.gemm.tile_max > 0; },
       "smallest tile side of the tile set (0: none; tiles are tile_min x 2^i)"},
      {P::kTileMax,
       "tile_max",
       "gemm",
       T::kInt,
       kNone,
       detail::get<&CE::gemm, &GemmParams::tile_max>,
       detail::set<&CE::gemm, &GemmParams::tile_max>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kInteger,
       1,
       "",
       [](const CE& e) { return e.gemm.tile_min > 0 || e.gemm.tile_max > 0; },
       "largest tile side of the tile set (0: none)"},
      {P::kTileChoice,
       "tile_choice",
       "gemm",
       T::kEnum,
       kNone,
       detail::get<&CE::gemm, &GemmParams::tile_choice>,
       detail::set<&CE::gemm, &GemmParams::tile_choice>,
       0,
       kInf,
       false,
       "fill",
       0,
       {"fill", "waste"},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kText,
       1,
       "",
       nullptr,
       "tile set: the tile an op runs on: the most efficient (fill: tile x wave x reuse) or the "
       "one wasting least (waste: tile x reuse)"},
      // Reuse applies to tiles only: a fit without tiles leaves it unused, and unwritten.
      {P::kTileReuseHalf,
       "tile_reuse_half",
       "gemm",
       T::kNumber,
       kNone,
       detail::get<&CE::gemm, &GemmParams::tile_reuse_half>,
       detail::set<&CE::gemm, &GemmParams::tile_reuse_half>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kPositive,
       0,
       0,
       16 /* the intensity of a 32 x 32 tile */,
       false,
       W::kSignificant,
       1,
       "",
       [](const CE& e) {
         return e.gemm.tile_reuse_half > 0 && (e.gemm.tile_min > 0 || e.gemm.tile_m > 0);
       },
       "tile intensity tm*tn/(tm+tn) at which a tile reaches half of `compute` (0: none)"},
      {P::kNarrowMax,
       "narrow_max",
       "gemm",
       T::kInt,
       kNone,
       detail::get<&CE::gemm, &GemmParams::narrow_max>,
       detail::set<&CE::gemm, &GemmParams::narrow_max>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kInteger,
       1,
       "",
       [](const CE& e) { return e.gemm.narrow_max > 0 && e.gemm.narrow_compute > 0; },
       "GEMMs with min(m, n) <= narrow_max run on a narrow (GEMV-like) kernel (0: none)"},
      {P::kNarrowCompute,
       "narrow_compute",
       "gemm",
       T::kNumber,
       kNone,
       detail::get<&CE::gemm, &GemmParams::narrow_compute>,
       detail::set<&CE::gemm, &GemmParams::narrow_compute>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFraction,
       0,
       0,
       0.2,
       false,
       W::kSignificant,
       1,
       "",
       [](const CE& e) { return e.gemm.narrow_max > 0 && e.gemm.narrow_compute > 0; },
       "fraction of peak FLOP/s of the narrow kernel (0: none)"},
      // Winograd's range: 1 (no saving) to 4 (F(4x4,3x3)'s multiplication saving).
      {P::kWinograd,
       "winograd",
       "conv",
       T::kNumber,
       kNone,
       detail::get<&CE::conv, &ConvAlgorithmParams::winograd>,
       detail::set<&CE::conv, &ConvAlgorithmParams::winograd>,
       0,
       kInf,
       false,
       "1",
       1,
       {},
       F::kRange,
       1,
       4,
       1.5 /* mid-range */,
       true,
       W::kSignificant,
       1,
       "",
       nullptr,
       "efficiency multiplier of 3x3 stride-1 convolutions (Winograd FLOP saving)"},
      {P::kWinogradAlgorithm,
       "winograd_algorithm",
       "conv",
       T::kBool,
       kNone,
       detail::get<&CE::conv, &ConvAlgorithmParams::winograd_algorithm>,
       detail::set<&CE::conv, &ConvAlgorithmParams::winograd_algorithm>,
       0,
       1,
       false,
       "false",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kText,
       1,
       "",
       nullptr,
       "3x3 stride-1 convolutions: Winograd as its own algorithm (the transformed GEMM, the "
       "faster of it and the direct one) rather than a factor"},
      {P::kStridedWork,
       "strided_work",
       "conv",
       T::kNumber,
       kNone,
       detail::get<&CE::conv, &ConvAlgorithmParams::strided_work>,
       detail::set<&CE::conv, &ConvAlgorithmParams::strided_work>,
       0,
       kInf,
       false,
       "1",
       1,
       {},
       F::kFraction,
       0,
       0,
       0.5 /* mid-range */,
       true,
       W::kSignificant,
       1,
       "",
       nullptr,
       "strided backward data: exponent on the stride^2 work fraction (1: all the zero work, 0: "
       "none)"},
      {P::kAsForward,
       "as_forward",
       "conv",
       T::kNumber,
       kNone,
       detail::get<&CE::conv, &ConvAlgorithmParams::as_forward>,
       detail::set<&CE::conv, &ConvAlgorithmParams::as_forward>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kPositive,
       0,
       0,
       1 /* as fast as the forward */,
       false,
       W::kSignificant,
       1,
       "",
       nullptr,
       "conv_bwd_data: stride-1 data gradients cost this many times the forward convolution "
       "they run as, through the conv entry (0: off)"},
      {P::kSplitK,
       "split_k",
       "gemm",
       T::kNumber,
       kNone,
       detail::get<&CE::gemm, &GemmParams::split_k>,
       detail::set<&CE::gemm, &GemmParams::split_k>,
       0,
       1,
       false,
       "0",
       0,
       {},
       F::kFraction,
       0,
       0,
       0.5 /* mid-range */,
       false,
       W::kSignificant,
       1,
       "",
       nullptr,
       "efficiency fraction of split-K kernels for ops whose tiles leave units idle; the faster "
       "of split and unsplit is taken (0: off)"},
      {P::kMemoryInSeries,
       "memory_in_series",
       "traffic",
       T::kBool,
       kNone,
       detail::get<&CE::traffic, &MemoryTrafficParams::memory_in_series>,
       detail::set<&CE::traffic, &MemoryTrafficParams::memory_in_series>,
       0,
       1,
       false,
       "false",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kText,
       1,
       "",
       nullptr,
       "the op's memory time adds to its compute time instead of overlapping it (layout "
       "conversions around a library kernel)"},
      {P::kUnblocked,
       "unblocked",
       "traffic",
       T::kBool,
       kNone,
       detail::get<&CE::traffic, &MemoryTrafficParams::unblocked>,
       detail::set<&CE::traffic, &MemoryTrafficParams::unblocked>,
       0,
       1,
       false,
       "false",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kText,
       1,
       "",
       nullptr,
       "GEMMs of a library without cache blocking (reference BLAS): each result row re-reads "
       "the n x k operand; the cache step is keyed on that operand's size"},
      {P::kGemmPointwiseBelowBatch,
       "gemm_pointwise_below_batch",
       "cpu",
       T::kInt,
       kNone,
       detail::get<&CE::cpu, &CpuBackendParams::gemm_pointwise_below_batch>,
       detail::set<&CE::cpu, &CpuBackendParams::gemm_pointwise_below_batch>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kInteger,
       1,
       "",
       nullptr,
       "conv on a CPU framework: 1x1 stride-1 convolutions with batch below this run as im2col "
       "+ GEMM, costed with the gemm entry (0: off)"},
      {P::kGemmSingleMaxInput,
       "gemm_single_max_input",
       "cpu",
       T::kNumber,
       kNone,
       detail::get<&CE::cpu, &CpuBackendParams::gemm_single_max_input>,
       detail::set<&CE::cpu, &CpuBackendParams::gemm_single_max_input>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFixed,
       0,
       0,
       0,
       false,
       W::kWhole,
       1,
       "",
       nullptr,
       "conv on a CPU framework: ungrouped batch-1 convolutions with kernels of at most 3x3 and "
       "at most this many input elements run as im2col + GEMM (0: off)"},
      // Start values where the base gives none (0 switches a model term off, which has no
      // gradient): a k_half of 64 and a half_bytes of 64 kB are mid-range for GPUs and CPUs, a
      // 1 us latency is a kernel's typical fixed cost, 0.9 a typical parallel fraction.
      {P::kKHalf,
       "k_half",
       "gemm",
       T::kNumber,
       kNone,
       detail::get<&CE::gemm, &GemmParams::k_half>,
       detail::set<&CE::gemm, &GemmParams::k_half>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kPositive,
       0,
       0,
       64,
       false,
       W::kSignificant,
       1,
       "",
       nullptr,
       "reduction depth reaching half of `compute` (0: none)"},
      {P::kLatency,
       "latency",
       "roofline",
       T::kQuantity,
       Dimension::kTime,
       detail::get<&CE::latency_s>,
       detail::set<&CE::latency_s>,
       0,
       kInf,
       false,
       "0 s",
       0,
       {},
       F::kPositive,
       0,
       0,
       1e-6,
       false,
       W::kSignificant,
       1e6,
       "us",
       nullptr,
       "fixed time per op beyond launch latency"},
      {P::kHalfBytes,
       "half_bytes",
       "traffic",
       T::kQuantity,
       Dimension::kBytes,
       detail::get<&CE::traffic, &MemoryTrafficParams::half_bytes>,
       detail::set<&CE::traffic, &MemoryTrafficParams::half_bytes>,
       0,
       kInf,
       false,
       "0 B",
       0,
       {},
       F::kPositive,
       0,
       0,
       64e3,
       false,
       W::kWhole,
       1,
       "B",
       nullptr,
       "bytes at which a memory-bound op reaches half its bandwidth (0: none)"},
      // The cache pair is written together, whenever there is a cache step.
      {P::kCacheBoost,
       "cache_boost",
       "traffic",
       T::kNumber,
       kNone,
       detail::get<&CE::traffic, &MemoryTrafficParams::cache_boost>,
       detail::set<&CE::traffic, &MemoryTrafficParams::cache_boost>,
       1,
       kInf,
       false,
       "1",
       1,
       {},
       F::kAboveOne,
       0,
       0,
       2 /* caches at twice the DRAM bandwidth */,
       true,
       W::kSignificant,
       1,
       "",
       [](const CE& e) { return e.traffic.cache_bytes > 0; },
       "bandwidth multiple of cache-resident operands over `memory` (>= 1; 1: none)"},
      {P::kCacheBytes,
       "cache_bytes",
       "traffic",
       T::kQuantity,
       Dimension::kBytes,
       detail::get<&CE::traffic, &MemoryTrafficParams::cache_bytes>,
       detail::set<&CE::traffic, &MemoryTrafficParams::cache_bytes>,
       0,
       kInf,
       false,
       "0 B",
       0,
       {},
       F::kBelow,
       0,
       0,
       1 << 20 /* a CPU core's L2, a small GPU L2 */,
       false,
       W::kWhole,
       1,
       "B",
       [](const CE& e) { return e.traffic.cache_bytes > 0; },
       "bytes at which the cache boost has fallen halfway to 1x (0: none)"},
      {P::kThreadScaling,
       "thread_scaling",
       "cpu",
       T::kNumber,
       kNone,
       detail::get<&CE::cpu, &CpuBackendParams::thread_scaling>,
       detail::set<&CE::cpu, &CpuBackendParams::thread_scaling>,
       0,
       kInf,
       false,
       "0",
       0,
       {},
       F::kFraction,
       0,
       0,
       0.9,
       false,
       W::kSignificant,
       1,
       "",
       nullptr,
       "CPU: parallel fraction for thread scaling (0: ideal)"},
  };
  return kParams;
}

// The row of `id` (efficiency_params() is in enumerator order).
inline const EfficiencyParamSpec& efficiency_param(EfficiencyParam id) {
  return efficiency_params()[static_cast<std::size_t>(id)];
}

// The group names of efficiency_params(), with what each holds, in order.
struct ParamGroup {
  std::string_view name;
  std::string_view description;
};
inline const std::vector<ParamGroup>& efficiency_param_groups() {
  static const std::vector<ParamGroup> kGroups{
      {"roofline", "fractions of the roofline and fixed time"},
      {"gemm", "tiles and GEMM: tile and wave quantization, depth, narrow kernels, split-K"},
      {"conv", "convolution algorithms: Winograd, strided data gradients, as forward"},
      {"traffic", "memory: the bandwidth curve, the cache step, traffic against compute"},
      {"cpu", "CPU backend: thread scaling, im2col + GEMM convolutions"},
  };
  return kGroups;
}

}  // namespace amdahl::hw
