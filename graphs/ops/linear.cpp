// Fully-connected layers and matrix products. linear: y = x W^T + b over the last dim,
// FLOPs 2*M*in*out (+ M*out for the bias), M the product of the leading dims.
// matmul: [..., M, K] x [..., K, N] with broadcast batch dims, FLOPs 2*batch*M*N*K.
// A linear layer `tied_to` another layer reuses that layer's weight (GPT-2's LM head and its
// token embedding): no parameters of its own; its weight gradient is computed and
// accumulated into the owner's, which the owner's update applies.

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

struct LinearGeometry {
  std::int64_t rows, in, out;
};

LinearGeometry linear_geometry(const Layer& layer, const TensorInfo& x) {
  check(!x.shape.empty(), layer, "expects an input of rank >= 1");
  const std::int64_t in = x.shape.back();
  return {x.elements() / std::max<std::int64_t>(in, 1), in, layer.get_int("out_features")};
}

std::vector<TensorInfo> linear_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const LinearGeometry g = linear_geometry(layer, in.front());
  if (layer.has("in_features"))
    check(layer.get_int("in_features") == g.in, layer, [&] {
      return fmt::format("in_features {} does not match the input's last dim {} (input {})",
                         layer.get_int("in_features"), g.in, shape_str(in.front().shape));
    });
  Shape s = in.front().shape;
  s.back() = g.out;
  return {TensorInfo{s, in.front().dtype}};
}

std::vector<Weight> linear_weights(const Layer& layer, const std::vector<TensorInfo>& in) {
  const LinearGeometry g = linear_geometry(layer, in.front());
  std::vector<Weight> w;
  if (!layer.has("tied_to"))
    w.push_back(
        {"weight", checked_size(layer, "weight", CheckedInt(g.in) * g.out), Shape{g.out, g.in}});
  if (layer.get_bool("bias")) w.push_back({"bias", g.out});
  return w;
}

// A tied layer's weight is its owner's [out, in] matrix (lowering checks the owner and shape).
std::optional<SharedWeight> linear_shared_weight(const Layer& layer,
                                                 const std::vector<TensorInfo>& in) {
  if (!layer.has("tied_to")) return std::nullopt;
  const LinearGeometry g = linear_geometry(layer, in.front());
  return SharedWeight{layer.get_string("tied_to"), "weight", Shape{g.out, g.in}};
}

void linear_forward(ForwardContext& ctx) {
  const LinearGeometry g = linear_geometry(ctx.layer, ctx.in());
  const double e = dtype_bytes(ctx.in().dtype);
  const bool bias = ctx.layer.get_bool("bias");
  Operator op = ctx.make("fwd", OpClass::kGemm,
                         2.0 * d(g.rows) * d(g.in) * d(g.out) + (bias ? dprod(g.rows, g.out) : 0.0),
                         ctx.in().bytes() + e * (dprod(g.in, g.out) + (bias ? d(g.out) : 0.0)),
                         ctx.out().bytes());
  op.gemm = {g.rows, g.out, g.in, 1};
  ctx.emit(std::move(op));
}

void linear_backward(BackwardContext& ctx) {
  const LinearGeometry g = linear_geometry(ctx.layer, ctx.in());
  const double e = dtype_bytes(ctx.in().dtype);
  const double gemm_flops = 2.0 * d(g.rows) * d(g.in) * d(g.out);
  if (ctx.needs_input_grad(0)) {
    Operator dx = ctx.make("bwd_data", OpClass::kGemm, Phase::kBackwardData, gemm_flops,
                           ctx.out().bytes() + e * dprod(g.in, g.out), ctx.in().bytes());
    dx.gemm = {g.rows, g.in, g.out, 1};
    ctx.emit(std::move(dx), 0);
  }
  Operator dw = ctx.make("bwd_weight", OpClass::kGemm, Phase::kBackwardWeight, gemm_flops,
                         ctx.out().bytes() + ctx.in().bytes(), e * dprod(g.in, g.out));
  dw.gemm = {g.out, g.in, g.rows, 1};
  const bool tied = ctx.layer.has("tied_to");
  ctx.emit(std::move(dw), -1, tied ? -1 : 0);
  if (ctx.layer.get_bool("bias"))
    ctx.emit(ctx.make("bwd_bias", OpClass::kReduction, Phase::kBackwardWeight, dprod(g.rows, g.out),
                      ctx.out().bytes(), e * d(g.out)),
             -1, tied ? 0 : 1);
}

struct MatmulGeometry {
  std::int64_t batch, m, n, k;
  Shape out;
};

