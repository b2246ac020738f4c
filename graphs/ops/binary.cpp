// Generic binary elementwise layers with numpy broadcasting (the ONNX standard's binary
// ops, also usable from YAML). One rule for the family: the forward reads both operands and
// writes the broadcast output with a per-op FLOP count per output element. One operand may
// be a constant (`constant_shape`; the layer then has one input), a learned one when
// `trainable` (a bias or scale: counted as a weight, given a gradient).
//
// Backward: for each operand that needs a gradient, the derivative's elementwise FLOPs per
// output element (add/sub 0, mul 1: dy*b, div 1 for a: dy/b and 3 for b: -dy*a/b^2, pow 3:
// dy*b*a^(b-1) or dy*log(a)*a^b, max/min 1: a select), plus the sum over broadcast dims
// (1 FLOP per output element) when the operand is smaller than the output. An operand whose
// gradient is the output gradient unchanged (add, sub of a full-size operand) passes it
// through without an op, as lowering does for `add`.

#include "graphs/ops/broadcast.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

struct BinaryOp {
  const char* name;
  const char* summary;
  double forward_flops;
  double grad_flops[2];  // per output element, for operand 0 and operand 1
  bool differentiable = true;
  bool boolean = false;  // a comparison: the output is bool (1 byte), as ONNX defines it
};

// The operand shapes in operand order (the constant where it sits).
std::vector<Shape> operand_shapes(const Layer& layer, const std::vector<TensorInfo>& in) {
  std::vector<Shape> shapes;
  for (const auto& t : in) shapes.push_back(t.shape);
  if (layer.has("constant_shape")) {
    const Shape c = layer.get_int_list("constant_shape");
    if (layer.get_bool("constant_first"))
      shapes.insert(shapes.begin(), c);
    else
      shapes.push_back(c);
  }
  return shapes;
}

std::vector<TensorInfo> binary_infer(const Layer& layer, const std::vector<TensorInfo>& in,
                                     bool boolean) {
  const std::vector<Shape> shapes = operand_shapes(layer, in);
  check(shapes.size() == 2, layer, [&] {
    return fmt::format("needs two operands: two inputs, or one input and constant_shape (got {})",
                       shapes.size());
  });
  return {TensorInfo{broadcast_shapes(layer, shapes), boolean ? DType::kBool : in.front().dtype}};
}

std::vector<Weight> binary_weights(const Layer& layer, const std::vector<TensorInfo>&) {
  if (!layer.has("constant_shape") || !layer.get_bool("trainable")) return {};
  return {{"weight", elements(layer.get_int_list("constant_shape"))}};
}

LayerKind binary(BinaryOp b) {
  const double fwd = b.forward_flops;
  const double g0 = b.grad_flops[0], g1 = b.grad_flops[1];
  return LayerKind{
      .name = b.name,
      .summary = b.summary,
      .op_class = OpClass::kElementwise,
      .params = {ParamDecl{"constant_shape",
                           ParamType::kInts,
                           false,
                           "",
                           "shape of a constant operand (the layer then has one input)",
                           {}},
                 bool_param("constant_first", "the constant is the first operand", "false"),
                 bool_param("trainable", "the constant is a learned parameter", "false")},
      .min_inputs = 1,
      .max_inputs = 2,
      .differentiable = b.differentiable,
      .infer = [boolean = b.boolean](
                   const Layer& layer,
                   const std::vector<TensorInfo>& in) { return binary_infer(layer, in, boolean); },
      .weights = binary_weights,
      .forward =
          [fwd](ForwardContext& ctx) {
            Operator op = elementwise_forward(ctx, "fwd", fwd);
            if (ctx.layer.has("constant_shape"))
              op.bytes_read += d(elements(ctx.layer.get_int_list("constant_shape"))) *
                               dtype_bytes(ctx.out().dtype);
            ctx.emit(std::move(op));
          },
      .backward =
          [g0, g1](BackwardContext& ctx) {
            const std::vector<Shape> shapes = operand_shapes(ctx.layer, ctx.inputs);
            const bool has_constant = ctx.layer.has("constant_shape");
            const bool constant_first = has_constant && ctx.layer.get_bool("constant_first");
            const double n = d(ctx.out().elements());
            const double e = dtype_bytes(ctx.out().dtype);
            for (std::size_t operand = 0; operand < 2; ++operand) {
              const bool is_constant = has_constant && (operand == 0) == constant_first;
              const std::size_t input = has_constant && constant_first ? operand - 1 : operand;
              if (is_constant ? !ctx.layer.get_bool("trainable") : !ctx.needs_input_grad(input))
                continue;
              const double target = d(elements(shapes[operand]));
              const double flops = operand == 0 ? g0 : g1;
              const bool reduces = target < n;
              if (flops == 0 && !reduces && !is_constant) {
                ctx.pass_input_grad(input);
                continue;
              }
              // Reads the output gradient (and the other operand when the derivative needs
              // it), writes the operand's gradient.
              const double other = flops > 0 ? d(elements(shapes[1 - operand])) * e : 0.0;
              Operator op =
                  ctx.make(operand == 0 ? "bwd_a" : "bwd_b",
                           reduces ? OpClass::kReduction : OpClass::kElementwise,
                           is_constant ? Phase::kBackwardWeight : Phase::kBackwardData,
                           (flops + (reduces ? 1.0 : 0.0)) * n, n * e + other, target * e);
              op.output_shape = shapes[operand];
              if (is_constant)
                ctx.emit(std::move(op), -1, 0);
              else
                ctx.emit(std::move(op), static_cast<int>(input));
            }
          },
  };
}

}  // namespace

