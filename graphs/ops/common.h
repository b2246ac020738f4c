#pragma once
// Helpers shared by the op families: parameter declarations, shape checks, the arithmetic of
// sizes (FLOPs and bytes as products of doubles, exact integers overflow-checked), and the
// elementwise FLOP/byte rule that many kinds follow.

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "util/checked_math.h"
#include "util/error.h"

namespace amdahl::graphs::ops {

inline ParamDecl int_param(std::string name, std::string description, std::string def = {}) {
  return ParamDecl{std::move(name), ParamType::kInt,        def.empty(),
                   std::move(def),  std::move(description), {}};
}
inline ParamDecl ints_param(std::string name, std::string description, std::string def = {}) {
  return ParamDecl{std::move(name), ParamType::kInts,       def.empty(),
                   std::move(def),  std::move(description), {}};
}
inline ParamDecl float_param(std::string name, std::string description, std::string def) {
  return ParamDecl{std::move(name), ParamType::kFloat,      false,
                   std::move(def),  std::move(description), {}};
}
inline ParamDecl bool_param(std::string name, std::string description, std::string def) {
  return ParamDecl{std::move(name), ParamType::kBool,       false,
                   std::move(def),  std::move(description), {}};
}

// `inplace` of the kinds that may write their output over their first input (writes_in_place).
inline ParamDecl inplace_param() {
  return bool_param("inplace",
                    "write the output over the first input (PyTorch inplace=True): no new tensor",
                    "false");
}
inline ParamDecl choice_param(std::string name, std::vector<std::string> choices,
                              std::string description, std::string def) {
  return ParamDecl{std::move(name), ParamType::kChoice,     def.empty(),
                   std::move(def),  std::move(description), std::move(choices)};
}

// Throws a UserError located at the layer unless `ok`. `what` is the message, or a callable
// returning it, called only on failure (rules run once per op per sweep point, and most
// checks pass).
template <typename Message>
void check(bool ok, const Layer& layer, Message&& what) {
  if (ok) return;
  if constexpr (std::is_invocable_v<Message>)
    throw UserError(fmt::format("{}: {}", layer.error_prefix(), what()));
  else
    throw UserError(fmt::format("{}: {}", layer.error_prefix(), what));
}

inline void expect_rank(const Layer& layer, const TensorInfo& t, std::size_t rank,
                        const char* layout) {
  check(t.shape.size() == rank, layer, [&] {
    return fmt::format("expects a rank-{} input {} (got {})", rank, layout, shape_str(t.shape));
  });
}

inline double d(std::int64_t v) { return static_cast<double>(v); }

// The product of `factors` in doubles, each converted before it is multiplied: FLOP and byte
// counts, which are doubles and may pass 2^63 (a 10^9-token attention's scores), must never
// come from an int64 product that wraps. Exact while the product stays below 2^53.
template <typename... T>
double dprod(T... factors) {
  static_assert(sizeof...(T) > 0);
  return (... * static_cast<double>(factors));
}

// An integer a rule needs exactly (a GEMM dimension, a weight's element count, an output
// dim), computed as a CheckedInt from its first term on: checked_size(layer, "GEMM m",
// CheckedInt(n) * h * w). Throws UserError located at the layer where a step overflowed:
// "<what>: a * b overflows 2^63 (sizes too large?)".
inline std::int64_t checked_size(const Layer& layer, std::string_view what, const CheckedInt& v) {
  check(v.ok(), layer, [&] {
    return fmt::format("{}: {} overflows 2^63 (sizes too large?)", what, v.overflow());
  });
  return v.value();
}

// A stack depth (`num_layers`): every stacked layer lowers to weights and ops of its own, so a
// depth beyond the network's op limit (max_ops()) is refused here, before its weights are
// listed, instead of exhausting memory.
inline void check_stack_depth(const Layer& layer, std::int64_t layers) {
  check(layers <= max_ops(), layer, [&] {
    return fmt::format(
        "num_layers {}: each stacked layer lowers to ops of its own and a network is limited to "
        "{} ops (--max-ops N raises it)",
        layers, max_ops());
  });
}

// Elementwise over the output: `flops_per_element` per element, reads every input, writes
// the output.
inline Operator elementwise_forward(const ForwardContext& ctx, const std::string& suffix,
                                    double flops_per_element,
                                    OpClass op_class = OpClass::kElementwise) {
  double read = 0;
  for (const auto& t : ctx.inputs) read += t.bytes();
  Operator op = ctx.make(suffix, op_class, flops_per_element * d(ctx.out().elements()), read,
                         ctx.out().bytes());
  op.in_place = writes_in_place(ctx.layer);
  return op;
}

// The backward of an elementwise op: reads the output gradient and `saved` tensors of the
// output's size, writes the input gradient.
inline Operator elementwise_backward(const BackwardContext& ctx, const std::string& suffix,
                                     double flops_per_element, int saved_tensors) {
  const double n = d(ctx.in().elements());
  const double e = ctx.out().bytes() / std::max(1.0, d(ctx.out().elements()));
  return ctx.make(suffix, OpClass::kElementwise, Phase::kBackwardData, flops_per_element * n,
                  (1 + saved_tensors) * n * e, ctx.in().bytes());
}

// Views (flatten, reshape, identity, ...): no forward op, and the output gradient flows to
// the input unchanged.
inline void view_forward(ForwardContext&) {}
inline void view_backward(BackwardContext& ctx) {
  if (ctx.needs_input_grad(0)) ctx.pass_input_grad(0);
}

// The same layer with the same inputs, output same shape as the first input.
inline std::vector<TensorInfo> same_as_input(const Layer&, const std::vector<TensorInfo>& in) {
  return {in.front()};
}

}  // namespace amdahl::graphs::ops
