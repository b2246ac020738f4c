// Standalone softmax over one axis: max, subtract, exp, sum, divide = 5 FLOPs per element
// (the same count as softmax_cross_entropy). Backward dx = y (dy - sum(dy y)): multiply,
// reduce, subtract, multiply = 4 FLOPs per element, reading y and dy.

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const auto rank = static_cast<std::int64_t>(in.front().shape.size());
  const std::int64_t axis = layer.get_int("axis");
  check(rank > 0 && axis >= -rank && axis < rank, layer, [&] {
    return fmt::format("axis {} is outside the input's {} dims {}", axis, rank,
                       shape_str(in.front().shape));
  });
  return {in.front()};
}

}  // namespace

void register_softmax_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "softmax",
      .summary = "softmax along `axis` (default the last)",
      .op_class = OpClass::kSoftmax,
      .params = {int_param("axis", "normalized dim (negative counts from the end)", "-1")},
      .infer = infer,
      .forward =
          [](ForwardContext& ctx) {
            ctx.emit(elementwise_forward(ctx, "fwd", 5, OpClass::kSoftmax));
          },
      .backward =
          [](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            Operator op = elementwise_backward(ctx, "bwd", 4, 1);
            op.op_class = OpClass::kSoftmax;
            ctx.emit(std::move(op), 0);
          },
  });
}

}  // namespace amdahl::graphs
