// Normalization layers. Batch norm (training) reads the input twice (statistics, then
// normalize) and writes it once; its backward reads input and output gradient twice
// (two reductions, then the elementwise gradient). Instance norm (Ulyanov et al. 2016)
// normalizes each (n, c) over its spatial dims with its own statistics in training and
// inference alike, so it always costs batch norm's training passes. LRN sums a window of
// 2r+1 channels.

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

std::vector<Weight> batchnorm_weights(const Layer&, const std::vector<TensorInfo>& in) {
  const std::int64_t c = in.front().shape.size() > 1 ? in.front().shape[1] : 1;
  return {{"weight", c}, {"bias", c}};
}

void batchnorm_forward(ForwardContext& ctx) {
  const double n = d(ctx.in().elements());
  if (!ctx.training) {
    // Inference: the running statistics fold into one per-channel scale-shift (2 FLOPs per
    // element, one pass), an elementwise op and costed as one (PyTorch 1.13 on this project's
    // CPU runs it at the speed of an add, 5-7x faster than the training forward;
    // framework_kernels.py's batchnorm_infer rows).
    ctx.emit(ctx.make("fwd", OpClass::kElementwise, 2.0 * n, ctx.in().bytes(), ctx.out().bytes()));
    return;
  }
  // Training: mean and variance (3 FLOPs/element) then scale-shift (4 FLOPs/element).
  ctx.emit(
      ctx.make("fwd", OpClass::kNormalization, 7.0 * n, 2.0 * ctx.in().bytes(), ctx.out().bytes()));
}

void batchnorm_backward(BackwardContext& ctx) {
  const double n = d(ctx.in().elements());
  const std::int64_t c = ctx.in().shape.size() > 1 ? ctx.in().shape[1] : 1;
  const double e = dtype_bytes(ctx.in().dtype);
  // One op as cuDNN runs it: reductions of dy and dy*x-hat (dgamma, dbeta), then dx.
  Operator op = ctx.make("bwd", OpClass::kNormalization, Phase::kBackwardData, 9.0 * n,
                         2.0 * (ctx.out().bytes() + ctx.in().bytes()),
                         (ctx.needs_input_grad(0) ? ctx.in().bytes() : 0.0) + 2.0 * e * d(c));
  ctx.emit(std::move(op), ctx.needs_input_grad(0) ? 0 : -1, 0);
  ctx.mark_weight(1);
}

void instance_norm_forward(ForwardContext& ctx) {
  // Statistics (3 FLOPs/element) then scale-shift (4), reading the input twice.
  ctx.emit(ctx.make("fwd", OpClass::kNormalization, 7.0 * d(ctx.in().elements()),
                    2.0 * ctx.in().bytes(), ctx.out().bytes()));
}

// Layer norm over the trailing dims from `axis` (Ba et al. 2016), one fused kernel per pass:
// forward mean 1 + variance 3 + normalize 2 + scale-shift 2 = 8 FLOPs per element, reading
// the input once; backward dx = rstd (dy g - mean(dy g) - x^ mean(dy g x^)) 10 FLOPs plus
// dgamma 2 and dbeta 1, reading dy and x.
std::int64_t normalized_elements(const Layer& layer, const TensorInfo& x) {
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::int64_t axis = layer.get_int("axis");
  check(rank > 0 && axis >= -rank && axis < rank, layer, [&] {
    return fmt::format("axis {} is outside the input's {} dims {}", axis, rank, shape_str(x.shape));
  });
  if (axis < 0) axis += rank;
  CheckedInt n = 1;
  for (std::int64_t i = axis; i < rank; ++i) n *= x.shape[static_cast<std::size_t>(i)];
  return checked_size(layer, "normalized elements", n);
}

