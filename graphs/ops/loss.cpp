// Losses. Softmax cross-entropy over the last dim of the logits: forward a softmax (max,
// subtract, exp, sum, divide: 5 FLOPs/element) and the per-example loss; backward the
// elementwise (softmax - one_hot) / batch.
// mse: 0.5 or mean squared error of two same-shape tensors: difference, square, sum = 3 FLOPs
// per element; backward the scaled difference, 2 per element per input needing it.
// vae_kl: KL(N(mean, exp(logvar)) || N(0, I)) = -0.5 sum(1 + logvar - mean^2 - exp(logvar))
// (Kingma & Welling 2014, appendix B): square 1, exp 1, three sums 3, reduce 1 = 6 FLOPs per
// element; backward d(mean) = mean (1) and d(logvar) = (exp(logvar) - 1) / 2 (3).
// ctc: a documented approximation of CTC (Graves et al. 2006): log-softmax over the classes
// (5 FLOPs per logit), then the alpha recursion over the 2S+1 label lattice for `frames`
// steps (8 FLOPs per state and step: log-sum-exp of up to three predecessors); backward the
// beta recursion (8), the state posteriors (4) and the gradient of the logits (2 per logit).
// It ignores label-dependent repeats and early exit of short labels.
// sampled_softmax: the output projection trained through sampled softmax (Jean et al. 2015;
// tf.nn.sampled_softmax_loss as Fathom seq2seq uses it): hidden [..., H] of M rows, a
// [classes, H] projection and bias; per step gather the rows of `num_sampled` shared samples
// and the true classes, logits M x num_sampled GEMM (k = H) plus the true logits (2 H per
// row), softmax cross-entropy over num_sampled + 1 (5 FLOPs per logit). Backward: logit
// gradient (2 per logit), dh GEMM, and a sparse weight gradient into the gathered rows.
// td_huber: Q-learning TD loss (Mnih et al. 2015): Q(s, a) picked from [N, A] by a one-hot
// product and a max over actions (2 FLOPs per Q value), the error against the target and its
// Huber clip (4 FLOPs per example); backward scatters the clipped error (2 per Q value).

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const TensorInfo& logits = in[0];
  const TensorInfo& labels = in[1];
  check(logits.shape.size() >= 2, layer, [&] {
    return fmt::format("expects logits [N, classes] (got {})", shape_str(logits.shape));
  });
  const CheckedInt expected = CheckedInt(labels.elements()) * logits.shape.back();
  check(expected.ok() && expected.value() == logits.elements(), layer, [&] {
    return fmt::format("labels {} do not match logits {}", shape_str(labels.shape),
                       shape_str(logits.shape));
  });
  return {TensorInfo{{}, DType::kF32}};
}

std::vector<TensorInfo> scalar_loss(const Layer&, const std::vector<TensorInfo>&) {
  return {TensorInfo{{}, DType::kF32}};
}

std::vector<TensorInfo> same_shape_loss(const Layer& layer, const std::vector<TensorInfo>& in) {
  check(in[0].shape == in[1].shape, layer, [&] {
    return fmt::format("inputs must have the same shape (got {} and {})", shape_str(in[0].shape),
                       shape_str(in[1].shape));
  });
  return scalar_loss(layer, in);
}

void pairwise_backward(BackwardContext& ctx, double flops0, double flops1) {
  for (int i = 0; i < 2; ++i) {
    if (!ctx.needs_input_grad(i)) continue;
    const TensorInfo& t = ctx.in(i);
    const double n = d(t.elements());
    Operator op =
        ctx.make(fmt::format("bwd{}", i), OpClass::kElementwise, Phase::kBackwardData,
                 (i == 0 ? flops0 : flops1) * n, ctx.in(0).bytes() + ctx.in(1).bytes(), t.bytes());
    op.output_shape = t.shape;
    ctx.emit(std::move(op), i);
  }
}

struct CtcGeometry {
  std::int64_t t, n, c, s, frames;
  // The alpha (or beta) states: frames x N x (2S + 1).
  double states() const { return dprod(frames, n, 2 * d(s) + 1); }
};

CtcGeometry ctc_geometry(const Layer& layer, const std::vector<TensorInfo>& in) {
  expect_rank(layer, in[0], 3, "[T, N, C]");
  expect_rank(layer, in[1], 2, "[N, S]");
  CtcGeometry g{in[0].shape[0], in[0].shape[1], in[0].shape[2], in[1].shape[1], 0};
  check(in[1].shape[0] == g.n, layer, [&] {
    return fmt::format("labels {} and logits {} disagree on the batch", shape_str(in[1].shape),
                       shape_str(in[0].shape));
  });
  g.frames = layer.get_int("frames");
  if (g.frames == 0 || g.frames > g.t) g.frames = g.t;
  return g;
}

