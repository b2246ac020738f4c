#include "model/efficiency.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "model/roofline.h"

namespace amdahl::model {
namespace {
// ceil(a / b) for a, b >= 0, without a libm call (the tile search runs it per candidate and per
// op): exact, as the quotient is rounded once either way.
double ceil_div(double a, double b) {
  const double q = a / b;
  if (!(q < 9.0e18)) return std::ceil(q);
  const auto t = static_cast<double>(static_cast<std::int64_t>(q));
  return t < q ? t + 1 : t;
}

// What the tile search shares between candidates: the result's size and the set's reuse.
struct TileSearch {
  double m, n, batch;
  double units;       // parallel units, at least 1
  double reuse_half;  // e.gemm.tile_reuse_half (0: no reuse term)
  double best_reuse;  // reuse of the set's largest tile (efficiency.h)
  double reuse(double intensity) const { return intensity / (intensity + reuse_half); }
};

// One tile candidate tm x tn, whose tiles along m and n number cm = ceil(m / tm) and
// cn = ceil(n / tn): tile, wave and data-reuse factors (see efficiency.h).
GemmEfficiency tile_candidate(const TileSearch& s, double tm, double tn, double cm, double cn) {
  GemmEfficiency out;
  const double tiles = cm * cn * s.batch;
  out.tile = (s.m * s.n) / (cm * tm * cn * tn);
  out.wave = tiles / (ceil_div(tiles, s.units) * s.units);
  if (s.reuse_half > 0) out.reuse = s.reuse(tm * tn / (tm + tn)) / s.best_reuse;
  out.tile_m = static_cast<int>(tm);
  out.tile_n = static_cast<int>(tn);
  return out;
}

TileSearch tile_search(double m, double n, double batch, const hw::ClassEfficiency& e,
                       int parallel_units, double best_intensity) {
  TileSearch s{
      m, n, batch, static_cast<double>(std::max(parallel_units, 1)), e.gemm.tile_reuse_half, 1};
  if (s.reuse_half > 0) s.best_reuse = s.reuse(best_intensity);
  return s;
}
}  // namespace

GemmEfficiency gemm_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                               int parallel_units) {
  return gemm_efficiency(g, e, parallel_units, e.gemm.tile_choice);
}

GemmEfficiency gemm_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                               int parallel_units, hw::TileChoice choice) {
  GemmEfficiency out;
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n);
  const double k = static_cast<double>(g.k);
  const double batch = static_cast<double>(std::max<std::int64_t>(g.batch, 1));
  const bool narrow = e.gemm.narrow_max > 0 && e.gemm.narrow_compute > 0 && m > 0 && n > 0 &&
                      std::min(m, n) <= e.gemm.narrow_max;
  if (narrow) {
    out.narrow = true;
  } else if (e.gemm.tile_min > 0 && e.gemm.tile_max >= e.gemm.tile_min && m > 0 && n > 0) {
    // Rows: tile_m when given, else the set; columns: the set.
    const int row_min = e.gemm.tile_m > 0 ? e.gemm.tile_m : e.gemm.tile_min;
    const int row_max = e.gemm.tile_m > 0 ? e.gemm.tile_m : e.gemm.tile_max;
    const double best_intensity =
        static_cast<double>(row_max) * e.gemm.tile_max / (row_max + e.gemm.tile_max);
    const TileSearch search = tile_search(m, n, batch, e, parallel_units, best_intensity);
    // The column tiles' counts, the same for every row tile.
    std::array<double, 32> col_tiles{};
    std::size_t cols = 0;
    for (int tn = e.gemm.tile_min; tn <= e.gemm.tile_max && cols < col_tiles.size(); tn *= 2)
      col_tiles[cols++] = ceil_div(n, tn);
    double best = -1;
    for (int tm = row_min; tm <= row_max; tm *= 2) {
      const double row_tiles = ceil_div(m, tm);
      std::size_t j = 0;
      for (int tn = e.gemm.tile_min; j < cols; tn *= 2, ++j) {
        const GemmEfficiency c = tile_candidate(search, tm, tn, row_tiles, col_tiles[j]);
        const double f = c.tile * c.reuse * (choice == hw::TileChoice::kFill ? c.wave : 1.0);
        if (f > best) {
          best = f;
          out = c;
        }
      }
    }
  } else if (e.gemm.tile_m > 0 && e.gemm.tile_n > 0 && m > 0 && n > 0) {
    const double tm = e.gemm.tile_m, tn = e.gemm.tile_n;
    out = tile_candidate(tile_search(m, n, batch, e, parallel_units, tm * tn / (tm + tn)), tm, tn,
                         ceil_div(m, tm), ceil_div(n, tn));
  }
  if (e.gemm.k_half > 0 && k > 0) out.depth = k / (k + e.gemm.k_half);
  out.total =
      (narrow ? e.gemm.narrow_compute : e.compute) * out.tile * out.wave * out.reuse * out.depth;
  return out;
}

