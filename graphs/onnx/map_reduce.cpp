// ONNX rules for reductions onto the reduce family (graphs/ops/reduce.cpp). ReduceSum takes
// its axes as an input from opset 13, the others as an attribute up to opset 17. Known
// constants are evaluated.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {
namespace {

using Node = ::onnx::NodeProto;

void reduce(ImportContext& ctx, const Node& node, const std::string& kind, double init,
            const std::function<double(double, double)>& combine, bool mean) {
  const Value& x = ctx.input(node, 0);
  const bool axes_input = node.op_type() == "ReduceSum" && ctx.opset() >= 13;
  const IntList axes = axes_input && ctx.has_input(node, 1) ? ctx.ints(node, 1, "axes")
                                                            : ctx.attr_ints(node, "axes");
  const bool keep = ctx.attr_int(node, "keepdims", 1) != 0;
  if (axes.empty() && ctx.attr_int(node, "noop_with_empty_axes", 0) != 0) {
    ctx.define(node.output(0), x);
    return;
  }
  const std::size_t rank = x.info.shape.size();
  std::vector<bool> reduced(rank, axes.empty());
  for (const std::size_t a : ctx.axes(node, axes, rank)) reduced[a] = true;
  if (x.is_constant() && x.data) {
    Shape kept;
    for (std::size_t i = 0; i < rank; ++i) kept.push_back(reduced[i] ? 1 : x.info.shape[i]);
    ctx.fold_fits(node, kept);  // no larger than the input, which has known values
    std::vector<double> acc(static_cast<std::size_t>(elements(kept)), init);
    const IntList st = strides_of(x.info.shape), kst = strides_of(kept);
    for (std::int64_t flat = 0; flat < x.info.elements(); ++flat) {
      std::int64_t k = 0;
      for (std::size_t i = 0; i < rank; ++i)
        if (!reduced[i]) k += ((flat / st[i]) % x.info.shape[i]) * kst[i];
      auto& a = acc[static_cast<std::size_t>(k)];
      a = combine(a, (*x.data)[static_cast<std::size_t>(flat)]);
    }
    if (mean)
      for (double& a : acc)
        a /= static_cast<double>(x.info.elements()) / static_cast<double>(acc.size());
    Shape out;
    for (std::size_t i = 0; i < rank; ++i)
      if (!reduced[i] || keep) out.push_back(kept[i]);
    Value v;
    v.info = TensorInfo{out, x.info.dtype};
    v.set_data(std::move(acc));
    ctx.define(node.output(0), std::move(v));
    return;
  }
  Params p{{"keepdims", keep}};
  if (!axes.empty()) p["axes"] = axes;
  ctx.emit(node, kind, std::move(p), {node.input(0)}, {node.output(0)});
}

}  // namespace

void add_reduce_rules(OnnxRuleTable& t) {
  const auto add = [](double a, double b) { return a + b; };
  t["ReduceSum"] = [add](ImportContext& c, const Node& n) {
    reduce(c, n, "reduce_sum", 0, add, false);
  };
  t["ReduceMean"] = [add](ImportContext& c, const Node& n) {
    reduce(c, n, "reduce_mean", 0, add, true);
  };
  t["ReduceMax"] = [](ImportContext& c, const Node& n) {
    reduce(
        c, n, "reduce_max", -INFINITY, [](double a, double b) { return std::max(a, b); }, false);
  };
  t["ReduceMin"] = [](ImportContext& c, const Node& n) {
    reduce(
        c, n, "reduce_min", INFINITY, [](double a, double b) { return std::min(a, b); }, false);
  };
  t["ReduceProd"] = [](ImportContext& c, const Node& n) {
    reduce(
        c, n, "reduce_prod", 1, [](double a, double b) { return a * b; }, false);
  };
  t["ReduceSumSquare"] = [](ImportContext& c, const Node& n) {
    reduce(
        c, n, "reduce_sum_square", 0, [](double a, double b) { return a + b * b; }, false);
  };
}

}  // namespace amdahl::graphs::onnx