struct SampledGeometry {
  std::int64_t m, h, classes, samples;
};

SampledGeometry sampled_geometry(const Layer& layer, const std::vector<TensorInfo>& in) {
  check(!in[0].shape.empty(), layer, "expects hidden states [..., H]");
  const std::int64_t h = in[0].shape.back();
  const std::int64_t m = in[0].elements() / std::max<std::int64_t>(h, 1);
  check(in[1].elements() == m, layer, [&] {
    return fmt::format("labels {} need one class per row of {}", shape_str(in[1].shape),
                       shape_str(in[0].shape));
  });
  return {m, h, layer.get_int("num_classes"), layer.get_int("num_sampled")};
}

// A loss over two inputs of one shape: `flops_per_element` forward, a scalar output, and
// the backward FLOPs per element of each input's gradient (pairwise_backward).
LayerKind pairwise_loss(std::string name, std::string summary, double flops_per_element,
                        double backward_flops0, double backward_flops1) {
  return LayerKind{
      .name = std::move(name),
      .summary = std::move(summary),
      .op_class = OpClass::kElementwise,
      .min_inputs = 2,
      .max_inputs = 2,
      .is_loss = true,
      .infer = same_shape_loss,
      .forward =
          [flops_per_element](ForwardContext& ctx) {
            ctx.emit(ctx.make("fwd", OpClass::kElementwise,
                              flops_per_element * d(ctx.in(0).elements()),
                              ctx.in(0).bytes() + ctx.in(1).bytes(), 4.0));
          },
      .backward =
          [backward_flops0, backward_flops1](BackwardContext& ctx) {
            pairwise_backward(ctx, backward_flops0, backward_flops1);
          },
  };
}

}  // namespace

