// Generic unary elementwise layers (the ONNX standard's unary ops, also usable from YAML).
// One rule for the family: the forward reads the input and writes the output once with a
// per-op FLOP count per element; the backward reads the output gradient and the saved input
// (or output) and writes the input gradient with the derivative's FLOP count.
//
// FLOP convention, the one activation.cpp uses (sigmoid = exp + add + divide + negate = 4):
// every arithmetic operation, comparison and elementary function (exp, log, sqrt, erf, sin)
// counts 1. Derivatives count the operations of the closed form times the output gradient,
// e.g. d sqrt = dy * 0.5 / y (2), d erf = dy * 2/sqrt(pi) * exp(-x^2) (4). A select counts
// its comparison, as leaky_relu's: elu = compare, exp, subtract, multiply (4), its derivative
// dy * (x > 0 ? 1 : y + alpha) (3).

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

struct UnaryOp {
  const char* name;
  const char* summary;
  double forward_flops;   // per element
  double backward_flops;  // per element; differentiable only
  bool differentiable = true;
  std::vector<ParamDecl> params = {};
  bool boolean = false;  // a test (is_nan): the output is bool (1 byte), as ONNX defines it
};

LayerKind unary(UnaryOp u) {
  const double fwd = u.forward_flops, bwd = u.backward_flops;
  return LayerKind{
      .name = u.name,
      .summary = u.summary,
      .op_class = OpClass::kElementwise,
      .params = std::move(u.params),
      .differentiable = u.differentiable,
      .infer =
          [boolean = u.boolean](const Layer& layer, const std::vector<TensorInfo>& in) {
            std::vector<TensorInfo> out = same_as_input(layer, in);
            if (boolean) out.front().dtype = DType::kBool;
            return out;
          },
      .forward = [fwd](ForwardContext& ctx) { ctx.emit(elementwise_forward(ctx, "fwd", fwd)); },
      .backward =
          [bwd](BackwardContext& ctx) {
            if (ctx.needs_input_grad(0)) ctx.emit(elementwise_backward(ctx, "bwd", bwd, 1), 0);
          },
  };
}

}  // namespace

void register_unary_ops(LayerRegistry& r) {
  const std::vector<UnaryOp> table = {
      {"exp", "exponential e^x", 1, 1},
      {"log", "natural logarithm", 1, 1},
      {"sqrt", "square root", 1, 2},
      {"reciprocal", "1 / x", 1, 2},
      {"erf", "Gauss error function (GELU's building block)", 1, 4},
      {"neg", "-x", 1, 1},
      {"abs", "|x|", 1, 2},
      {"sin", "sine", 1, 2},
      {"cos", "cosine", 1, 2},
      {"softplus", "log(1 + exp(x))", 3, 5},
      {"softsign", "x / (1 + |x|)", 3, 4},
      {"elu",
       "x > 0 ? x : alpha (exp(x) - 1)",
       4,
       3,
       true,
       {float_param("alpha", "negative-side scale", "1.0")}},
      {"selu", "gamma (x > 0 ? x : alpha (exp(x) - 1))", 5, 3},
      {"hard_sigmoid",
       "max(0, min(1, alpha x + beta))",
       4,
       2,
       true,
       {float_param("alpha", "slope", "0.2"), float_param("beta", "offset", "0.5")}},
      {"hard_swish", "x * hard_sigmoid(x) (MobileNet-v3)", 5, 4},
      {"leaky_relu",
       "x > 0 ? x : alpha x",
       2,
       2,
       true,
       {float_param("alpha", "negative-side slope", "0.01")}},
      {"clip",
       "min(max(x, min), max)",
       2,
       2,
       true,
       {float_param("min", "lower bound", "-3.4e38"), float_param("max", "upper bound", "3.4e38")}},
      {"pow_scalar",
       "x^exponent for a constant exponent",
       1,
       3,
       true,
       {float_param("exponent", "the constant exponent", "2")}},
      {"floor", "round down (no gradient)", 1, 0, false},
      {"ceil", "round up (no gradient)", 1, 0, false},
      {"round", "round to nearest even (no gradient)", 1, 0, false},
      {"sign", "-1, 0 or 1 (no gradient)", 1, 0, false},
      {"not", "logical not (no gradient)", 1, 0, false},
      {"is_nan", "x != x (no gradient)", 1, 0, false, {}, true},
  };
  for (const UnaryOp& u : table) r.add(unary(u));
}

}  // namespace amdahl::graphs