MatmulGeometry matmul_geometry(const Layer& layer, const TensorInfo& a, const TensorInfo& b) {
  check(a.shape.size() >= 2 && b.shape.size() >= 2, layer, [&] {
    return fmt::format("expects inputs of rank >= 2 (got {} and {})", shape_str(a.shape),
                       shape_str(b.shape));
  });
  const bool ta = layer.get_bool("transpose_a");
  const bool tb = layer.get_bool("transpose_b");
  const std::size_t ra = a.shape.size(), rb = b.shape.size();
  const std::int64_t m = ta ? a.shape[ra - 1] : a.shape[ra - 2];
  const std::int64_t ka = ta ? a.shape[ra - 2] : a.shape[ra - 1];
  const std::int64_t kb = tb ? b.shape[rb - 1] : b.shape[rb - 2];
  const std::int64_t n = tb ? b.shape[rb - 2] : b.shape[rb - 1];
  check(ka == kb, layer, [&] {
    return fmt::format("inner dims differ: {} x {} (inputs {} and {})", ka, kb, shape_str(a.shape),
                       shape_str(b.shape));
  });
  // Broadcast the batch dims (numpy rules).
  const std::size_t batch_rank = std::max(ra, rb) - 2;
  Shape out(batch_rank);
  CheckedInt batch = 1;
  for (std::size_t i = 0; i < batch_rank; ++i) {
    const std::int64_t da = i + ra >= batch_rank + 2 ? a.shape[i + ra - batch_rank - 2] : 1;
    const std::int64_t db = i + rb >= batch_rank + 2 ? b.shape[i + rb - batch_rank - 2] : 1;
    check(da == db || da == 1 || db == 1, layer, [&] {
      return fmt::format("batch dims do not broadcast: {} and {}", shape_str(a.shape),
                         shape_str(b.shape));
    });
    out[i] = std::max(da, db);
    batch *= out[i];
  }
  out.push_back(m);
  out.push_back(n);
  return {checked_size(layer, "GEMM batch", batch), m, n, ka, out};
}

std::vector<TensorInfo> matmul_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  return {TensorInfo{matmul_geometry(layer, in[0], in[1]).out, in[0].dtype}};
}

void matmul_forward(ForwardContext& ctx) {
  const MatmulGeometry g = matmul_geometry(ctx.layer, ctx.in(0), ctx.in(1));
  Operator op = ctx.make("fwd", OpClass::kGemm, 2.0 * d(g.batch) * d(g.m) * d(g.n) * d(g.k),
                         ctx.in(0).bytes() + ctx.in(1).bytes(), ctx.out().bytes());
  op.gemm = {g.m, g.n, g.k, g.batch};
  ctx.emit(std::move(op));
}

void matmul_backward(BackwardContext& ctx) {
  const MatmulGeometry g = matmul_geometry(ctx.layer, ctx.in(0), ctx.in(1));
  const double flops = 2.0 * d(g.batch) * d(g.m) * d(g.n) * d(g.k);
  for (int i = 0; i < 2; ++i) {
    if (!ctx.needs_input_grad(i)) continue;
    // dA = dC B^T (m x k, depth n); dB = A^T dC (k x n, depth m).
    Operator op =
        ctx.make(i == 0 ? "bwd_data_a" : "bwd_data_b", OpClass::kGemm, Phase::kBackwardData, flops,
                 ctx.out().bytes() + ctx.in(1 - i).bytes(), ctx.in(i).bytes());
    op.gemm = i == 0 ? GemmDims{g.m, g.k, g.n, g.batch} : GemmDims{g.k, g.n, g.m, g.batch};
    ctx.emit(std::move(op), i);
  }
}

}  // namespace

void register_linear_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "linear",
      .summary = "fully connected y = x W^T + b over the last dim",
      .op_class = OpClass::kGemm,
      .params = {int_param("out_features", "output features").at_least(1),
                 ParamDecl{"in_features",
                           ParamType::kInt,
                           false,
                           "",
                           "input features (checked against the input when given)",
                           {}},
                 bool_param("bias", "add a bias", "true"),
                 ParamDecl{"tied_to",
                           ParamType::kString,
                           false,
                           "",
                           "reuse the weight of this layer (no parameters of its own): an "
                           "embedding's [num_embeddings, dim] table or a linear layer's [out, in] "
                           "weight, of the shape [out_features, input features]",
                           {}}},
      .infer = linear_infer,
      .weights = linear_weights,
      .forward = linear_forward,
      .backward = linear_backward,
      .shared_weight = linear_shared_weight,
  });
  r.add(LayerKind{
      .name = "matmul",
      .summary = "matrix product of two inputs [..., M, K] x [..., K, N], batch dims broadcast",
      .op_class = OpClass::kGemm,
      .params = {bool_param("transpose_a", "use A^T", "false"),
                 bool_param("transpose_b", "use B^T", "false")},
      .min_inputs = 2,
      .max_inputs = 2,
      .infer = matmul_infer,
      .forward = matmul_forward,
      .backward = matmul_backward,
  });
}

}  // namespace amdahl::graphs
