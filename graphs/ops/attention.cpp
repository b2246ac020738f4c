// Attention over [N, L, E] tensors (batch first).
//
// score: dot (Vaswani et al. 2017, "Attention is all you need", eq. 1; multi-head as
// torch.nn.MultiheadAttention): Q = q Wq, K = k Wk, V = v Wv (one fused in-projection GEMM for
// self-attention), per head S = Q K^T / sqrt(d) (batched GEMM, batch N*heads, m = Lq, n = Lk,
// k = E/heads), P = softmax(S) (scale, mask and softmax: 7 FLOPs per score), O = P V (batched
// GEMM, m = Lq, n = E/heads, k = Lk), y = O Wo. FLOPs: projections 2*N*L*E_in*E each,
// S and O 2*N*Lq*Lk*E each.
//
// score: additive (Bahdanau et al. 2015; TensorFlow legacy_seq2seq attention_decoder, the
// soft attention over encoder states of Fathom seq2seq): keys K = k Wk (no bias), query
// q' = q Wq + b, S = v . tanh(K + q') over [N, Lq, Lk, E] (add 1 + tanh 4 + dot 2 = 7 FLOPs
// per element), P = softmax(S), context = P k (batched GEMM, m = Lq, n = Ek, k = Lk). The
// output is the context, [N, Lq, Ek]; there is no value or output projection.
//
// Backward: each GEMM has two gradient GEMMs of its forward FLOPs (data and weight, or the
// two operands); softmax backward 4 FLOPs per score; additive scores 9 per element.
// Inputs: 1 (self-attention), 2 (query, memory: keys = values) or 3 (query, key, value).

#include <cmath>

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

struct AttentionGeometry {
  std::int64_t n, lq, lk, eq, ek, ev, e, heads;
  bool self, additive, projections, bias;
  double dropout;
  // GEMM dimensions: the rows N*Lq and N*Lk of the projections, the fused in-projection's
  // width 3E, and the batch N*heads of the per-head GEMMs.
  std::int64_t q_rows, k_rows, qkv_width, batch_heads;
};

AttentionGeometry geometry(const Layer& layer, const std::vector<TensorInfo>& in) {
  for (const auto& t : in) expect_rank(layer, t, 3, "[N, L, E]");
  const TensorInfo& q = in[0];
  const TensorInfo& k = in.size() > 1 ? in[1] : in[0];
  const TensorInfo& v = in.size() > 2 ? in[2] : k;
  AttentionGeometry g{};
  g.n = q.shape[0];
  g.lq = q.shape[1];
  g.eq = q.shape[2];
  g.lk = k.shape[1];
  g.ek = k.shape[2];
  g.ev = v.shape[2];
  g.self = in.size() == 1;
  g.additive = layer.get_string("score") == "additive";
  g.projections = layer.get_bool("projections");
  g.bias = layer.get_bool("bias");
  g.heads = layer.get_int("heads");
  g.dropout = layer.get_float("dropout");
  g.e = layer.get_int("embed_dim");
  if (g.e == 0) g.e = g.eq;
  check(k.shape[0] == g.n && v.shape[0] == g.n, layer, [&] {
    return fmt::format("batch sizes differ: query {}, key {}, value {}", shape_str(q.shape),
                       shape_str(k.shape), shape_str(v.shape));
  });
  check(v.shape[1] == g.lk, layer, [&] {
    return fmt::format("key and value lengths differ: {} and {}", shape_str(k.shape),
                       shape_str(v.shape));
  });
  check(g.heads > 0 && g.e % g.heads == 0, layer,
        [&] { return fmt::format("heads {} must divide embed_dim {}", g.heads, g.e); });
  if (g.additive) {
    check(g.heads == 1, layer, "additive attention has one head");
  } else if (!g.projections) {
    check(g.eq == g.ek && g.ev == g.eq && g.e == g.eq, layer, [&] {
      return fmt::format(
          "without projections query, key and value widths must equal embed_dim "
          "(got {}, {}, {}; embed_dim {})",
          g.eq, g.ek, g.ev, g.e);
    });
  }
  g.q_rows = checked_size(layer, "query rows N*Lq", CheckedInt(g.n) * g.lq);
  g.k_rows = checked_size(layer, "key rows N*Lk", CheckedInt(g.n) * g.lk);
  g.qkv_width = checked_size(layer, "in_proj width 3E", CheckedInt(3) * g.e);
  g.batch_heads = checked_size(layer, "GEMM batch N*heads", CheckedInt(g.n) * g.heads);
  return g;
}

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const AttentionGeometry g = geometry(layer, in);
  return {TensorInfo{{g.n, g.lq, g.additive ? g.ek : g.e}, in.front().dtype}};
}