double thread_scaling_efficiency(const hw::ClassEfficiency& e, int cores) {
  if (e.cpu.thread_scaling <= 0) return 1;
  const double c = std::max(cores, 1);
  const double s = std::min(e.cpu.thread_scaling, 1.0);
  return (1.0 / ((1.0 - s) + s / c)) / c;
}

double split_k_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                          int parallel_units) {
  return split_k_efficiency(g, e, parallel_units, gemm_efficiency(g, e, parallel_units));
}

namespace {
// The split of `g` on `unsplit`'s tile (efficiency.h): its parts (0 when it would not split)
// and efficiency including split_k.
struct SplitK {
  int parts = 0;
  double efficiency = 0;
};

SplitK split_k(const graphs::GemmDims& g, const hw::ClassEfficiency& e, int parallel_units,
               const GemmEfficiency& unsplit) {
  if (unsplit.tile_m <= 0 || unsplit.tile_n <= 0 || g.k <= 0) return {};
  const double batch = static_cast<double>(std::max<std::int64_t>(g.batch, 1));
  const double tiles = ceil_div(static_cast<double>(g.m), unsplit.tile_m) *
                       ceil_div(static_cast<double>(g.n), unsplit.tile_n) * batch;
  const double parts = std::min(std::floor(std::max(parallel_units, 1) / tiles),
                                std::floor(static_cast<double>(g.k) / kSplitMinDepth));
  if (parts < 2) return {};
  const auto s = static_cast<std::int64_t>(parts);
  const graphs::GemmDims split{g.m, g.n, (g.k + s - 1) / s, std::max<std::int64_t>(g.batch, 1) * s};
  return {static_cast<int>(s), gemm_efficiency(split, e, parallel_units).total * e.gemm.split_k};
}

KernelChoice kernel_of(const GemmEfficiency& g, Algorithm tiled) {
  if (g.narrow) return {Algorithm::kNarrow};
  return {tiled, Lowering::kNative, g.tile_m, g.tile_n};
}
}  // namespace

double split_k_efficiency(const graphs::GemmDims& g, const hw::ClassEfficiency& e,
                          int parallel_units, const GemmEfficiency& unsplit) {
  return split_k(g, e, parallel_units, unsplit).efficiency;
}