void register_binary_ops(LayerRegistry& r) {
  const std::vector<BinaryOp> table = {
      {"add_broadcast", "a + b with broadcasting (add: same shapes, any number)", 1, {0, 0}},
      {"sub", "a - b with broadcasting", 1, {0, 1}},
      {"mul", "a * b with broadcasting", 1, {1, 1}},
      {"div", "a / b with broadcasting", 1, {1, 3}},
      {"pow", "a ^ b with broadcasting", 1, {3, 3}},
      {"max", "elementwise maximum with broadcasting", 1, {1, 1}},
      {"min", "elementwise minimum with broadcasting", 1, {1, 1}},
      {"mod", "a mod b (no gradient)", 1, {0, 0}, false},
      {"equal", "a == b (no gradient)", 1, {0, 0}, false, true},
      {"less", "a < b (no gradient)", 1, {0, 0}, false, true},
      {"greater", "a > b (no gradient)", 1, {0, 0}, false, true},
      {"and", "logical and (no gradient)", 1, {0, 0}, false},
      {"or", "logical or (no gradient)", 1, {0, 0}, false},
  };
  for (const BinaryOp& b : table) r.add(binary(b));

  // where(condition, x, y): a select per output element; the operands that are constants
  // (`constant_shape`, broadcast into the output) are not inputs. `condition` is the index
  // of the condition among the inputs, -1 when it is a constant.
  r.add(LayerKind{
      .name = "where",
      .summary = "condition ? x : y with broadcasting (1 select per element)",
      .op_class = OpClass::kElementwise,
      .params = {int_param("condition", "index of the condition among the inputs (-1: constant)",
                           "0"),
                 ParamDecl{"constant_shape",
                           ParamType::kInts,
                           false,
                           "",
                           "broadcast shape of the operands that are constants",
                           {}}},
      .min_inputs = 1,
      .max_inputs = 3,
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            std::vector<Shape> shapes;
            DType dtype = in.front().dtype;
            const std::int64_t cond = layer.get_int("condition");
            for (std::size_t i = 0; i < in.size(); ++i) {
              shapes.push_back(in[i].shape);
              if (static_cast<std::int64_t>(i) != cond) dtype = in[i].dtype;
            }
            if (layer.has("constant_shape")) shapes.push_back(layer.get_int_list("constant_shape"));
            return std::vector<TensorInfo>{TensorInfo{broadcast_shapes(layer, shapes), dtype}};
          },
      .forward = [](ForwardContext& ctx) { ctx.emit(elementwise_forward(ctx, "fwd", 1)); },
      .backward =
          [](BackwardContext& ctx) {
            const std::int64_t cond = ctx.layer.get_int("condition");
            for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
              if (static_cast<std::int64_t>(i) == cond || !ctx.needs_input_grad(i)) continue;
              // The gradient masked by the condition, summed over broadcast dims.
              const double n = d(ctx.out().elements());
              const double e = dtype_bytes(ctx.out().dtype);
              const bool reduces = ctx.in(i).elements() < ctx.out().elements();
              Operator op = ctx.make(
                  fmt::format("bwd_{}", i), reduces ? OpClass::kReduction : OpClass::kElementwise,
                  Phase::kBackwardData, (reduces ? 2.0 : 1.0) * n,
                  n * e + (cond >= 0 ? ctx.in(cond).bytes() : 0.0), ctx.in(i).bytes());
              op.output_shape = ctx.in(i).shape;
              ctx.emit(std::move(op), static_cast<int>(i));
            }
          },
  });
}

}  // namespace amdahl::graphs