std::vector<Weight> weights(const Layer& layer, const std::vector<TensorInfo>& in) {
  const AttentionGeometry g = geometry(layer, in);
  std::vector<Weight> w;
  auto proj = [&](const std::string& name, std::int64_t rows, std::int64_t cols, bool bias) {
    w.push_back({name + ".weight", checked_size(layer, name + ".weight", CheckedInt(rows) * cols)});
    if (bias) w.push_back({name + ".bias", rows});
  };
  if (g.additive) {
    proj("k_proj", g.e, g.ek, false);
    proj("q_proj", g.e, g.eq, g.bias);
    w.push_back({"v", g.e});
    return w;
  }
  if (!g.projections) return w;
  if (g.self) {
    proj("in_proj", g.qkv_width, g.eq, g.bias);
  } else {
    proj("q_proj", g.e, g.eq, g.bias);
    proj("k_proj", g.e, g.ek, g.bias);
    proj("v_proj", g.e, g.ev, g.bias);
  }
  proj("out_proj", g.e, g.e, g.bias);
  return w;
}

Operator with_gemm(Operator op, std::int64_t m, std::int64_t n, std::int64_t k,
                   std::int64_t batch = 1) {
  op.gemm = {m, n, k, batch};
  return op;
}

// The projection x[rows, in] W^T -> [rows, out] (+ bias).
Operator projection(const ForwardContext& ctx, const std::string& name, std::int64_t rows,
                    std::int64_t in, std::int64_t out, bool bias, double e) {
  return with_gemm(ctx.make(name, OpClass::kGemm,
                            2.0 * d(rows) * d(in) * d(out) + (bias ? dprod(rows, out) : 0.0),
                            e * (dprod(rows, in) + dprod(in, out) + (bias ? d(out) : 0.0)),
                            e * dprod(rows, out)),
                   rows, out, in);
}

void forward(ForwardContext& ctx) {
  const AttentionGeometry g = geometry(ctx.layer, ctx.inputs);
  const double e = dtype_bytes(ctx.in().dtype);
  const double scores = dprod(g.n, g.lq, g.lk, g.heads);
  if (g.additive) {
    ctx.emit(projection(ctx, "k_proj", g.k_rows, g.ek, g.e, false, e));
    ctx.emit(projection(ctx, "q_proj", g.q_rows, g.eq, g.e, g.bias, e));
    const double elems = dprod(g.n, g.lq, g.lk, g.e);
    ctx.emit(ctx.make("scores", OpClass::kAttention, 7.0 * elems,
                      e * (dprod(g.n, d(g.lk) + d(g.lq), g.e) + d(g.e)),
                      e * dprod(g.n, g.lq, g.lk)));
    ctx.emit(ctx.make("softmax", OpClass::kSoftmax, 5.0 * scores, e * scores, e * scores));
    ctx.emit(with_gemm(ctx.make("context", OpClass::kAttention, 2.0 * scores * d(g.ek),
                                e * (scores + dprod(g.n, g.lk, g.ek)), ctx.out().bytes()),
                       g.lq, g.ek, g.lk, g.n));
    return;
  }
  if (g.projections) {
    if (g.self) {
      ctx.emit(projection(ctx, "in_proj", g.q_rows, g.eq, g.qkv_width, g.bias, e));
    } else {
      ctx.emit(projection(ctx, "q_proj", g.q_rows, g.eq, g.e, g.bias, e));
      ctx.emit(projection(ctx, "k_proj", g.k_rows, g.ek, g.e, g.bias, e));
      ctx.emit(projection(ctx, "v_proj", g.k_rows, g.ev, g.e, g.bias, e));
    }
  }
  const std::int64_t dh = g.e / g.heads;
  ctx.emit(with_gemm(ctx.make("scores", OpClass::kAttention, 2.0 * scores * d(dh),
                              e * dprod(g.n, d(g.lq) + d(g.lk), g.e), e * scores),
                     g.lq, g.lk, dh, g.batch_heads));
  // Scale, mask and softmax in one kernel; in training dropout on the probabilities.
  Operator softmax = ctx.make("softmax", OpClass::kSoftmax, 7.0 * scores, e * scores, e * scores);
  if (ctx.training && g.dropout > 0) {
    softmax.flops += 2.0 * scores;
    softmax.bytes_written += scores;  // the 1-byte mask
  }
  ctx.emit(std::move(softmax));
  ctx.emit(with_gemm(ctx.make("context", OpClass::kAttention, 2.0 * scores * d(dh),
                              e * (scores + dprod(g.n, g.lk, g.e)), e * dprod(g.n, g.lq, g.e)),
                     g.lq, dh, g.lk, g.batch_heads));
  if (g.projections) ctx.emit(projection(ctx, "out_proj", g.q_rows, g.e, g.e, g.bias, e));
}

