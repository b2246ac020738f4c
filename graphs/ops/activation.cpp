// Elementwise layers: activations, dropout, residual add. Each reads its inputs and writes
// its output once; FLOPs per element are the operation count of the function (relu 1,
// sigmoid/tanh 4 as exp + add + divide + negate, their derivatives dy y (1 - y) and
// dy (1 - y^2) 3 (the tanh derivative recurrent.cpp counts), clipped relu 2; gelu in its tanh form
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) 12: cube 2, fma 2, scale 1, tanh 4, add 1,
// two products 2; its backward 20; silu x sigmoid(x) 5, backward sigmoid (1 + x (1 - s)) 8).

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
      .params = {inplace_param()},
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
    check(t.shape == in.front().shape, layer, [&] {
      return fmt::format("inputs must have the same shape (got {} and {})",
                         shape_str(in.front().shape), shape_str(t.shape));
    });
  return {in.front()};
}

}  // namespace

void register_activation_ops(LayerRegistry& r) {
  r.add(activation("relu", "rectified linear unit max(x, 0)", 1, 1));
  r.add(activation("clipped_relu", "min(max(x, 0), ceiling) (Deep Speech)", 2, 2));
  r.add(activation("sigmoid", "logistic 1 / (1 + exp(-x))", 4, 3));
  r.add(activation("tanh", "hyperbolic tangent", 4, 3));
  r.add(activation("gelu", "Gaussian error linear unit (tanh approximation; BERT, GPT-2)", 12, 20));
  r.add(activation("silu", "x * sigmoid(x) (swish)", 5, 8));
  r.add(LayerKind{
      .name = "reparameterize",
      .summary = "VAE sample z = mean + exp(logvar / 2) * eps, eps ~ N(0, 1); inputs mean, logvar",
      .op_class = OpClass::kElementwise,
      .min_inputs = 2,
      .max_inputs = 2,
      .infer = add_infer,
      // Draws eps (a random number, ~1 FLOP), scale 1, exp 1, multiply 1, add 1; writes z
      // and keeps eps for the backward pass.
      .forward =
          [](ForwardContext& ctx) {
            Operator op = elementwise_forward(ctx, "fwd", 5);
            op.bytes_written *= 2;
            ctx.emit(std::move(op));
          },
      // d(mean) = dz; d(logvar) = dz * eps * exp(logvar / 2) / 2: 3 FLOPs per element.
      .backward =
          [](BackwardContext& ctx) {
            if (ctx.needs_input_grad(0)) ctx.pass_input_grad(0);
            if (ctx.needs_input_grad(1)) {
              Operator op = elementwise_backward(ctx, "bwd_logvar", 3, 2);
              op.output_shape = ctx.in(1).shape;
              ctx.emit(std::move(op), 1);
            }
          },
  });
  r.add(LayerKind{
      .name = "dropout",
      .summary = "random zeroing with probability p (training only; identity in inference)",
      .op_class = OpClass::kElementwise,
      .params = {float_param("p", "drop probability", "0.5").within(0, 1)},
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
      .params = {inplace_param()},
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
