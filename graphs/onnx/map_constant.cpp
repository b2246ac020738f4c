// ONNX rules that produce constants once the sizes are bound: Constant, Shape, Size,
// ConstantOfShape, Range. They start the shape-computing subgraphs (Shape -> Gather ->
// Concat -> Reshape) that the other rules then evaluate.

#include <fmt/format.h>

#include <cmath>

#include "graphs/onnx/import_context.h"
#include "graphs/onnx/tensor_data.h"

namespace amdahl::graphs::onnx {
namespace {

using Node = ::onnx::NodeProto;

Value ints_value(const IntList& v, Shape shape) {
  Value out;
  out.info = TensorInfo{std::move(shape), DType::kI64};
  out.set_data(std::vector<double>(v.begin(), v.end()));
  return out;
}

void constant(ImportContext& ctx, const Node& node) {
  const std::string where = fmt::format("{}: node '{}' (Constant)", ctx.file(), node.name());
  if (const auto* tensor = ctx.attr(node, "value")) {
    ctx.define(node.output(0), constant_value(tensor->t(), ctx.file(), where));
  } else if (const auto* f = ctx.attr(node, "value_float")) {
    Value v;
    v.info = TensorInfo{{}, DType::kF32};
    v.set_data({f->f()});
    ctx.define(node.output(0), std::move(v));
  } else if (const auto* fs = ctx.attr(node, "value_floats")) {
    Value v;
    v.info = TensorInfo{{fs->floats_size()}, DType::kF32};
    if (ctx.fold_fits(node, v.info.shape))
      v.set_data(std::vector<double>(fs->floats().begin(), fs->floats().end()));
    ctx.define(node.output(0), std::move(v));
  } else if (const auto* i = ctx.attr(node, "value_int")) {
    ctx.define(node.output(0), ints_value({i->i()}, {}));
  } else if (const auto* is = ctx.attr(node, "value_ints")) {
    Value v;
    v.info = TensorInfo{{is->ints_size()}, DType::kI64};
    if (ctx.fold_fits(node, v.info.shape))
      v.set_data(std::vector<double>(is->ints().begin(), is->ints().end()));
    ctx.define(node.output(0), std::move(v));
  } else {
    ctx.fail(node, "has no value attribute amdahl reads (value, value_float(s), value_int(s))");
  }
}

void shape(ImportContext& ctx, const Node& node) {
  const Shape& s = ctx.input(node, 0).info.shape;
  const auto rank = static_cast<std::int64_t>(s.size());
  std::int64_t start = ctx.attr_int(node, "start", 0), end = ctx.attr_int(node, "end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<std::int64_t>(start, 0, rank);
  end = std::clamp<std::int64_t>(end, start, rank);
  IntList dims(s.begin() + start, s.begin() + end);
  ctx.define(node.output(0), ints_value(dims, {end - start}));
}

void constant_of_shape(ImportContext& ctx, const Node& node) {
  const IntList dims = ctx.ints(node, 0, "shape");
  Value v;
  double fill = 0;
  v.info.dtype = DType::kF32;
  if (const auto* a = ctx.attr(node, "value")) {
    const Value c = constant_value(a->t(), ctx.file(), ctx.file());
    v.info.dtype = c.info.dtype;
    if (c.data && !c.data->empty()) fill = c.data->front();
  }
  v.info.shape = dims;
  // A zero tensor larger than the fold limit is a runtime constant of that shape.
  if (ctx.fold_fits(node, v.info.shape))
    v.set_data(std::vector<double>(static_cast<std::size_t>(v.info.elements()), fill));
  ctx.define(node.output(0), std::move(v));
}

// ONNX Range: max(ceil((limit - start) / delta), 0) elements start + i * delta. The count is
// checked before any element is made.
void range(ImportContext& ctx, const Node& node) {
  const double start = ctx.scalar(node, 0, "start");
  const double limit = ctx.scalar(node, 1, "limit");
  const double delta = ctx.scalar(node, 2, "delta");
  if (delta == 0) ctx.fail(node, "delta is 0");
  const double steps = std::ceil((limit - start) / delta);
  if (!std::isfinite(steps) || steps >= 9.2e18)
    ctx.fail(node, fmt::format("Range({}, {}, {}) has {} elements, more than 2^63", start, limit,
                               delta, steps));
  const auto n = static_cast<std::int64_t>(std::max(0.0, steps));
  Value v;
  v.info = TensorInfo{{n}, ctx.input(node, 0).info.dtype};
  if (ctx.fold_fits(node, v.info.shape)) {
    std::vector<double> data(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      data[static_cast<std::size_t>(i)] = start + static_cast<double>(i) * delta;
    v.set_data(std::move(data));
  }
  ctx.define(node.output(0), std::move(v));
}

}  // namespace

void add_constant_rules(OnnxRuleTable& t) {
  t["Constant"] = constant;
  t["Shape"] = shape;
  t["Size"] = [](ImportContext& c, const Node& n) {
    c.define(n.output(0), ints_value({c.input(n, 0).info.elements()}, {}));
  };
  t["ConstantOfShape"] = constant_of_shape;
  t["Range"] = range;
}

}  // namespace amdahl::graphs::onnx
