// The attention decoder of TensorFlow's legacy_seq2seq.attention_decoder (Bahdanau-style
// soft attention over encoder states, used by Fathom seq2seq), unrolled step by step because
// each step's input depends on the previous step's attention context:
//   once      keys K = enc W1 (no bias): GEMM m = Te*N, n = A, k = H
//   per step  merge x' = [x_t, ctx_{t-1}] Wm + b        GEMM m = N, n = H, k = E + H
//             per layer: gates = [in, h] Wl + b         GEMM m = N, n = 4H, k = 2H, then the
//             LSTM pointwise kernel (TF BasicLSTMCell: one bias, 4 + 24 FLOPs per unit as in
//             recurrent.cpp without the projection sums)
//             query q = [c_1, h_1, ..., c_L, h_L] Wq + b GEMM m = N, n = A, k = 2 L H
//             scores v . tanh(K + q) (7 FLOPs per element of [N, Te, A]), softmax over Te
//             context = p enc                          batched GEMM batch N, m = 1, n = H, k = Te
//             output y_t = [h_L, ctx] Wo + b           GEMM m = N, n = H, k = 2H
// Backward runs the steps in reverse: every GEMM gives a data-gradient and a weight-gradient
// GEMM of its forward FLOPs (the static unroll computes weight gradients per step), pointwise
// LSTM 27 FLOPs per unit, scores 9 per element, softmax 4 per score; then the keys' GEMMs.
// Inputs: x [Td, N, E] (time-major), enc [Te, N, H], and optionally the initial h and c
// [L, N, H]. Output [Td, N, H].

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

struct DecoderGeometry {
  std::int64_t td, te, n, e, h, layers, a;
};

DecoderGeometry geometry(const Layer& layer, const std::vector<TensorInfo>& in) {
  expect_rank(layer, in[0], 3, "[Td, N, E]");
  expect_rank(layer, in[1], 3, "[Te, N, H]");
  DecoderGeometry g{in[0].shape[0],
                    in[1].shape[0],
                    in[0].shape[1],
                    in[0].shape[2],
                    layer.get_int("hidden_size"),
                    layer.get_int("num_layers"),
                    layer.get_int("attention_size")};
  if (g.a == 0) g.a = g.h;
  check_stack_depth(layer, g.layers);
  check(in[1].shape[1] == g.n && in[1].shape[2] == g.h, layer, [&] {
    return fmt::format("encoder states must be [Te, N={}, H={}] (got {})", g.n, g.h,
                       shape_str(in[1].shape));
  });
  for (std::size_t i = 2; i < in.size(); ++i)
    check(in[i].shape == Shape{g.layers, g.n, g.h}, layer, [&] {
      return fmt::format("initial state must be [L, N, H] = [{}, {}, {}] (got {})", g.layers, g.n,
                         g.h, shape_str(in[i].shape));
    });
  return g;
}

// Weights in order: keys, merge.w, merge.b, per layer (w, b), query.w, query.b, v, out.w, out.b.
std::vector<Weight> weights(const Layer& layer, const std::vector<TensorInfo>& in) {
  const DecoderGeometry g = geometry(layer, in);
  auto size = [&](const char* what, const CheckedInt& v) { return checked_size(layer, what, v); };
  std::vector<Weight> w{
      {"keys.weight", size("keys.weight", CheckedInt(g.a) * g.h)},
      {"merge.weight", size("merge.weight", CheckedInt(g.h) * (CheckedInt(g.e) + g.h))},
      {"merge.bias", g.h}};
  const std::int64_t gates = size("gates weight", CheckedInt(4) * g.h * 2 * g.h);
  const std::int64_t gates_bias = size("gates bias", CheckedInt(4) * g.h);
  const std::int64_t query = size("query.weight", CheckedInt(g.a) * 2 * g.layers * g.h);
  for (std::int64_t l = 0; l < g.layers; ++l) {
    w.push_back({fmt::format("l{}.weight", l), gates});
    w.push_back({fmt::format("l{}.bias", l), gates_bias});
  }
  w.push_back({"query.weight", query});
  w.push_back({"query.bias", g.a});
  w.push_back({"v", g.a});
  w.push_back({"out.weight", size("out.weight", CheckedInt(g.h) * 2 * g.h)});
  w.push_back({"out.bias", g.h});
  return w;
}

struct Gemm {
  std::string name;
  std::int64_t m, n, k, batch;
  bool bias;
  double flops() const { return 2.0 * d(m) * d(n) * d(k) * d(batch); }
};

Operator forward_gemm(const ForwardContext& ctx, const Gemm& gm, double e) {
  Operator op = ctx.make(gm.name, OpClass::kRnn, gm.flops() + (gm.bias ? dprod(gm.m, gm.n) : 0.0),
                         e * d(gm.batch) * (dprod(gm.m, gm.k) + dprod(gm.k, gm.n)),
                         e * dprod(gm.batch, gm.m, gm.n));
  op.gemm = {gm.m, gm.n, gm.k, gm.batch};
  return op;
}

