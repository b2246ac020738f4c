#include "graphs/autocast.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "util/error.h"

namespace amdahl::graphs {

namespace {

constexpr AutocastPolicy kLower = AutocastPolicy::kLowerPrecision;
constexpr AutocastPolicy kFp32 = AutocastPolicy::kFp32;
constexpr AutocastPolicy kFollow = AutocastPolicy::kFollow;
constexpr AutocastPolicy kExplicit = AutocastPolicy::kExplicit;

// Columns: kind, CUDA policy, CPU policy (PyTorch 1.13, bfloat16), the PyTorch op. Lists:
// lower = lower_precision_fp, fp32 = fp32 or fp32_set_opt_dtype, none = on no list (runs in
// its inputs' type, ATen type promotion). The CPU column was read off PyTorch 1.13 on this
// project's CPU (each op under torch.autocast("cpu", torch.bfloat16) with fp32 and with
// bfloat16 input); the CUDA column from autocast_mode.h/.cpp of 1.13 and 2.x.
constexpr std::array kRules = std::to_array<AutocastRule>({
    {"abs", kFollow, kFollow, "abs: none"},
    {"add", kFollow, kFollow, "add: none"},
    {"add_broadcast", kFollow, kFollow, "add: none"},
    {"and", kFollow, kFollow, "logical_and: none (boolean)"},
    {"attention", kLower, kLower,
     "nn.MultiheadAttention: linear, bmm and baddbmm lower (2.x: scaled_dot_product_attention "
     "lower); its inner softmax runs fp32 on CUDA 1.13, not modelled as casts"},
    {"attention_decoder", kLower, kFollow,
     "lstm_cell, linear: lower on CUDA; CPU 1.13 has lstm_cell on no list"},
    {"avgpool2d", kFollow, kFollow,
     "avg_pool2d, adaptive_avg_pool2d: none (avg_pool3d is fp32 on CPU)"},
    {"batchnorm2d", kFollow, kFollow,
     "batch_norm: none; cuDNN and the CPU kernel take 16-bit input with fp32 scale and shift"},
    {"cast", kExplicit, kExplicit, "Tensor.to: the caller's type"},
    {"ceil", kFollow, kFollow, "ceil: none"},
    {"clip", kFollow, kFollow, "clamp: none"},
    {"clipped_relu", kFollow, kFollow, "hardtanh: none"},
    {"concat", kFollow, kFollow, "cat: none (promotes)"},
    {"conv2d", kLower, kLower, "conv2d: lower"},
    {"conv_transpose2d", kLower, kFp32, "conv_transpose2d: lower on CUDA, fp32 on CPU 1.13"},
    {"cos", kFollow, kFollow, "cos: none"},
    {"ctc", kFp32, kFp32, "log_softmax (fp32 on CUDA) and ctc_loss (fp32 on CPU)"},
    {"div", kFollow, kFollow, "div: none"},
    {"dropout", kFollow, kFollow, "dropout: none"},
    {"elu", kFollow, kFollow, "elu: none"},
    {"embedding", kFollow, kFollow, "embedding: none (its output has the fp32 weight's type)"},
    {"equal", kFollow, kFollow, "eq: none (boolean)"},
    {"erf", kFollow, kFollow, "erf: none (erfinv is fp32)"},
    {"exp", kFp32, kFollow, "exp: fp32 on CUDA, none on CPU 1.13"},
    {"expand", kFollow, kFollow, "expand: none"},
    {"flatten", kFollow, kFollow, "flatten: none (a view)"},
    {"floor", kFollow, kFollow, "floor: none"},
    {"gather", kFollow, kFollow, "gather, index_select: none"},
    {"gelu", kFollow, kFollow, "gelu: none"},
    {"greater", kFollow, kFollow, "gt: none (boolean)"},
    {"gru", kLower, kFollow,
     "nn.GRU: lower on CUDA (cuDNN RNN's autocast wrapper casts input and flat weights); none "
     "on CPU 1.13"},
    {"hard_sigmoid", kFollow, kFollow, "hardsigmoid: none"},
    {"hard_swish", kFollow, kFollow, "hardswish: none"},
    {"identity", kFollow, kFollow, "identity: none"},
    {"instance_norm", kFollow, kFollow, "instance_norm: none (runs batch_norm)"},
    {"is_nan", kFollow, kFollow, "isnan: none (boolean)"},
    {"layer_norm", kFp32, kFollow,
     "layer_norm: fp32 on CUDA; none on CPU 1.13 (16-bit input with fp32 weights fails there)"},
    {"leaky_relu", kFollow, kFollow, "leaky_relu: none"},
    {"less", kFollow, kFollow, "lt: none (boolean)"},
    {"linear", kLower, kLower, "linear, addmm: lower"},
    {"log", kFp32, kFollow, "log: fp32 on CUDA, none on CPU 1.13"},
    {"lrn", kFp32, kFp32,
     "local_response_norm: its pow is fp32 on CUDA (avg_pool3d on CPU), the division promotes"},
    {"lstm", kLower, kFollow,
     "nn.LSTM: lower on CUDA (cuDNN RNN's autocast wrapper); none on CPU 1.13"},
    {"matmul", kLower, kLower, "matmul, bmm: lower"},
    {"max", kFollow, kFollow, "maximum: none"},
    {"maxpool2d", kFollow, kFollow, "max_pool2d: none (max_pool3d is fp32 on CPU)"},
    {"min", kFollow, kFollow, "minimum: none"},
    {"mod", kFollow, kFollow, "fmod: none"},
    {"mse", kFp32, kFp32, "mse_loss: fp32"},
    {"mul", kFollow, kFollow, "mul: none"},
    {"neg", kFollow, kFollow, "neg: none"},
    {"not", kFollow, kFollow, "logical_not: none (boolean)"},
    {"or", kFollow, kFollow, "logical_or: none (boolean)"},
    {"pad", kFollow, kFollow, "constant_pad_nd: none (reflection pads are fp32 on CPU)"},
    {"position_encoding", kFollow, kFollow, "mul and sum with an fp32 weight: none"},
    {"pow", kFp32, kFollow, "pow.Tensor_Tensor: fp32 on CUDA, none on CPU 1.13"},
    {"pow_scalar", kFp32, kFollow, "pow.Tensor_Scalar: fp32 on CUDA, none on CPU 1.13"},
    {"reciprocal", kFp32, kFollow, "reciprocal: fp32 on CUDA, none on CPU 1.13"},
    {"reduce_l2", kFp32, kFollow, "norm, linalg_vector_norm: fp32 on CUDA, none on CPU 1.13"},
    {"reduce_max", kFollow, kFollow, "amax: none"},
    {"reduce_mean", kFollow, kFollow, "mean: none"},
    {"reduce_min", kFollow, kFollow, "amin: none"},
    {"reduce_prod", kFp32, kFp32, "prod: fp32"},
    {"reduce_sum", kFp32, kFollow, "sum: fp32 on CUDA, none on CPU 1.13"},
    {"reduce_sum_square", kFp32, kFollow, "pow and sum: fp32 on CUDA, none on CPU 1.13"},
    {"relu", kFollow, kFollow, "relu: none"},
    {"reparameterize", kFp32, kFollow,
     "mean + exp(logvar / 2) * eps: exp is fp32 on CUDA and the sum promotes; none on CPU 1.13"},
    {"reshape", kFollow, kFollow, "reshape: none (a view)"},
    {"rnn", kLower, kLower, "nn.RNN: lower (cuDNN RNN on CUDA; its linear steps on CPU)"},
    {"round", kFollow, kFollow, "round: none"},
    {"sampled_softmax", kFp32, kFp32,
     "embedding of the sampled output rows (fp32 weight, none) then log_softmax and nll_loss "
     "(fp32 on CUDA; cross_entropy_loss fp32 on CPU)"},
    {"selu", kFollow, kFollow, "selu: none"},
    {"sigmoid", kFollow, kFollow, "sigmoid: none"},
    {"sign", kFollow, kFollow, "sign: none"},
    {"silu", kFollow, kFollow, "silu: none"},
    {"sin", kFollow, kFollow, "sin: none"},
    {"slice", kFollow, kFollow, "slice: none (a view)"},
    {"softmax", kFp32, kFollow, "softmax: fp32 on CUDA, none on CPU 1.13"},
    {"softmax_cross_entropy", kFp32, kFp32,
     "cross_entropy: log_softmax and nll_loss fp32 on CUDA, cross_entropy_loss fp32 on CPU"},
    {"softplus", kFp32, kFollow, "softplus: fp32 on CUDA, none on CPU 1.13"},
    {"softsign", kFollow, kFollow, "x / (1 + |x|): none"},
    {"split", kFollow, kFollow, "split: none (views)"},
    {"sqrt", kFollow, kFollow, "sqrt: none (rsqrt is fp32 on CUDA)"},
    {"sub", kFollow, kFollow, "sub: none"},
    {"tanh", kFollow, kFollow, "tanh: none"},
    {"td_huber", kFp32, kFp32, "huber_loss, smooth_l1_loss: fp32"},
    {"tile", kFollow, kFollow, "repeat: none"},
    {"transpose", kFollow, kFollow, "permute and contiguous: none"},
    {"vae_kl", kFp32, kFollow, "exp, pow and sum: fp32 on CUDA, none on CPU 1.13"},
    {"where", kFollow, kFollow, "where: none (promotes)"},
});

constexpr bool sorted_and_unique() {
  for (std::size_t i = 1; i < kRules.size(); ++i)
    if (!(kRules[i - 1].kind < kRules[i].kind)) return false;
  return true;
}
static_assert(sorted_and_unique(), "autocast rules must be sorted by kind, each kind once");

}  // namespace

std::span<const AutocastRule> autocast_rules() { return kRules; }

const AutocastRule& autocast_rule(std::string_view kind) {
  const auto it =
      std::lower_bound(kRules.begin(), kRules.end(), kind,
                       [](const AutocastRule& r, std::string_view k) { return r.kind < k; });
  if (it == kRules.end() || it->kind != kind)
    throw InternalError(fmt::format(
        "layer kind '{}' has no autocast rule (add its row to graphs/autocast.cpp)", kind));
  return *it;
}

std::string_view autocast_policy_name(AutocastPolicy policy) {
  switch (policy) {
    case AutocastPolicy::kLowerPrecision:
      return "lower_precision";
    case AutocastPolicy::kFp32:
      return "fp32";
    case AutocastPolicy::kFollow:
      return "follow";
    case AutocastPolicy::kExplicit:
      return "explicit";
  }
  return "unknown";
}

}  // namespace amdahl::graphs