void layernorm_backward(BackwardContext& ctx) {
  const double n = d(ctx.in().elements());
  const double e = dtype_bytes(ctx.in().dtype);
  const double w = d(normalized_elements(ctx.layer, ctx.in()));
  Operator op =
      ctx.make("bwd", OpClass::kNormalization, Phase::kBackwardData,
               (ctx.needs_input_grad(0) ? 13.0 : 3.0) * n, ctx.out().bytes() + ctx.in().bytes(),
               (ctx.needs_input_grad(0) ? ctx.in().bytes() : 0.0) + 2.0 * e * w);
  if (!ctx.layer.get_bool("affine")) {
    if (ctx.needs_input_grad(0)) ctx.emit(std::move(op), 0);
    return;
  }
  ctx.emit(std::move(op), ctx.needs_input_grad(0) ? 0 : -1, 0);
  ctx.mark_weight(1);
}

}  // namespace

void register_norm_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "batchnorm2d",
      .summary = "batch normalization over N, H, W per channel (learned scale and shift)",
      .op_class = OpClass::kNormalization,
      .params = {float_param("eps", "variance epsilon", "1e-5").at_least(0)},
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            check(in.front().shape.size() >= 2, layer, [&] {
              return fmt::format("expects [N, C, ...] (got {})", shape_str(in.front().shape));
            });
            return same_as_input(layer, in);
          },
      .weights = batchnorm_weights,
      .forward = batchnorm_forward,
      .backward = batchnorm_backward,
  });
  r.add(LayerKind{
      .name = "instance_norm",
      .summary = "instance normalization over the spatial dims of each (n, c) (scale, shift per C)",
      .op_class = OpClass::kNormalization,
      .params = {float_param("eps", "variance epsilon", "1e-5").at_least(0)},
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            check(in.front().shape.size() >= 3, layer, [&] {
              return fmt::format("expects [N, C, D1, ...] (got {})", shape_str(in.front().shape));
            });
            return same_as_input(layer, in);
          },
      .weights = batchnorm_weights,
      .forward = instance_norm_forward,
      .backward = batchnorm_backward,
  });
  r.add(LayerKind{
      .name = "layer_norm",
      .summary = "layer normalization over the dims from `axis` to the end (learned gain, bias)",
      .op_class = OpClass::kNormalization,
      .params = {int_param("axis", "first normalized dim (negative counts from the end)", "-1"),
                 float_param("eps", "variance epsilon", "1e-5").at_least(0),
                 bool_param("affine", "learned gain and bias", "true")},
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            normalized_elements(layer, in.front());
            return same_as_input(layer, in);
          },
      .weights =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            if (!layer.get_bool("affine")) return std::vector<Weight>{};
            const std::int64_t w = normalized_elements(layer, in.front());
            return std::vector<Weight>{{"weight", w}, {"bias", w}};
          },
      .forward =
          [](ForwardContext& ctx) {
            ctx.emit(elementwise_forward(ctx, "fwd", 8, OpClass::kNormalization));
          },
      .backward = layernorm_backward,
  });
  r.add(LayerKind{
      .name = "lrn",
      .summary = "local response normalization across 2r+1 channels (AlexNet)",
      .op_class = OpClass::kNormalization,
      .params = {int_param("depth_radius", "r: channels on each side", "2").at_least(0),
                 float_param("bias", "k", "1"), float_param("alpha", "alpha", "1e-4"),
                 float_param("beta", "beta", "0.75")},
      .infer = same_as_input,
      .forward =
          [](ForwardContext& ctx) {
            // Window sum of squares (2r+1 FMAs), then bias, power and multiply (3).
            const double window = 2.0 * d(ctx.layer.get_int("depth_radius")) + 1.0;
            ctx.emit(elementwise_forward(ctx, "fwd", 2.0 * window + 3.0, OpClass::kNormalization));
          },
      .backward =
          [](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            const double window = 2.0 * d(ctx.layer.get_int("depth_radius")) + 1.0;
            Operator op = elementwise_backward(ctx, "bwd", 4.0 * window + 6.0, 2);
            op.op_class = OpClass::kNormalization;
            ctx.emit(std::move(op), 0);
          },
  });
}

}  // namespace amdahl::graphs