// The per-step GEMMs of step `t` in program order, each with the index of its weight
// (-1: none).
std::vector<std::pair<Gemm, int>> step_gemms(const Layer& layer, const DecoderGeometry& g,
                                             std::int64_t t) {
  const std::string s = fmt::format("t{}.", t);
  const std::int64_t h2 = checked_size(layer, "2H", CheckedInt(2) * g.h);
  const std::int64_t h4 = checked_size(layer, "4H", CheckedInt(4) * g.h);
  const std::int64_t states = checked_size(layer, "2 L H", CheckedInt(2) * g.layers * g.h);
  std::vector<std::pair<Gemm, int>> out{
      {{s + "merge", g.n, g.h, checked_size(layer, "E + H", CheckedInt(g.e) + g.h), 1, true}, 1}};
  for (std::int64_t l = 0; l < g.layers; ++l)
    out.push_back(
        {{fmt::format("{}l{}.gates", s, l), g.n, h4, h2, 1, true}, static_cast<int>(3 + 2 * l)});
  const int after_layers = static_cast<int>(3 + 2 * g.layers);
  out.push_back({{s + "query", g.n, g.a, states, 1, true}, after_layers});
  out.push_back({{s + "context", 1, g.h, g.te, g.n, false}, -1});
  out.push_back({{s + "out", g.n, g.h, h2, 1, true}, after_layers + 3});
  return out;
}

// The keys' GEMM, once before the steps: enc [Te*N, H] W1^T.
Gemm keys_gemm(const Layer& layer, const DecoderGeometry& g) {
  return {"keys", checked_size(layer, "keys GEMM m Te*N", CheckedInt(g.te) * g.n), g.a, g.h, 1,
          false};
}

void forward(ForwardContext& ctx) {
  const DecoderGeometry g = geometry(ctx.layer, ctx.inputs);
  const double e = dtype_bytes(ctx.in().dtype);
  const double nh = dprod(g.n, g.h);
  const double score_elems = dprod(g.n, g.te, g.a);
  ctx.emit(forward_gemm(ctx, keys_gemm(ctx.layer, g), e));
  for (std::int64_t t = 0; t < g.td; ++t) {
    const auto gemms = step_gemms(ctx.layer, g, t);
    const std::string s = fmt::format("t{}.", t);
    std::size_t i = 0;
    ctx.emit(forward_gemm(ctx, gemms[i++].first, e));  // merge
    for (std::int64_t l = 0; l < g.layers; ++l) {
      ctx.emit(forward_gemm(ctx, gemms[i++].first, e));
      ctx.emit(ctx.make(fmt::format("{}l{}.cell", s, l), OpClass::kRnn, 28.0 * nh,
                        e * (4 * nh + nh), e * (2 * nh + (ctx.training ? 4 * nh : 0.0))));
    }
    ctx.emit(forward_gemm(ctx, gemms[i++].first, e));  // query
    ctx.emit(ctx.make(s + "scores", OpClass::kAttention, 7.0 * score_elems,
                      e * (score_elems + dprod(g.n, g.a)), e * dprod(g.n, g.te)));
    ctx.emit(ctx.make(s + "softmax", OpClass::kSoftmax, 5.0 * dprod(g.n, g.te),
                      e * dprod(g.n, g.te), e * dprod(g.n, g.te)));
    ctx.emit(forward_gemm(ctx, gemms[i++].first, e));  // context
    ctx.emit(forward_gemm(ctx, gemms[i++].first, e));  // out
  }
}

