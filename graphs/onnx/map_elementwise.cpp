// ONNX rules for elementwise ops: activations onto the zoo's kinds (relu, sigmoid, tanh),
// the standard's other unary ops onto the unary family (graphs/ops/unary.cpp), binary ops
// with broadcasting onto the binary family (graphs/ops/binary.cpp), Cast onto cast. When
// every input is a known constant (shape arithmetic), the op is evaluated instead.

#include <fmt/format.h>

#include <cmath>

#include "graphs/onnx/import_context.h"
#include "graphs/ops/broadcast.h"

namespace amdahl::graphs::onnx {
namespace {

using Fn = std::function<double(const std::vector<double>&)>;

bool is_integer(DType t) {
  return t == DType::kI64 || t == DType::kI32 || t == DType::kI8 || t == DType::kBool;
}

// Evaluates the node over known constants with numpy broadcasting (its shape only when the
// result is larger than the fold limit).
void fold(ImportContext& ctx, const ::onnx::NodeProto& node, const Fn& f,
          std::optional<DType> dtype = std::nullopt) {
  std::vector<const Value*> args;
  std::vector<Shape> shapes;
  for (int i = 0; i < node.input_size(); ++i) {
    args.push_back(&ctx.input(node, i));
    shapes.push_back(args.back()->info.shape);
  }
  if (args.empty()) ctx.fail(node, "has no inputs");
  std::size_t conflict = 0;
  const std::optional<Shape> broadcast_shape = ops::broadcast(shapes, &conflict);
  if (!broadcast_shape)
    ctx.fail(node, fmt::format("constant operands {} and {} do not broadcast",
                               shape_str(shapes.front()), shape_str(shapes[conflict])));
  const Shape& out = *broadcast_shape;
  Value v;
  v.info = TensorInfo{out, dtype.value_or(args.back()->info.dtype)};
  for (const Value* a : args) v.trainable = v.trainable || a->trainable;
  if (ctx.fold_fits(node, out)) v.set_data(broadcast_apply(args, out, f));
  ctx.define(node.output(0), std::move(v));
}

void unary(ImportContext& ctx, const ::onnx::NodeProto& node, const std::string& kind, const Fn& f,
           Params params = {}) {
  if (ctx.all_known(node)) return fold(ctx, node, f);
  ctx.emit(node, kind, std::move(params), {node.input(0)}, {node.output(0)});
}

// A binary op: two runtime operands, or one and a constant (a bias or scale when it comes
// from an initializer).
void binary(ImportContext& ctx, const ::onnx::NodeProto& node, const std::string& kind, const Fn& f,
            std::optional<DType> result = std::nullopt) {
  if (ctx.all_known(node)) return fold(ctx, node, f, result);
  const Value& a = ctx.input(node, 0);
  const Value& b = ctx.input(node, 1);
  if (!a.is_constant() && !b.is_constant()) {
    if (kind == "add_broadcast" && a.info.shape == b.info.shape)
      ctx.emit(node, "add", {}, {node.input(0), node.input(1)}, {node.output(0)});
    else
      ctx.emit(node, kind, {}, {node.input(0), node.input(1)}, {node.output(0)});
    return;
  }
  const Value& c = a.is_constant() ? a : b;
  if (kind == "pow" && !a.is_constant() && c.data && c.info.elements() == 1)
    return ctx.emit(node, "pow_scalar", {{"exponent", c.data->front()}}, {node.input(0)},
                    {node.output(0)}),
           void();
  ctx.emit(node, kind,
           {{"constant_shape", c.info.shape},
            {"constant_first", a.is_constant()},
            {"trainable", c.trainable}},
           {a.is_constant() ? node.input(1) : node.input(0)}, {node.output(0)});
}

void where(ImportContext& ctx, const ::onnx::NodeProto& node) {
  if (ctx.all_known(node))
    return fold(
        ctx, node, [](const std::vector<double>& x) { return x[0] != 0 ? x[1] : x[2]; },
        ctx.input(node, 1).info.dtype);
  std::vector<std::string> inputs;
  std::vector<Shape> constant_shapes;
  std::int64_t condition = -1;
  for (int i = 0; i < 3; ++i) {
    const Value& v = ctx.input(node, i);
    if (v.is_constant()) {
      constant_shapes.push_back(v.info.shape);
      continue;
    }
    if (i == 0) condition = 0;
    inputs.push_back(node.input(i));
  }
  Params p{{"condition", condition}};
  if (!constant_shapes.empty()) {
    // The constants broadcast together into one shape (the layer's constant operand).
    Shape s;
    for (const Shape& c : constant_shapes) {
      if (c.size() > s.size()) s.insert(s.begin(), c.size() - s.size(), 1);
      for (std::size_t i = 0; i < c.size(); ++i) {
        std::int64_t& o = s[s.size() - c.size() + i];
        o = std::max(o, c[i]);
      }
    }
    p["constant_shape"] = s;
  }
  ctx.emit(node, "where", std::move(p), inputs, {node.output(0)});
}

void cast(ImportContext& ctx, const ::onnx::NodeProto& node) {
  const DType to = onnx_dtype(static_cast<int>(ctx.attr_int(node, "to", 1)),
                              fmt::format("{}: node '{}' (Cast)", ctx.file(), node.name()));
  if (ctx.all_known(node)) {
    const bool integer = is_integer(to);
    return fold(
        ctx, node,
        [integer](const std::vector<double>& x) { return integer ? std::trunc(x[0]) : x[0]; }, to);
  }
  const Value& x = ctx.input(node, 0);
  if (x.info.dtype == to) {
    ctx.define(node.output(0), x);
    return;
  }
  ctx.emit(node, "cast", {{"to", std::string(dtype_name(to))}}, {node.input(0)}, {node.output(0)});
}

void clip(ImportContext& ctx, const ::onnx::NodeProto& node) {
  double lo = ctx.attr_float(node, "min", -3.4e38), hi = ctx.attr_float(node, "max", 3.4e38);
  if (ctx.has_input(node, 1)) lo = ctx.scalar(node, 1, "min");
  if (ctx.has_input(node, 2)) hi = ctx.scalar(node, 2, "max");
  if (ctx.all_known(node))
    return fold(ctx, node,
                [lo, hi](const std::vector<double>& x) { return std::clamp(x[0], lo, hi); });
  ctx.emit(node, "clip", {{"min", lo}, {"max", hi}}, {node.input(0)}, {node.output(0)});
}

double integer_div(double a, double b) { return b == 0 ? 0 : std::trunc(a / b); }

}  // namespace

void add_elementwise_rules(OnnxRuleTable& t) {
  struct U {
    const char* onnx;
    const char* kind;
    Fn f;
  };
  const std::vector<U> unaries = {
      {"Relu", "relu", [](const auto& x) { return std::max(x[0], 0.0); }},
      {"Sigmoid", "sigmoid", [](const auto& x) { return 1 / (1 + std::exp(-x[0])); }},
      {"Tanh", "tanh", [](const auto& x) { return std::tanh(x[0]); }},
      {"Exp", "exp", [](const auto& x) { return std::exp(x[0]); }},
      {"Log", "log", [](const auto& x) { return std::log(x[0]); }},
      {"Sqrt", "sqrt", [](const auto& x) { return std::sqrt(x[0]); }},
      {"Reciprocal", "reciprocal", [](const auto& x) { return 1 / x[0]; }},
      {"Erf", "erf", [](const auto& x) { return std::erf(x[0]); }},
      {"Neg", "neg", [](const auto& x) { return -x[0]; }},
      {"Abs", "abs", [](const auto& x) { return std::abs(x[0]); }},
      {"Sin", "sin", [](const auto& x) { return std::sin(x[0]); }},
      {"Cos", "cos", [](const auto& x) { return std::cos(x[0]); }},
      {"Softplus", "softplus", [](const auto& x) { return std::log1p(std::exp(x[0])); }},
      {"Softsign", "softsign", [](const auto& x) { return x[0] / (1 + std::abs(x[0])); }},
      {"Selu", "selu",
       [](const auto& x) { return 1.0507 * (x[0] > 0 ? x[0] : 1.67326 * std::expm1(x[0])); }},
      {"HardSwish", "hard_swish",
       [](const auto& x) { return x[0] * std::clamp(x[0] / 6 + 0.5, 0.0, 1.0); }},
      {"Floor", "floor", [](const auto& x) { return std::floor(x[0]); }},
      {"Ceil", "ceil", [](const auto& x) { return std::ceil(x[0]); }},
      {"Round", "round", [](const auto& x) { return std::nearbyint(x[0]); }},
      {"Sign", "sign", [](const auto& x) { return static_cast<double>((x[0] > 0) - (x[0] < 0)); }},
      {"Not", "not", [](const auto& x) { return x[0] == 0 ? 1.0 : 0.0; }},
      {"IsNaN", "is_nan", [](const auto& x) { return std::isnan(x[0]) ? 1.0 : 0.0; }},
  };
  for (const U& u : unaries) {
    std::string kind = u.kind;
    Fn f = u.f;
    t[u.onnx] = [kind, f](ImportContext& c, const ::onnx::NodeProto& n) { unary(c, n, kind, f); };
  }
  t["LeakyRelu"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    const double alpha = c.attr_float(n, "alpha", 0.01);
    unary(c, n, "leaky_relu", [alpha](const auto& x) { return x[0] > 0 ? x[0] : alpha * x[0]; },
          {{"alpha", alpha}});
  };
  t["Elu"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    const double alpha = c.attr_float(n, "alpha", 1.0);
    unary(c, n, "elu",
          [alpha](const auto& x) { return x[0] > 0 ? x[0] : alpha * std::expm1(x[0]); },
          {{"alpha", alpha}});
  };
  t["HardSigmoid"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    const double alpha = c.attr_float(n, "alpha", 0.2), beta = c.attr_float(n, "beta", 0.5);
    unary(c, n, "hard_sigmoid",
          [alpha, beta](const auto& x) { return std::clamp(alpha * x[0] + beta, 0.0, 1.0); },
          {{"alpha", alpha}, {"beta", beta}});
  };
  t["Clip"] = clip;
  t["Cast"] = cast;
  t["Where"] = where;

  struct B {
    const char* onnx;
    const char* kind;
    Fn f;
    std::optional<DType> result;
  };
  const std::vector<B> binaries = {
      {"Add", "add_broadcast", [](const auto& x) { return x[0] + x[1]; }, std::nullopt},
      {"Sub", "sub", [](const auto& x) { return x[0] - x[1]; }, std::nullopt},
      {"Mul", "mul", [](const auto& x) { return x[0] * x[1]; }, std::nullopt},
      {"Pow", "pow", [](const auto& x) { return std::pow(x[0], x[1]); }, std::nullopt},
      {"Max", "max", [](const auto& x) { return std::max(x[0], x[1]); }, std::nullopt},
      {"Min", "min", [](const auto& x) { return std::min(x[0], x[1]); }, std::nullopt},
      {"Mod", "mod", [](const auto& x) { return std::fmod(x[0], x[1]); }, std::nullopt},
      {"Equal", "equal", [](const auto& x) { return x[0] == x[1] ? 1.0 : 0.0; }, DType::kBool},
      {"Less", "less", [](const auto& x) { return x[0] < x[1] ? 1.0 : 0.0; }, DType::kBool},
      {"Greater", "greater", [](const auto& x) { return x[0] > x[1] ? 1.0 : 0.0; }, DType::kBool},
      {"And", "and", [](const auto& x) { return x[0] != 0 && x[1] != 0 ? 1.0 : 0.0; },
       DType::kBool},
      {"Or", "or", [](const auto& x) { return x[0] != 0 || x[1] != 0 ? 1.0 : 0.0; }, DType::kBool},
  };
  for (const B& b : binaries) {
    std::string kind = b.kind;
    Fn f = b.f;
    std::optional<DType> result = b.result;
    t[b.onnx] = [kind, f, result](ImportContext& c, const ::onnx::NodeProto& n) {
      binary(c, n, kind, f, result);
    };
  }
  // Integer division truncates (ONNX Div on integer tensors), as shape arithmetic needs.
  t["Div"] = [](ImportContext& c, const ::onnx::NodeProto& n) {
    const bool integer = c.all_known(n) && is_integer(c.input(n, 0).info.dtype);
    binary(c, n, "div",
           [integer](const auto& x) { return integer ? integer_div(x[0], x[1]) : x[0] / x[1]; });
  };
}

}  // namespace amdahl::graphs::onnx
