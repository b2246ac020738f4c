#pragma once
// Where each layer kind runs under mixed precision (precision fp16 or bf16): PyTorch's
// torch.autocast op lists (aten/src/ATen/autocast_mode.{h,cpp}, 1.13 and 2.x), written once
// as a table keyed by the registry's kind names (graphs/autocast.cpp). The lowering
// (graphs/lower.h) places casts by it; tests/graphs/autocast_test.cpp checks that every
// registered kind has a row, and validate/harness/autocast_casts.py checks the cast placement
// of one training step against PyTorch on the CPU.
//
// The policy is CUDA autocast's (the measured H200 steps ran it). Each row also records the
// CPU autocast of PyTorch 1.13 (bfloat16; the harness's reference), which differs for some
// kinds: there softmax, layer_norm, lstm, gru and the elementwise math ops (exp, log, pow...)
// are on no list, conv_transpose and the reflection pads are on the fp32 list.

#include <span>
#include <string_view>

namespace amdahl::graphs {

enum class AutocastPolicy {
  // autocast's lower_precision_fp list (conv, linear, matmul, RNN cells): floating-point
  // inputs are cast to the 16-bit type, and so is every weight, once per forward pass
  // (autocast's weight cache); outputs 16-bit, and the 16-bit weight gradients are cast to
  // fp32 for the update.
  kLowerPrecision,
  // autocast's fp32 and fp32_set_opt_dtype lists (softmax, layer_norm, the losses, sum, exp,
  // log, pow...): 16-bit inputs are cast to fp32; outputs fp32.
  kFp32,
  // On no list, or on the promote list: the op runs in the widest floating-point type of
  // its inputs, a 16-bit input meeting an fp32 one being cast to fp32 (ATen's type
  // promotion; the promote list does the same). Weights stay fp32 and are not cast: a batch
  // norm with 16-bit input reads its fp32 scale and shift as they are (cuDNN takes them so).
  kFollow,
  // The layer states its own output type (cast): autocast leaves it alone.
  kExplicit,
};

struct AutocastRule {
  std::string_view kind;     // the registry's kind name
  AutocastPolicy policy;     // CUDA autocast (PyTorch 1.13 and 2.x agree for every kind here)
  AutocastPolicy cpu;        // CPU autocast of PyTorch 1.13, bfloat16
  std::string_view pytorch;  // the PyTorch op(s) the kind stands for, and why this policy
};

// Every rule, sorted by kind.
std::span<const AutocastRule> autocast_rules();

// The rule of a registered kind. Throws InternalError when the kind has no row (every kind
// registered in graphs/ops/ must have one).
const AutocastRule& autocast_rule(std::string_view kind);

// "lower_precision", "fp32", "follow", "explicit".
std::string_view autocast_policy_name(AutocastPolicy policy);

}  // namespace amdahl::graphs