void backward(BackwardContext& ctx) {
  const DecoderGeometry g = geometry(ctx.layer, ctx.inputs);
  const double e = dtype_bytes(ctx.in().dtype);
  const double nh = dprod(g.n, g.h);
  const double score_elems = dprod(g.n, g.te, g.a);
  const int last_weight = static_cast<int>(weights(ctx.layer, ctx.inputs).size()) - 1;
  bool first = true;
  auto emit = [&](Operator op, int input = -1, int weight = -1) {
    if (first)
      ctx.emit(std::move(op), input, weight);
    else
      ctx.emit_after(std::move(op), input, weight);
    first = false;
  };
  auto gemm_grads = [&](const Gemm& gm, int weight, bool last_step, int input) {
    Operator dx = ctx.make(gm.name + ".bwd_data", OpClass::kRnn, Phase::kBackwardData, gm.flops(),
                           e * d(gm.batch) * (dprod(gm.m, gm.n) + dprod(gm.k, gm.n)),
                           e * dprod(gm.batch, gm.m, gm.k));
    dx.gemm = {gm.m, gm.k, gm.n, gm.batch};
    emit(std::move(dx), input);
    if (weight < 0) return;
    Operator dw = ctx.make(gm.name + ".bwd_weight", OpClass::kRnn, Phase::kBackwardWeight,
                           gm.flops(), e * dprod(gm.m, d(gm.n) + d(gm.k)), e * dprod(gm.k, gm.n));
    dw.gemm = {gm.n, gm.k, gm.m, 1};
    // The gradient of a weight is complete after the first step's (the last processed)
    // contribution; its bias is reduced in the same pass.
    emit(std::move(dw), -1, last_step ? weight : -1);
    if (last_step && gm.bias) ctx.mark_weight(weight + 1);
  };
  for (std::int64_t t = g.td - 1; t >= 0; --t) {
    const auto gemms = step_gemms(ctx.layer, g, t);
    const std::string s = fmt::format("t{}.", t);
    const bool last = t == 0;
    const std::size_t out = gemms.size() - 1, context = gemms.size() - 2, query = gemms.size() - 3;
    gemm_grads(gemms[out].first, gemms[out].second, last, -1);
    gemm_grads(gemms[context].first, -1, last, -1);
    emit(ctx.make(s + "softmax.bwd", OpClass::kSoftmax, Phase::kBackwardData,
                  4.0 * dprod(g.n, g.te), 2.0 * e * dprod(g.n, g.te), e * dprod(g.n, g.te)));
    emit(ctx.make(s + "scores.bwd", OpClass::kAttention, Phase::kBackwardData, 9.0 * score_elems,
                  e * (score_elems + dprod(g.n, g.te)), e * (score_elems + dprod(g.n, g.a))),
         -1, last ? last_weight - 2 : -1);  // v
    gemm_grads(gemms[query].first, gemms[query].second, last, -1);
    for (std::int64_t l = g.layers - 1; l >= 0; --l) {
      emit(ctx.make(fmt::format("{}l{}.cell_bwd", s, l), OpClass::kRnn, Phase::kBackwardData,
                    27.0 * nh, e * (2 * nh + 4 * nh + nh), e * (4 * nh + nh)));
      const auto& gates = gemms[1 + static_cast<std::size_t>(l)];
      gemm_grads(gates.first, gates.second, last, -1);
    }
    gemm_grads(gemms[0].first, gemms[0].second, last, last && ctx.needs_input_grad(0) ? 0 : -1);
  }
  // Keys: dW1 and the encoder states' gradient (also collecting the context reads').
  gemm_grads(keys_gemm(ctx.layer, g), 0, true, ctx.needs_input_grad(1) ? 1 : -1);
  for (std::size_t i = 2; i < ctx.inputs.size(); ++i)
    if (ctx.needs_input_grad(i))
      emit(ctx.make(fmt::format("bwd_state{}", i), OpClass::kDataMovement, Phase::kBackwardData, 0,
                    ctx.in(i).bytes(), ctx.in(i).bytes()),
           static_cast<int>(i));
}

// The ops forward() and backward() emit, counted from the geometry: the keys' GEMM, then per
// step the merge, two per layer, query, scores, softmax, context and output; backward per step
// two per GEMM with a weight and one for the context, softmax and scores, a pointwise op per
// layer; then the keys' two and a copy per initial state that needs a gradient.
OpCount op_count(const Layer& layer, const std::vector<TensorInfo>& in,
                 const std::vector<bool>& needs) {
  const DecoderGeometry g = geometry(layer, in);
  const double steps = d(g.td), layers = d(g.layers);
  OpCount c{1 + steps * (6 + 2 * layers), steps * (9 + 3 * layers) + 2};
  for (std::size_t i = 2; i < in.size(); ++i) c.backward += i < needs.size() && needs[i] ? 1 : 0;
  return c;
}

}  // namespace

void register_attention_decoder_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "attention_decoder",
      .summary = "LSTM decoder with additive attention fed back each step (TF legacy_seq2seq "
                 "attention_decoder); inputs x [Td, N, E], enc [Te, N, H], optional h0, c0",
      .op_class = OpClass::kRnn,
      .params = {int_param("hidden_size", "LSTM units H (the encoder's width)").at_least(1),
                 int_param("num_layers", "stacked LSTM layers", "1").at_least(1),
                 int_param("attention_size", "attention vector size A (0: H)", "0").at_least(0)},
      .min_inputs = 2,
      .max_inputs = 4,
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            const DecoderGeometry g = geometry(layer, in);
            return std::vector<TensorInfo>{TensorInfo{{g.td, g.n, g.h}, in[0].dtype}};
          },
      .weights = weights,
      .forward = forward,
      .backward = backward,
      .op_count = op_count,
  });
}

}  // namespace amdahl::graphs