ComputeChoice compute_choice(const graphs::Operator& op, const hw::ClassEfficiency& e,
                             hw::DeviceKind kind, int parallel_units) {
  ComputeChoice out;
  const GemmEfficiency direct =
      op.gemm.empty() ? GemmEfficiency{} : gemm_efficiency(op.gemm, e, parallel_units);
  out.efficiency = op.gemm.empty() ? e.compute : direct.total;
  if (!op.gemm.empty()) out.kernel = kernel_of(direct, Algorithm::kGemm);
  if (is_winograd_eligible(op) && e.conv.winograd_algorithm && !op.gemm.empty()) {
    // The library's algorithm search times both and keeps the faster (same FLOP count).
    const GemmEfficiency transformed =
        gemm_efficiency(winograd_dims(op), e, parallel_units, hw::TileChoice::kFill);
    const double winograd = transformed.total * std::max(e.conv.winograd, 1.0);
    if (winograd > out.efficiency) {
      out.efficiency = winograd;
      out.kernel = kernel_of(transformed, Algorithm::kWinograd);
    }
  } else if (is_winograd_eligible(op)) {
    out.efficiency *= std::max(e.conv.winograd, 1.0);
    // Winograd as a factor on the direct kernel's tiles.
    if (e.conv.winograd > 1 && out.kernel.algorithm == Algorithm::kGemm)
      out.kernel.algorithm = Algorithm::kWinograd;
  }
  if (e.gemm.split_k > 0 && !op.gemm.empty()) {
    const SplitK s = split_k(op.gemm, e, parallel_units, direct);
    if (s.efficiency > out.efficiency) {
      out.efficiency = s.efficiency;
      out.kernel = {Algorithm::kSplitK, Lowering::kNative, direct.tile_m, direct.tile_n, s.parts};
    }
  }
  if (op.phase == Phase::kBackwardData && op.conv_stride > 1 && !op.gemm.empty())
    out.efficiency *= std::pow(implicit_gemm_work_fraction(op), e.conv.strided_work);
  if (e.gemm.unaligned > 0 && !tensor_core_aligned(op)) out.efficiency *= e.gemm.unaligned;
  if (kind == hw::DeviceKind::kCpu) out.efficiency *= thread_scaling_efficiency(e, parallel_units);
  return out;
}

double compute_efficiency(const graphs::Operator& op, const hw::ClassEfficiency& e,
                          hw::DeviceKind kind, int parallel_units) {
  return compute_choice(op, e, kind, parallel_units).efficiency;
}

double memory_efficiency(double bytes, const hw::ClassEfficiency& e) {
  double eff = e.memory;
  if (e.traffic.half_bytes > 0 && bytes > 0) eff *= bytes / (bytes + e.traffic.half_bytes);
  if (e.traffic.cache_bytes > 0 && bytes >= 0)
    eff *=
        1 + (e.traffic.cache_boost - 1) * e.traffic.cache_bytes / (e.traffic.cache_bytes + bytes);
  return eff;
}

MemoryTraffic memory_traffic(const graphs::Operator& op, const hw::ClassEfficiency& e) {
  if (!e.traffic.unblocked || op.gemm.empty()) return {op.bytes(), op.bytes()};
  const graphs::GemmDims& g = op.gemm;
  const double operand =
      graphs::dtype_bytes(op.dtype) * static_cast<double>(g.n) * static_cast<double>(g.k);
  const double calls = static_cast<double>(std::max<std::int64_t>(g.batch, 1));
  return {operand * static_cast<double>(g.m) * calls, operand};
}

double implicit_gemm_work_fraction(const graphs::Operator& op) {
  const graphs::GemmDims& g = op.gemm;
  const double gemm_flops = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) *
                            static_cast<double>(g.k) *
                            static_cast<double>(std::max<std::int64_t>(g.batch, 1));
  if (gemm_flops <= 0 || op.flops <= 0) return 1;
  return std::min(1.0, op.flops / gemm_flops);
}

graphs::GemmDims winograd_dims(const graphs::Operator& op) {
  const graphs::GemmDims& g = op.gemm;
  const auto ceil_div_int = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  if (op.phase == Phase::kBackwardWeight)
    return {g.m, ceil_div_int(g.n, 9), ceil_div_int(g.k, 4), g.batch};
  return {ceil_div_int(g.m, 4), g.n, ceil_div_int(g.k, 9), g.batch};
}

