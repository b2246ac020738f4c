// Elementwise layers: activations, dropout, residual add. Each reads its inputs and writes
// its output once; FLOPs per element are the operation count of the function (relu 1,
// sigmoid/tanh 4 as exp + add + divide + negate, clipped relu 2).

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

// An activation whose backward reads the output gradient and one saved tensor.
LayerKind activation(std::string name, std::string summary, double fwd_flops, double bwd_flops) {
  return LayerKind{
      .name = std::move(name),
      .summary = std::move(summary),
      .op_class = OpClass::kElementwise,
      .infer = same_as_input,
      .forward = [fwd_flops](
                     ForwardContext& ctx) { ctx.emit(elementwise_forward(ctx, "fwd", fwd_flops)); },
      .backward =
          [bwd_flops](BackwardContext& ctx) {
            if (ctx.needs_input_grad(0))
              ctx.emit(elementwise_backward(ctx, "bwd", bwd_flops, 1), 0);
          },
  };
}

std::vector<TensorInfo> add_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  for (const auto& t : in)
    check(t.shape == in.front().shape, layer,
          fmt::format("inputs must have the same shape (got {} and {})",
                      shape_str(in.front().shape), shape_str(t.shape)));
  return {in.front()};
}

}  // namespace

void register_activation_ops(LayerRegistry& r) {
  r.add(activation("relu", "rectified linear unit max(x, 0)", 1, 1));
  r.add(activation("clipped_relu", "min(max(x, 0), ceiling) (Deep Speech)", 2, 2));
  r.add(activation("sigmoid", "logistic 1 / (1 + exp(-x))", 4, 2));
  r.add(activation("tanh", "hyperbolic tangent", 4, 2));
  r.add(LayerKind{
      .name = "dropout",
      .summary = "random zeroing with probability p (training only; identity in inference)",
      .op_class = OpClass::kElementwise,
      .params = {float_param("p", "drop probability", "0.5")},
      .infer = same_as_input,
      .forward =
          [](ForwardContext& ctx) {
            if (!ctx.training) return;
            // Generates a mask (1 byte per element) and applies it.
            Operator op = elementwise_forward(ctx, "fwd", 2);
            op.bytes_written += d(ctx.out().elements());
            ctx.emit(std::move(op));
          },
      .backward =
          [](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            Operator op = elementwise_backward(ctx, "bwd", 1, 0);
            op.bytes_read += d(ctx.in().elements());  // the mask
            ctx.emit(std::move(op), 0);
          },
  });
  r.add(LayerKind{
      .name = "add",
      .summary = "elementwise sum of inputs of one shape (residual connections)",
      .op_class = OpClass::kElementwise,
      .min_inputs = 2,
      .max_inputs = -1,
      .infer = add_infer,
      .forward =
          [](ForwardContext& ctx) {
            ctx.emit(elementwise_forward(ctx, "fwd", d(ctx.inputs.size()) - 1));
          },
      .backward =
          [](BackwardContext& ctx) {
            for (std::size_t i = 0; i < ctx.inputs.size(); ++i)
              if (ctx.needs_input_grad(i)) ctx.pass_input_grad(i);
          },
  });
}

}  // namespace amdahl::graphs
