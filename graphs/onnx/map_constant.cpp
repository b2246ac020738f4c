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
  out.data = std::vector<double>(v.begin(), v.end());
  return out;
}

void constant(ImportContext& ctx, const Node& node) {
  const std::string where = fmt::format("{}: node '{}' (Constant)", ctx.file(), node.name());
  if (const auto* tensor = ctx.attr(node, "value")) {
    ctx.define(node.output(0), constant_value(tensor->t(), "", where));
  } else if (const auto* f = ctx.attr(node, "value_float")) {
    Value v;
    v.info = TensorInfo{{}, DType::kF32};
    v.data = std::vector<double>{f->f()};
    ctx.define(node.output(0), std::move(v));
  } else if (const auto* fs = ctx.attr(node, "value_floats")) {
    Value v;
    v.info = TensorInfo{{fs->floats_size()}, DType::kF32};
    v.data = std::vector<double>(fs->floats().begin(), fs->floats().end());
    ctx.define(node.output(0), std::move(v));
  } else if (const auto* i = ctx.attr(node, "value_int")) {
    ctx.define(node.output(0), ints_value({i->i()}, {}));
  } else if (const auto* is = ctx.attr(node, "value_ints")) {
    ctx.define(node.output(0),
               ints_value({is->ints().begin(), is->ints().end()}, {is->ints_size()}));
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
    const Value c = constant_value(a->t(), "", ctx.file());
    v.info.dtype = c.info.dtype;
    if (c.data && !c.data->empty()) fill = c.data->front();
  }
  v.info.shape = dims;
  if (v.info.elements() <= kKnownElements)
    v.data = std::vector<double>(static_cast<std::size_t>(v.info.elements()), fill);
  ctx.define(node.output(0), std::move(v));
}

void range(ImportContext& ctx, const Node& node) {
  const double start = ctx.numbers(node, 0, "start").at(0);
  const double limit = ctx.numbers(node, 1, "limit").at(0);
  const double delta = ctx.numbers(node, 2, "delta").at(0);
  if (delta == 0) ctx.fail(node, "delta is 0");
  const auto n = static_cast<std::int64_t>(std::max(0.0, std::ceil((limit - start) / delta)));
  Value v;
  v.info = TensorInfo{{n}, ctx.input(node, 0).info.dtype};
  std::vector<double> data;
  for (std::int64_t i = 0; i < n; ++i) data.push_back(start + static_cast<double>(i) * delta);
  if (n <= kKnownElements) v.data = std::move(data);
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