bool tensor_core_aligned(const graphs::Operator& op) {
  if (op.gemm.empty() || !entry_precision(op)) return true;
  constexpr double kAlignmentBytes = 16;
  const auto elements = static_cast<std::int64_t>(kAlignmentBytes / graphs::dtype_bytes(op.dtype));
  if (elements <= 1) return true;
  return op.gemm.m % elements == 0 && op.gemm.n % elements == 0 && op.gemm.k % elements == 0;
}

bool is_winograd_eligible(const graphs::Operator& op) {
  return op.conv_kernel == 3 && op.conv_stride == 1;
}

bool can_run_as_forward(const graphs::Operator& op) {
  return op.op_class == OpClass::kConv && op.phase == Phase::kBackwardData && op.conv_stride == 1 &&
         (op.conv_kernel == 1 || op.conv_kernel == 3) && !op.gemm.empty();
}

namespace {
// An operator with op's numbers, without its names and shapes (no cost rule reads them, and
// copying them allocates per op and sweep point).
graphs::Operator numbers_of(const graphs::Operator& op) {
  graphs::Operator out;
  static_cast<graphs::OpNumbers&>(out) = op;
  return out;
}

// The op with no convolution geometry left: costed as the GEMM or elementwise op it becomes.
void without_convolution(graphs::Operator& op) {
  op.conv_kernel = 0;
  op.conv_stride = 0;
  op.conv_batch = 0;
  op.conv_groups = 0;
  op.conv_input_elements = 0;
  op.conv_output_elements = 0;
  op.conv_in_channels = 0;
  op.conv_out_channels = 0;
  op.conv_output_h = 0;
  op.conv_output_w = 0;
  op.conv_window_h = 0;
  op.conv_window_w = 0;
}
}  // namespace

graphs::Operator forward_op(const graphs::Operator& op) {
  graphs::Operator f = numbers_of(op);
  f.phase = Phase::kForward;
  const std::int64_t taps = static_cast<std::int64_t>(op.conv_kernel) * op.conv_kernel;
  if (taps > 1) f.gemm = {op.gemm.m, op.gemm.k / taps, op.gemm.n * taps, op.gemm.batch};
  return f;
}

bool runs_as_gemm(const graphs::Operator& op, const hw::ClassEfficiency& conv) {
  if (op.op_class != OpClass::kConv || op.conv_batch <= 0 || op.gemm.empty()) return false;
  const bool pointwise = op.conv_kernel == 1 && op.conv_stride == 1 &&
                         op.conv_batch < conv.cpu.gemm_pointwise_below_batch;
  const bool small_single = conv.cpu.gemm_single_max_input > 0 && op.conv_batch == 1 &&
                            op.conv_groups == 1 && op.conv_kernel >= 1 && op.conv_kernel <= 3 &&
                            op.conv_input_elements <= conv.cpu.gemm_single_max_input;
  return pointwise || small_single;
}

graphs::Operator as_gemm_op(const graphs::Operator& op) {
  graphs::Operator g = numbers_of(op);
  g.op_class = OpClass::kGemm;
  // efficiency.h: the linear-layer phase of the same BLAS transposition, and the BLAS call's
  // dims per sample and group in the linear layers' convention (m result rows, each re-reading
  // the n x k operand), from the op's implicit-GEMM dims (graphs/ops/conv.cpp).
  const std::int64_t batch = std::max<std::int64_t>(op.conv_batch, 1);
  const std::int64_t calls = batch * std::max<std::int64_t>(op.gemm.batch, 1);
  const graphs::GemmDims& d = op.gemm;
  switch (op.phase) {
    case Phase::kForward:  // NN: K x (P Q) x (C R S), re-reading the unfolded input
      g.phase = Phase::kBackwardData;
      g.gemm = {d.n, d.m / batch, d.k, calls};
      break;
    case Phase::kBackwardData: {  // NT: (C R S) x (P Q) x K, re-reading dY
      const std::int64_t taps = std::max(op.conv_kernel * op.conv_kernel, 1);
      const std::int64_t k_out = d.k / taps;
      const auto pq =
          static_cast<std::int64_t>(op.conv_output_elements / static_cast<double>(calls * k_out));
      g.phase = Phase::kBackwardWeight;
      g.gemm = {d.n * taps, pq, k_out, calls};
      break;
    }
    case Phase::kBackwardWeight:  // TN: K x (C R S) x (P Q), re-reading the input
      g.phase = Phase::kForward;
      g.gemm = {d.m, d.n, d.k / batch, calls};
      break;
    default:
      break;
  }
  without_convolution(g);
  return g;
}

