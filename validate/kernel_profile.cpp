#include "validate/kernel_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "hw/units.h"
#include "util/csv_table.h"
#include "util/error.h"
#include "util/precision.h"

namespace amdahl::validate {
namespace {

// The most calls a profile row may count: 2^53, the largest count a double holds exactly.
constexpr std::int64_t kMaxCalls = std::int64_t{1} << 53;

// One rule: a profiler key that starts with, ends with or contains `pattern` is a host-side
// row (no class) or a device activity of `op_class`. The first matching rule wins, so a
// specific pattern comes before a general one ("implicit_convolve_sgemm" is cuDNN's
// convolution, not cuBLAS's GEMM). Host rows match at the start or end of the name only:
// kernel names contain "cuda" and "Backward" inside their template arguments.
enum class Match { kPrefix, kSuffix, kContains };
struct Rule {
  Match match;
  std::string_view pattern;
  std::optional<OpClass> op_class;  // empty: host-side
  std::string_view family;
};

// The names seen in the H200 profile of PyTorch 2.11, cuDNN 9.19 and cuBLAS 13
// (docs/validation.md lists what each family covers). cuBLAS's and cutlass's GEMM kernels
// are the gemm class wherever they run: cuDNN calls them too, for the recurrent GEMMs of its
// LSTM and for some convolution gradients, which a name cannot tell, so reports also compare
// the matrix classes together.
const Rule kRules[] = {
    // Host side: their device time is their kernels'.
    {Match::kPrefix, "aten::", std::nullopt, "aten operator"},
    {Match::kPrefix, "autograd::", std::nullopt, "autograd node"},
    {Match::kPrefix, "torch::autograd::", std::nullopt, "autograd node"},
    {Match::kSuffix, "Backward0", std::nullopt, "autograd node"},
    {Match::kSuffix, "Backward1", std::nullopt, "autograd node"},
    {Match::kPrefix, "Optimizer.", std::nullopt, "optimizer annotation"},
    {Match::kPrefix, "cuda", std::nullopt, "CUDA runtime call"},
    {Match::kPrefix, "cuLaunch", std::nullopt, "CUDA driver call"},
    {Match::kPrefix, "Activity Buffer Request", std::nullopt, "profiler"},
    {Match::kPrefix, "detach", std::nullopt, "aten operator"},
    // cuDNN's LSTM cells (its GEMMs are cuBLAS kernels, below).
    {Match::kContains, "RNNcell", OpClass::kRnn, "cuDNN RNN pointwise"},
    {Match::kContains, "LSTM_elementWise", OpClass::kRnn, "cuDNN RNN pointwise"},
    {Match::kContains, "GENERIC_elementWise_bp", OpClass::kRnn, "cuDNN RNN pointwise"},
    // cuDNN convolutions: implicit GEMM, FFT (its complex GEMMs and transforms), Winograd,
    // and the layout, padding and scaling kernels they run around them.
    {Match::kContains, "convolve_sgemm", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "_fprop_implicit_gemm", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "_dgrad_implicit_gemm", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "_wgrad_implicit_gemm", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "dgrad_engine", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "dgrad_alg", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "wgrad_alg", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "wgrad2d", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "winograd", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "fft2d_", OpClass::kConv, "cuDNN FFT convolution"},
    {Match::kContains, "gemm_cf32", OpClass::kConv, "cuDNN FFT convolution"},
    {Match::kContains, "region_transform", OpClass::kConv, "cuDNN FFT convolution"},
    {Match::kContains, "flip_filter", OpClass::kConv, "cuDNN FFT convolution"},
    {Match::kContains, "kern_precompute_indices", OpClass::kConv, "cuDNN convolution"},
    {Match::kContains, "NchwKernel", OpClass::kConv, "cuDNN convolution layout"},
    {Match::kContains, "NhwcKernel", OpClass::kConv, "cuDNN convolution layout"},
    {Match::kContains, "nchwAddPadding", OpClass::kConv, "cuDNN convolution layout"},
    {Match::kContains, "scalePackedTensor", OpClass::kConv, "cuDNN convolution layout"},
    {Match::kContains, "bn_fw", OpClass::kNormalization, "cuDNN batch norm"},
    {Match::kContains, "bn_bw", OpClass::kNormalization, "cuDNN batch norm"},
    {Match::kContains, "max_pool", OpClass::kPooling, "pooling"},
    {Match::kContains, "avg_pool", OpClass::kPooling, "pooling"},
    {Match::kContains, "adaptive_average", OpClass::kPooling, "pooling"},
    {Match::kContains, "average_gradinput", OpClass::kPooling, "pooling"},
    {Match::kContains, "softmax_warp", OpClass::kSoftmax, "softmax cross-entropy"},
    {Match::kContains, "nll_loss", OpClass::kSoftmax, "softmax cross-entropy"},
    {Match::kContains, "multi_tensor_apply", OpClass::kOptimizer, "foreach optimizer"},
    {Match::kContains, "embedding_backward", OpClass::kEmbedding, "embedding"},
    {Match::kContains, "gather_kernel", OpClass::kEmbedding, "embedding (index_select)"},
    // cuBLAS and cutlass GEMMs, with their split-K reductions and epilogues.
    {Match::kContains, "gemm", OpClass::kGemm, "cuBLAS/cutlass GEMM"},
    {Match::kContains, "gemv", OpClass::kGemm, "cuBLAS/cutlass GEMM"},
    {Match::kContains, "splitKreduce", OpClass::kGemm, "cuBLAS/cutlass GEMM"},
    {Match::kContains, "cublasLt::epilogue", OpClass::kGemm, "cuBLAS/cutlass GEMM"},
    {Match::kContains, "scal_kernel", OpClass::kGemm, "cuBLAS/cutlass GEMM"},
    {Match::kContains, "reduce_kernel", OpClass::kReduction, "PyTorch reduction"},
    {Match::kContains, "elementwise_kernel", OpClass::kElementwise, "PyTorch elementwise"},
    {Match::kContains, "fused_dropout", OpClass::kElementwise, "PyTorch elementwise"},
    // torch.randint of the loss's labels, inside the measured step.
    {Match::kContains, "distribution_", OpClass::kElementwise, "PyTorch random numbers"},
    {Match::kContains, "Memcpy", OpClass::kDataMovement, "device copy"},
    {Match::kContains, "Memset", OpClass::kDataMovement, "device fill"},
};

}  // namespace

Phase kernel_phase(std::string_view name) {
  const auto has = [&](std::string_view p) { return name.find(p) != std::string_view::npos; };
  if (has("wgrad")) return Phase::kBackwardWeight;
  if (has("bn_bw") || has("backward") || has("gradinput") || has("dgrad"))
    return Phase::kBackwardData;
  return Phase::kForward;
}

ProfileKeyClass classify_profile_key(std::string_view name) {
  for (const Rule& r : kRules) {
    const bool hit = r.match == Match::kPrefix   ? name.starts_with(r.pattern)
                     : r.match == Match::kSuffix ? name.ends_with(r.pattern)
                                                 : name.find(r.pattern) != std::string_view::npos;
    if (hit)
      return {!r.op_class, r.op_class, r.family, r.op_class ? kernel_phase(name) : Phase::kForward};
  }
  return {false, std::nullopt, kUnmapped, kernel_phase(name)};
}

double ProfiledConfig::kernel_s_per_step() const {
  double s = 0;
  for (const auto& [cls, seconds] : device_s_per_step) s += seconds;
  return s;
}

std::vector<ProfiledConfig> read_kernel_profile(const std::string& path) {
  const CsvTable t = CsvTable::read(path);
  const std::size_t model = t.column("model"), batch = t.column("batch"),
                    precision = t.column("precision"), op = t.column("op"),
                    calls = t.column("calls"), device = t.column("self_device_us"),
                    steps = t.column("steps");
  std::vector<ProfiledConfig> configs;
  for (std::size_t row = 0; row < t.size(); ++row) {
    const std::int64_t b = t.whole_number(row, batch, 1);
    const auto s = static_cast<int>(t.whole_number(row, steps, 1, std::numeric_limits<int>::max()));
    parse_workload_precision(t.cell(row, precision), t.where(row) + ": column precision");
    auto it = std::find_if(configs.begin(), configs.end(), [&](const ProfiledConfig& c) {
      return c.model == t.cell(row, model) && c.batch == b && c.precision == t.cell(row, precision);
    });
    if (it == configs.end()) {
      configs.push_back({t.cell(row, model), b, t.cell(row, precision), s, t.where(row), {}, {}});
      it = configs.end() - 1;
    } else if (it->steps != s) {
      throw UserError(
          fmt::format("{}: column steps: {} steps, but {} (this configuration's first "
                      "row) says {}",
                      t.where(row), s, it->where, it->steps));
    }
    const double device_s =
        t.measured(row, device, 1e-6, hw::measured_range(hw::Dimension::kTime, true));
    const ProfileKeyClass k = classify_profile_key(t.cell(row, op));
    if (k.host || device_s <= 0) continue;
    const double per_step = device_s / s;
    const std::string cls =
        k.op_class ? std::string(op_class_name(*k.op_class)) : std::string(kUnmapped);
    it->device_s_per_step[cls] += per_step;
    it->kernels.push_back({t.cell(row, op), std::string(k.family), k.op_class, k.phase, per_step,
                           static_cast<double>(t.whole_number(row, calls, 0, kMaxCalls)) / s});
  }
  return configs;
}

}  // namespace amdahl::validate