void register_loss_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "softmax_cross_entropy",
      .summary = "softmax over classes and mean cross-entropy against integer labels",
      .op_class = OpClass::kSoftmax,
      .min_inputs = 2,
      .max_inputs = 2,
      .is_loss = true,
      .infer = infer,
      .forward =
          [](ForwardContext& ctx) {
            const double n = d(ctx.in(0).elements());
            ctx.emit(ctx.make("fwd", OpClass::kSoftmax, 5.0 * n + d(ctx.in(1).elements()),
                              ctx.in(0).bytes() + ctx.in(1).bytes(), ctx.in(0).bytes() + 4.0));
          },
      .backward =
          [](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            const double n = d(ctx.in(0).elements());
            Operator op = ctx.make("bwd", OpClass::kSoftmax, Phase::kBackwardData, 2.0 * n,
                                   ctx.in(0).bytes() + ctx.in(1).bytes(), ctx.in(0).bytes());
            ctx.emit(std::move(op), 0);
          },
  });
  r.add(pairwise_loss(
      "mse", "squared error of two same-shape tensors (prediction, target), summed or mean", 3.0, 2,
      2));
  r.add(pairwise_loss("vae_kl",
                      "VAE KL divergence of N(mean, exp(logvar)) to N(0, I); inputs mean, logvar",
                      6.0, 1, 3));
  r.add(LayerKind{
      .name = "ctc",
      .summary = "connectionist temporal classification (approximate cost); logits [T, N, C], "
                 "labels [N, S]",
      .op_class = OpClass::kSoftmax,
      .params = {int_param("frames", "time steps scored (0: all T)", "0").at_least(0)},
      .min_inputs = 2,
      .max_inputs = 2,
      .is_loss = true,
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            ctc_geometry(layer, in);
            return scalar_loss(layer, in);
          },
      .forward =
          [](ForwardContext& ctx) {
            const double states = ctc_geometry(ctx.layer, ctx.inputs).states();
            ctx.emit(
                ctx.make("fwd", OpClass::kSoftmax, 5.0 * d(ctx.in(0).elements()) + 8.0 * states,
                         ctx.in(0).bytes() + ctx.in(1).bytes(), ctx.in(0).bytes() + 4.0 * states));
          },
      .backward =
          [](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            const double states = ctc_geometry(ctx.layer, ctx.inputs).states();
            ctx.emit(ctx.make("bwd", OpClass::kSoftmax, Phase::kBackwardData,
                              12.0 * states + 2.0 * d(ctx.in(0).elements()),
                              2.0 * ctx.in(0).bytes() + 4.0 * states, ctx.in(0).bytes()),
                     0);
          },
  });
  r.add(LayerKind{
      .name = "td_huber",
      .summary = "Q-learning TD loss: Q(s, a) of [N, A] by one-hot and max, Huber-clipped "
                 "error against a target [N]",
      .op_class = OpClass::kElementwise,
      .min_inputs = 2,
      .max_inputs = 2,
      .is_loss = true,
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            expect_rank(layer, in[0], 2, "[N, A]");
            check(in[1].elements() == in[0].shape[0], layer, [&] {
              return fmt::format("target {} needs one value per row of {}", shape_str(in[1].shape),
                                 shape_str(in[0].shape));
            });
            return scalar_loss(layer, in);
          },
      .forward =
          [](ForwardContext& ctx) {
            ctx.emit(ctx.make("fwd", OpClass::kElementwise,
                              2.0 * d(ctx.in(0).elements()) + 4.0 * d(ctx.in(1).elements()),
                              2.0 * ctx.in(0).bytes() + ctx.in(1).bytes(), 4.0));
          },
      .backward =
          [](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            ctx.emit(ctx.make("bwd", OpClass::kElementwise, Phase::kBackwardData,
                              2.0 * d(ctx.in(0).elements()),
                              2.0 * ctx.in(0).bytes() + ctx.in(1).bytes(), ctx.in(0).bytes()),
                     0);
          },
  });
  r.add(LayerKind{
      .name = "sampled_softmax",
      .summary = "output projection + sampled softmax cross-entropy (hidden [..., H], labels)",
      .op_class = OpClass::kSoftmax,
      .params = {int_param("num_classes", "classes of the full projection").at_least(1),
                 int_param("num_sampled", "negative samples shared across the batch").at_least(1)},
      .min_inputs = 2,
      .max_inputs = 2,
      .is_loss = true,
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            sampled_geometry(layer, in);
            return scalar_loss(layer, in);
          },
      .weights =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            const SampledGeometry g = sampled_geometry(layer, in);
            return std::vector<Weight>{
                {"weight", checked_size(layer, "weight", CheckedInt(g.classes) * g.h)},
                {"bias", g.classes}};
          },
      .forward =
          [](ForwardContext& ctx) {
            const SampledGeometry g = sampled_geometry(ctx.layer, ctx.inputs);
            const double e = dtype_bytes(ctx.in(0).dtype);
            const double rows = d(g.samples) + d(g.m);
            ctx.emit(ctx.make("gather", OpClass::kEmbedding, 0, e * rows * (d(g.h) + 1),
                              e * rows * (d(g.h) + 1)));
            Operator logits =
                ctx.make("logits", OpClass::kGemm,
                         2.0 * d(g.m) * d(g.h) * d(g.samples) + 2.0 * dprod(g.m, g.h),
                         ctx.in(0).bytes() + e * rows * d(g.h), e * dprod(g.m, d(g.samples) + 1));
            logits.gemm = {g.m, g.samples, g.h, 1};
            ctx.emit(std::move(logits));
            const double n = dprod(g.m, d(g.samples) + 1);
            ctx.emit(ctx.make("softmax", OpClass::kSoftmax, 5.0 * n, e * n + ctx.in(1).bytes(),
                              e * n + 4.0));
          },
      .backward =
          [](BackwardContext& ctx) {
            const SampledGeometry g = sampled_geometry(ctx.layer, ctx.inputs);
            const double e = dtype_bytes(ctx.in(0).dtype);
            const double n = dprod(g.m, d(g.samples) + 1);
            const double gemm = 2.0 * d(g.m) * d(g.h) * (d(g.samples) + 1);
            const std::int64_t logits =
                checked_size(ctx.layer, "logits per row", CheckedInt(g.samples) + 1);
            ctx.emit(ctx.make("softmax.bwd", OpClass::kSoftmax, Phase::kBackwardData, 2.0 * n,
                              e * n, e * n));
            if (ctx.needs_input_grad(0)) {
              Operator dh =
                  ctx.make("bwd_data", OpClass::kGemm, Phase::kBackwardData, gemm,
                           e * (n + dprod(d(g.samples) + d(g.m), g.h)), ctx.in(0).bytes());
              dh.gemm = {g.m, g.h, logits, 1};
              ctx.emit_after(std::move(dh), 0);
            }
            Operator dw =
                ctx.make("bwd_weight", OpClass::kGemm, Phase::kBackwardWeight, gemm,
                         e * n + ctx.in(0).bytes(), e * dprod(d(g.samples) + d(g.m), d(g.h) + 1));
            dw.gemm = {logits, g.h, g.m, 1};
            ctx.emit_after(std::move(dw), -1, 0);
            ctx.mark_weight(1);
          },
  });
}

}  // namespace amdahl::graphs
