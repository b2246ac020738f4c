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
  double unaligned = 0;       // tensor-core ops with a dim off 16-byte alignment: fraction (0: off)
};

// Convolution algorithms (model/efficiency.h, model/fft.h): Winograd, FFT, strided data
// gradients, data gradients run as forward convolutions.
struct ConvAlgorithmParams {
  double winograd = 1;              // efficiency multiplier of 3x3 stride-1 convolutions (>= 1)
  bool winograd_algorithm = false;  // Winograd as its own algorithm, not a factor
  bool fft_algorithm = false;       // stride-1 ones may run as FFT convolutions (model/fft.h)
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
  kFftAlgorithm,
  kStridedWork,
  kAsForward,
  kSplitK,
  kUnaligned,
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

// Reading and writing a parameter's member as a number (enums: the enumerator's index; bools:
// 0 or 1).
struct ParamAccess {
  double (*get)(const ClassEfficiency&) = nullptr;
  void (*set)(ClassEfficiency&, double) = nullptr;
};

// One row of the table. Rows name only what differs from these defaults (a plain number,
// default 0, not fitted, written with significant digits when it is not its default).
struct EfficiencyParamSpec {
  EfficiencyParam id;
  std::string_view key;    // YAML key
  std::string_view group;  // the ClassEfficiency group it belongs to, for describe hw
  ParamType type = ParamType::kNumber;
  Dimension dimension = Dimension::kDimensionless;  // kQuantity: the unit's dimension
  ParamAccess access;
  // Schema bounds: [min, max], or (min, max] with min_exclusive.
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  std::string_view default_text = "0";         // the schema default ("0 s", "fill")
  double default_value = 0;                    // the same as a number (enums: index)
  std::vector<std::string_view> choices = {};  // kEnum, in enumerator order
  FitTransform transform = FitTransform::kFixed;
  double fit_min = 0;  // kRange
  double fit_max = 0;
  double start = 0;  // a fit's starting value where the base entry gives none (or always, below)
  bool start_always =
      false;  // the default is the edge of the range ("term off"), where no fit starts
  WriteFormat format = WriteFormat::kSignificant;
  double write_scale = 1;            // value x scale is written ...
  std::string_view write_unit = {};  // ... followed by this unit ("us", "B"; empty: none)
  // Whether a calibrated file writes it; nullptr: when it differs from default_value.
  bool (*written)(const ClassEfficiency&) = nullptr;
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

// The member reached through the member pointers `Path` (a group, then its member; or a member
// of ClassEfficiency itself).
template <auto... Path>
inline constexpr ParamAccess member{
    [](const ClassEfficiency& e) { return to_double((e.*....*Path)); },
    [](ClassEfficiency& e, double v) {
      auto& m = (e.*....*Path);
      m = from_double<std::remove_cvref_t<decltype(m)>>(v);
    }};

inline bool always(const ClassEfficiency&) { return true; }
inline bool tile_set_given(const ClassEfficiency& e) {
  return e.gemm.tile_min > 0 || e.gemm.tile_max > 0;
}
inline bool narrow_kernel_given(const ClassEfficiency& e) {
  return e.gemm.narrow_max > 0 && e.gemm.narrow_compute > 0;
}
inline bool cache_step_given(const ClassEfficiency& e) { return e.traffic.cache_bytes > 0; }

}  // namespace detail

// The table, in enumerator order (also the order a calibrated file writes the parameters in).
inline const std::vector<EfficiencyParamSpec>& efficiency_params() {
  using CE = ClassEfficiency;
  using G = GemmParams;
  using C = ConvAlgorithmParams;
  using M = MemoryTrafficParams;
  using U = CpuBackendParams;
  using P = EfficiencyParam;
  using T = ParamType;
  using F = FitTransform;
  using W = WriteFormat;
  // clang-format off: one row per parameter, its fields in declaration order
  static const std::vector<EfficiencyParamSpec> kParams{
      {.id = P::kCompute,
       .key = "compute",
       .group = "roofline",
       .access = detail::member<&CE::compute>,
       .max = 1,
       .min_exclusive = true,
       .default_text = "0.75",
       .default_value = 0.75,
       .transform = F::kFraction,
       .start = 0.75,
       .written = detail::always,
       .description = "fraction of peak FLOP/s a large, well-shaped op reaches"},
      {.id = P::kMemory,
       .key = "memory",
       .group = "roofline",
       .access = detail::member<&CE::memory>,
       .max = 1,
       .min_exclusive = true,
       .default_text = "0.8",
       .default_value = 0.8,
       .transform = F::kFraction,
       .start = 0.8,
       .written = detail::always,
       .description = "fraction of peak bandwidth a large op reaches"},
      {.id = P::kTileM,
       .key = "tile_m",
       .group = "gemm",
       .type = T::kInt,
       .access = detail::member<&CE::gemm, &G::tile_m>,
       .format = W::kInteger,
       .description = "output tile rows for tile and wave quantization (0: none); with a tile "
                      "set, the rows of every candidate"},
      {.id = P::kTileN,
       .key = "tile_n",
       .group = "gemm",
       .type = T::kInt,
       .access = detail::member<&CE::gemm, &G::tile_n>,
       .format = W::kInteger,
       .description = "output tile columns for tile and wave quantization (0: none)"},
      {.id = P::kTileMin,
       .key = "tile_min",
       .group = "gemm",
       .type = T::kInt,
       .access = detail::member<&CE::gemm, &G::tile_min>,
       .format = W::kInteger,
       .written = detail::tile_set_given,
       .description = "smallest tile side of the tile set (0: none; tiles are tile_min x 2^i)"},
      {.id = P::kTileMax,
       .key = "tile_max",
       .group = "gemm",
       .type = T::kInt,
       .access = detail::member<&CE::gemm, &G::tile_max>,
       .format = W::kInteger,
       .written = detail::tile_set_given,
       .description = "largest tile side of the tile set (0: none)"},
      {.id = P::kTileChoice,
       .key = "tile_choice",
       .group = "gemm",
       .type = T::kEnum,
       .access = detail::member<&CE::gemm, &G::tile_choice>,
       .default_text = "fill",
       .choices = {"fill", "waste"},
       .format = W::kText,
       .description = "tile set: the tile an op runs on: the most efficient (fill: tile x wave "
                      "x reuse) or the one wasting least (waste: tile x reuse)"},
      // Reuse applies to tiles only: a fit without tiles leaves it unused, and unwritten.
      {.id = P::kTileReuseHalf,
       .key = "tile_reuse_half",
       .group = "gemm",
       .access = detail::member<&CE::gemm, &G::tile_reuse_half>,
       .transform = F::kPositive,
       .start = 16 /* the intensity of a 32 x 32 tile */,
       .written =
           [](const CE& e) {
             return e.gemm.tile_reuse_half > 0 && (e.gemm.tile_min > 0 || e.gemm.tile_m > 0);
           },
       .description = "tile intensity tm*tn/(tm+tn) at which a tile reaches half of `compute` "
                      "(0: none)"},
      {.id = P::kNarrowMax,
       .key = "narrow_max",
       .group = "gemm",
       .type = T::kInt,
       .access = detail::member<&CE::gemm, &G::narrow_max>,
       .format = W::kInteger,
       .written = detail::narrow_kernel_given,
       .description = "GEMMs with min(m, n) <= narrow_max run on a narrow (GEMV-like) kernel "
                      "(0: none)"},
      {.id = P::kNarrowCompute,
       .key = "narrow_compute",
       .group = "gemm",
       .access = detail::member<&CE::gemm, &G::narrow_compute>,
       .transform = F::kFraction,
       .start = 0.2,
       .written = detail::narrow_kernel_given,
       .description = "fraction of peak FLOP/s of the narrow kernel (0: none)"},
      // Winograd's range: 1 (no saving) to 4 (F(4x4,3x3)'s multiplication saving).
      {.id = P::kWinograd,
       .key = "winograd",
       .group = "conv",
       .access = detail::member<&CE::conv, &C::winograd>,
       .default_text = "1",
       .default_value = 1,
       .transform = F::kRange,
       .fit_min = 1,
       .fit_max = 4,
       .start = 1.5 /* mid-range */,
       .start_always = true,
       .description = "efficiency multiplier of 3x3 stride-1 convolutions (Winograd FLOP "
                      "saving)"},
      {.id = P::kWinogradAlgorithm,
       .key = "winograd_algorithm",
       .group = "conv",
       .type = T::kBool,
       .access = detail::member<&CE::conv, &C::winograd_algorithm>,
       .max = 1,
       .default_text = "false",
       .format = W::kText,
       .description = "3x3 stride-1 convolutions: Winograd as its own algorithm (the "
                      "transformed GEMM, the faster of it and the direct one) rather than a "
                      "factor"},
      {.id = P::kFftAlgorithm,
       .key = "fft_algorithm",
       .group = "conv",
       .type = T::kBool,
       .access = detail::member<&CE::conv, &C::fft_algorithm>,
       .max = 1,
       .default_text = "false",
       .format = W::kText,
       .description = "stride-1 convolutions with windows of at least 5x5 at fp32 or fp16 may "
                      "also run as FFT convolutions (model/fft.h: transforms on the elementwise "
                      "entry, the complex product on the fp32 gemm entry); the faster algorithm "
                      "is taken"},
      {.id = P::kStridedWork,
       .key = "strided_work",
       .group = "conv",
       .access = detail::member<&CE::conv, &C::strided_work>,
       .default_text = "1",
       .default_value = 1,
       .transform = F::kFraction,
       .start = 0.5 /* mid-range */,
       .start_always = true,
       .description = "strided backward data: exponent on the stride^2 work fraction (1: all "
                      "the zero work, 0: none)"},
      {.id = P::kAsForward,
       .key = "as_forward",
       .group = "conv",
       .access = detail::member<&CE::conv, &C::as_forward>,
       .transform = F::kPositive,
       .start = 1 /* as fast as the forward */,
       .description = "conv_bwd_data: stride-1 data gradients cost this many times the forward "
                      "convolution they run as, through the conv entry (0: off)"},
      {.id = P::kSplitK,
       .key = "split_k",
       .group = "gemm",
       .access = detail::member<&CE::gemm, &G::split_k>,
       .max = 1,
       .transform = F::kFraction,
       .start = 0.5 /* mid-range */,
       .description = "efficiency fraction of split-K kernels for ops whose tiles leave units "
                      "idle; the faster of split and unsplit is taken (0: off)"},
      {.id = P::kUnaligned,
       .key = "unaligned",
       .group = "gemm",
       .access = detail::member<&CE::gemm, &G::unaligned>,
       .max = 1,
       .transform = F::kFraction,
       .start = 0.3,
       .description = "tensor-core precisions: efficiency fraction of GEMM-like ops with m, n or "
                      "k not a multiple of 16 bytes of elements, which run on unaligned kernels "
                      "(0: no such penalty)"},
      {.id = P::kMemoryInSeries,
       .key = "memory_in_series",
       .group = "traffic",
       .type = T::kBool,
       .access = detail::member<&CE::traffic, &M::memory_in_series>,
       .max = 1,
       .default_text = "false",
       .format = W::kText,
       .description = "the op's memory time adds to its compute time instead of overlapping it "
                      "(layout conversions around a library kernel)"},
      {.id = P::kUnblocked,
       .key = "unblocked",
       .group = "traffic",
       .type = T::kBool,
       .access = detail::member<&CE::traffic, &M::unblocked>,
       .max = 1,
       .default_text = "false",
       .format = W::kText,
       .description = "GEMMs of a library without cache blocking (reference BLAS): each result "
                      "row re-reads the n x k operand; the cache step is keyed on that "
                      "operand's size"},
      {.id = P::kGemmPointwiseBelowBatch,
       .key = "gemm_pointwise_below_batch",
       .group = "cpu",
       .type = T::kInt,
       .access = detail::member<&CE::cpu, &U::gemm_pointwise_below_batch>,
       .format = W::kInteger,
       .description = "conv on a CPU framework: 1x1 stride-1 convolutions with batch below "
                      "this run as im2col + GEMM, costed with the gemm entry (0: off)"},
      {.id = P::kGemmSingleMaxInput,
       .key = "gemm_single_max_input",
       .group = "cpu",
       .access = detail::member<&CE::cpu, &U::gemm_single_max_input>,
       .format = W::kWhole,
       .description = "conv on a CPU framework: ungrouped batch-1 convolutions with kernels of "
                      "at most 3x3 and at most this many input elements run as im2col + GEMM "
                      "(0: off)"},
      // Start values where the base gives none (0 switches a model term off, which has no
      // gradient): a k_half of 64 and a half_bytes of 64 kB are mid-range for GPUs and CPUs, a
      // 1 us latency is a kernel's typical fixed cost, 0.9 a typical parallel fraction.
      {.id = P::kKHalf,
       .key = "k_half",
       .group = "gemm",
       .access = detail::member<&CE::gemm, &G::k_half>,
       .transform = F::kPositive,
       .start = 64,
       .description = "reduction depth reaching half of `compute` (0: none)"},
      {.id = P::kLatency,
       .key = "latency",
       .group = "roofline",
       .type = T::kQuantity,
       .dimension = Dimension::kTime,
       .access = detail::member<&CE::latency_s>,
       .default_text = "0 s",
       .transform = F::kPositive,
       .start = 1e-6,
       .write_scale = 1e6,
       .write_unit = "us",
       .description = "fixed time per op beyond launch latency"},
      {.id = P::kHalfBytes,
       .key = "half_bytes",
       .group = "traffic",
       .type = T::kQuantity,
       .dimension = Dimension::kBytes,
       .access = detail::member<&CE::traffic, &M::half_bytes>,
       .default_text = "0 B",
       .transform = F::kPositive,
       .start = 64e3,
       .format = W::kWhole,
       .write_unit = "B",
       .description = "bytes at which a memory-bound op reaches half its bandwidth (0: none)"},
      // The cache pair is written together, whenever there is a cache step.
      {.id = P::kCacheBoost,
       .key = "cache_boost",
       .group = "traffic",
       .access = detail::member<&CE::traffic, &M::cache_boost>,
       .min = 1,
       .default_text = "1",
       .default_value = 1,
       .transform = F::kAboveOne,
       .start = 2 /* caches at twice the DRAM bandwidth */,
       .start_always = true,
       .written = detail::cache_step_given,
       .description = "bandwidth multiple of cache-resident operands over `memory` (>= 1; 1: "
                      "none)"},
      {.id = P::kCacheBytes,
       .key = "cache_bytes",
       .group = "traffic",
       .type = T::kQuantity,
       .dimension = Dimension::kBytes,
       .access = detail::member<&CE::traffic, &M::cache_bytes>,
       .default_text = "0 B",
       .transform = F::kBelow,
       .start = 1 << 20 /* a CPU core's L2, a small GPU L2 */,
       .format = W::kWhole,
       .write_unit = "B",
       .written = detail::cache_step_given,
       .description = "bytes at which the cache boost has fallen halfway to 1x (0: none)"},
      {.id = P::kThreadScaling,
       .key = "thread_scaling",
       .group = "cpu",
       .access = detail::member<&CE::cpu, &U::thread_scaling>,
       .transform = F::kFraction,
       .start = 0.9,
       .description = "CPU: parallel fraction for thread scaling (0: ideal)"},
  };
  // clang-format on
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
      {"conv", "convolution algorithms: Winograd, FFT, strided data gradients, as forward"},
      {"traffic", "memory: the bandwidth curve, the cache step, traffic against compute"},
      {"cpu", "CPU backend: thread scaling, im2col + GEMM convolutions"},
  };
  return kGroups;
}

}  // namespace amdahl::hw