// Emits backward ops as one chain.
class Backward {
 public:
  explicit Backward(BackwardContext& ctx) : ctx_(ctx) {}

  void emit(Operator op, int grad_of_input = -1, int grad_of_weight = -1) {
    if (first_)
      ctx_.emit(std::move(op), grad_of_input, grad_of_weight);
    else
      ctx_.emit_after(std::move(op), grad_of_input, grad_of_weight);
    first_ = false;
  }

  // Gradients of y = x W^T + b: dx (when wanted), dW and db, marking weights `weight` and
  // `weight` + 1 (the index advances past them).
  void projection(const std::string& name, std::int64_t rows, std::int64_t in, std::int64_t out,
                  bool bias, double e, bool want_dx, int input, int& weight) {
    const double flops = 2.0 * d(rows) * d(in) * d(out);
    if (want_dx)
      emit(with_gemm(ctx_.make(name + ".bwd_data", OpClass::kGemm, Phase::kBackwardData, flops,
                               e * (dprod(rows, out) + dprod(in, out)), e * dprod(rows, in)),
                     rows, in, out),
           input);
    emit(with_gemm(ctx_.make(name + ".bwd_weight", OpClass::kGemm, Phase::kBackwardWeight, flops,
                             e * dprod(rows, d(in) + d(out)), e * dprod(in, out)),
                   out, in, rows),
         -1, weight++);
    if (bias)
      emit(ctx_.make(name + ".bwd_bias", OpClass::kReduction, Phase::kBackwardWeight,
                     dprod(rows, out), e * dprod(rows, out), e * d(out)),
           -1, weight++);
  }

 private:
  BackwardContext& ctx_;
  bool first_ = true;
};