std::int64_t conv_group_channels(const graphs::Operator& op) {
  if (op.op_class != OpClass::kConv || op.conv_groups <= 0 || op.conv_kernel <= 0 ||
      op.gemm.empty())
    return 0;
  const std::int64_t taps = static_cast<std::int64_t>(op.conv_kernel) * op.conv_kernel;
  switch (op.phase) {
    case Phase::kForward:
      return op.gemm.k / taps;
    case Phase::kBackwardData:
      return op.gemm.n;
    case Phase::kBackwardWeight:
      return op.gemm.n / taps;
    default:
      return 0;
  }
}

bool runs_direct(const graphs::Operator& op, hw::DeviceKind kind) {
  return kind == hw::DeviceKind::kGpu && op.conv_groups > 1 && conv_group_channels(op) == 1;
}

graphs::Operator direct_op(const graphs::Operator& op) {
  graphs::Operator d = numbers_of(op);
  d.op_class = OpClass::kElementwise;
  d.gemm = {};
  without_convolution(d);
  return d;
}

hw::EfficiencyKey phase_efficiency_key(const graphs::Operator& op) {
  const bool phased = op.phase == Phase::kBackwardData || op.phase == Phase::kBackwardWeight;
  return {op.op_class, phased ? op.phase : Phase::kForward};
}

std::optional<Precision> entry_precision(const graphs::Operator& op) {
  if (!is_matrix_class(op.op_class) || !is_tensor_core_precision(op.precision)) return std::nullopt;
  return op.precision;
}

std::vector<hw::EfficiencyKey> efficiency_lookup(const graphs::Operator& op) {
  const hw::EfficiencyKey phase = phase_efficiency_key(op), cls{op.op_class};
  std::vector<hw::EfficiencyKey> keys;
  if (const auto precision = entry_precision(op)) {
    if (phase != cls) keys.push_back({op.op_class, phase.phase, precision});
    keys.push_back({op.op_class, Phase::kForward, precision});
  }
  if (phase != cls) keys.push_back(phase);
  keys.push_back(cls);
  return keys;
}

const hw::ClassEfficiency* specific_efficiency(const graphs::Operator& op,
                                               const hw::DeviceSpec& device) {
  const std::vector<hw::EfficiencyKey> keys = efficiency_lookup(op);
  for (std::size_t i = 0; i + 1 < keys.size(); ++i)  // all but the class entry
    if (const auto it = device.efficiency.find(keys[i]); it != device.efficiency.end())
      return &it->second;
  return nullptr;
}

namespace {
const hw::ClassEfficiency& efficiency_of(const graphs::Operator& op, const hw::DeviceSpec& device) {
  const hw::ClassEfficiency* e = specific_efficiency(op, device);
  return e ? *e : device.efficiency_for(op.op_class);
}
}  // namespace

double compute_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device) {
  return compute_efficiency(op, efficiency_of(op, device), device.kind, device.parallel_units);
}

double memory_efficiency(const graphs::Operator& op, const hw::DeviceSpec& device) {
  const hw::ClassEfficiency& e = efficiency_of(op, device);
  return memory_efficiency(memory_traffic(op, e).cache_size, e);
}

}  // namespace amdahl::model