void backward(BackwardContext& ctx) {
  const AttentionGeometry g = geometry(ctx.layer, ctx.inputs);
  const double e = dtype_bytes(ctx.in().dtype);
  const double scores = dprod(g.n, g.lq, g.lk, g.heads);
  const bool dq = ctx.needs_input_grad(0);
  const bool dk = g.self ? dq : ctx.needs_input_grad(1);
  const bool dv = g.self ? dq : ctx.needs_input_grad(ctx.inputs.size() > 2 ? 2 : 1);
  const int key_input = g.self ? 0 : 1;
  const int value_input = ctx.inputs.size() > 2 ? 2 : key_input;
  Backward b(ctx);
  if (g.additive) {
    // Weights: k_proj.weight, q_proj.weight, [q_proj.bias], v — in that order.
    b.emit(
        with_gemm(ctx.make("context.bwd", OpClass::kAttention, Phase::kBackwardData,
                           2.0 * 2.0 * scores * d(g.ek), e * (2 * dprod(g.n, g.lq, g.ek) + scores),
                           e * (scores + dprod(g.n, g.lk, g.ek))),
                  g.lq, g.lk, g.ek, g.n),
        dv ? value_input : -1);
    b.emit(ctx.make("softmax.bwd", OpClass::kSoftmax, Phase::kBackwardData, 4.0 * scores,
                    2.0 * e * scores, e * scores));
    const double elems = dprod(g.n, g.lq, g.lk, g.e);
    const int k_weight = 0;
    const int q_weight = 1;
    const int q_bias = g.bias ? 2 : -1;
    const int v_weight = g.bias ? 3 : 2;
    // d(tanh) and dv: 9 FLOPs per element, reduced over Lk for d(q') and over Lq for dK.
    b.emit(ctx.make("scores.bwd", OpClass::kAttention, Phase::kBackwardData, 9.0 * elems,
                    e * (dprod(g.n, d(g.lk) + d(g.lq), g.e) + dprod(g.n, g.lq, g.lk)),
                    e * (dprod(g.n, d(g.lk) + d(g.lq), g.e) + d(g.e))),
           -1, v_weight);
    const double kflops = 2.0 * dprod(g.n, g.lk) * d(g.ek) * d(g.e);
    if (dk)
      b.emit(with_gemm(ctx.make("k_proj.bwd_data", OpClass::kGemm, Phase::kBackwardData, kflops,
                                e * (dprod(g.n, g.lk, g.e) + dprod(g.e, g.ek)),
                                e * dprod(g.n, g.lk, g.ek)),
                       g.k_rows, g.ek, g.e),
             key_input);
    b.emit(with_gemm(ctx.make("k_proj.bwd_weight", OpClass::kGemm, Phase::kBackwardWeight, kflops,
                              e * dprod(g.n, g.lk, d(g.e) + d(g.ek)), e * dprod(g.e, g.ek)),
                     g.e, g.ek, g.k_rows),
           -1, k_weight);
    const double qflops = 2.0 * dprod(g.n, g.lq) * d(g.eq) * d(g.e);
    if (dq)
      b.emit(with_gemm(ctx.make("q_proj.bwd_data", OpClass::kGemm, Phase::kBackwardData, qflops,
                                e * (dprod(g.n, g.lq, g.e) + dprod(g.e, g.eq)),
                                e * dprod(g.n, g.lq, g.eq)),
                       g.q_rows, g.eq, g.e),
             0);
    b.emit(with_gemm(ctx.make("q_proj.bwd_weight", OpClass::kGemm, Phase::kBackwardWeight, qflops,
                              e * dprod(g.n, g.lq, d(g.e) + d(g.eq)), e * dprod(g.e, g.eq)),
                     g.e, g.eq, g.q_rows),
           -1, q_weight);
    if (q_bias >= 0)
      b.emit(ctx.make("q_proj.bwd_bias", OpClass::kReduction, Phase::kBackwardWeight,
                      dprod(g.n, g.lq, g.e), e * dprod(g.n, g.lq, g.e), e * d(g.e)),
             -1, q_bias);
    return;
  }
  const std::int64_t dh = g.e / g.heads;
  const bool proj = g.projections;
  // Weight order from weights(): [in_proj | q, k, v], out_proj; each weight then bias.
  int out_weight = proj ? (g.self ? 1 : 3) * (g.bias ? 2 : 1) : 0;
  if (proj) b.projection("out_proj", g.q_rows, g.e, g.e, g.bias, e, true, -1, out_weight);
  const double gemm = 2.0 * scores * d(dh);
  // dP = dO V^T and dV = P^T dO.
  b.emit(with_gemm(ctx.make("context.bwd_p", OpClass::kAttention, Phase::kBackwardData, gemm,
                            e * dprod(g.n, d(g.lq) + d(g.lk), g.e), e * scores),
                   g.lq, g.lk, dh, g.batch_heads));
  b.emit(with_gemm(ctx.make("context.bwd_v", OpClass::kAttention, Phase::kBackwardData, gemm,
                            e * (scores + dprod(g.n, g.lq, g.e)), e * dprod(g.n, g.lk, g.e)),
                   g.lk, dh, g.lq, g.batch_heads),
         !proj && dv ? value_input : -1);
  b.emit(ctx.make("softmax.bwd", OpClass::kSoftmax, Phase::kBackwardData,
                  (ctx.layer.get_float("dropout") > 0 ? 5.0 : 4.0) * scores, 2.0 * e * scores,
                  e * scores));
  // dQ = dS K and dK = dS^T Q.
  b.emit(with_gemm(ctx.make("scores.bwd_q", OpClass::kAttention, Phase::kBackwardData, gemm,
                            e * (scores + dprod(g.n, g.lk, g.e)), e * dprod(g.n, g.lq, g.e)),
                   g.lq, dh, g.lk, g.batch_heads),
         !proj && dq ? 0 : -1);
  b.emit(with_gemm(ctx.make("scores.bwd_k", OpClass::kAttention, Phase::kBackwardData, gemm,
                            e * (scores + dprod(g.n, g.lq, g.e)), e * dprod(g.n, g.lk, g.e)),
                   g.lk, dh, g.lq, g.batch_heads),
         !proj && dk ? key_input : -1);
  if (!proj) return;
  int w = 0;
  if (g.self) {
    b.projection("in_proj", g.q_rows, g.eq, g.qkv_width, g.bias, e, dq, 0, w);
  } else {
    b.projection("q_proj", g.q_rows, g.eq, g.e, g.bias, e, dq, 0, w);
    b.projection("k_proj", g.k_rows, g.ek, g.e, g.bias, e, dk, key_input, w);
    b.projection("v_proj", g.k_rows, g.ev, g.e, g.bias, e, dv, value_input, w);
  }
}

}  // namespace

void register_attention_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "attention",
      .summary = "multi-head scaled dot-product attention (score: dot) or additive soft "
                 "attention over encoder states (score: additive); inputs [N, L, E]: x | "
                 "query, memory | query, key, value",
      .op_class = OpClass::kAttention,
      .params =
          {int_param("heads", "attention heads", "1").at_least(1),
           int_param("embed_dim", "model width E (0: the query width)", "0").at_least(0),
           choice_param("score", {"dot", "additive"},
                        "dot: softmax(Q K^T / sqrt(d)) V; additive: v . tanh(K + q)", "dot"),
           bool_param("projections", "dot: learned Q, K, V and output projections", "true"),
           bool_param("bias", "projection biases", "true"),
           bool_param("causal", "mask future positions (same cost as dense)", "false"),
           float_param("dropout", "dropout on the attention probabilities", "0").within(0, 1)},
      .min_inputs = 1,
      .max_inputs = 3,
      .infer = infer,
      .weights = weights,
      .forward = forward,
      .backward = backward,
  });
}

}  // namespace amdahl::graphs
