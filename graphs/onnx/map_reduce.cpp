// ONNX rules for reductions onto the reduce family (graphs/ops/reduce.cpp). ReduceSum takes
// its axes as an input from opset 13, the others as an attribute up to opset 17. Known
// constants are evaluated. Einsum maps onto matmul when its equation is one (batched)
// matrix product: see einsum() below.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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
  if (x.is_constant() && x.data) {
    const std::size_t rank = x.info.shape.size();
    std::vector<bool> reduced(rank, axes.empty());
    for (std::int64_t a : axes)
      reduced[static_cast<std::size_t>(a < 0 ? a + static_cast<std::int64_t>(rank) : a)] = true;
    Shape kept;
    for (std::size_t i = 0; i < rank; ++i) kept.push_back(reduced[i] ? 1 : x.info.shape[i]);
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
    v.data = std::move(acc);
    ctx.define(node.output(0), std::move(v));
    return;
  }
  Params p{{"keepdims", keep}};
  if (!axes.empty()) p["axes"] = axes;
  ctx.emit(node, kind, std::move(p), {node.input(0)}, {node.output(0)});
}

constexpr const char* kEinsumForms =
    "two inputs with explicit '->', batch letters leading in the same order in both inputs and "
    "the output, then one free letter per input and one contracted letter, e.g. ij,jk->ik, "
    "ik,jk->ij, bij,bjk->bik, bhid,bhjd->bhij, bhij,bhjd->bhid";

// Einsum as matmul: batch letters (in both inputs and the output) lead every term in the
// same order; each input then holds its free letter (the one it shares with the output only)
// and the contracted letter (in both inputs, not the output) in either order, which sets
// transpose_a / transpose_b; an output [.., n, m] swaps the operands (C^T = B^T A^T).
void einsum(ImportContext& ctx, const Node& node) {
  std::string eq;
  for (char c : ctx.attr_string(node, "equation", "")) {
    if (c != ' ') eq.push_back(c);
  }
  auto unsupported = [&](const std::string& why) {
    ctx.fail(node, fmt::format("equation '{}' is not supported ({}); supported: {}", eq, why,
                               kEinsumForms));
  };
  const auto arrow = eq.find("->");
  if (arrow == std::string::npos) unsupported("no explicit output");
  const std::string lhs = eq.substr(0, arrow), out = eq.substr(arrow + 2);
  const auto comma = lhs.find(',');
  if (comma == std::string::npos || lhs.find(',', comma + 1) != std::string::npos ||
      node.input_size() != 2)
    unsupported("not two inputs");
  const std::string terms[2] = {lhs.substr(0, comma), lhs.substr(comma + 1)};
  for (const std::string* t : {&terms[0], &terms[1], &out}) {
    for (std::size_t i = 0; i < t->size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>((*t)[i])))
        unsupported("only letters are supported (no ellipsis)");
      if (t->find((*t)[i], i + 1) != std::string::npos) unsupported("a letter repeats in a term");
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (static_cast<std::size_t>(ctx.input(node, i).info.shape.size()) != terms[i].size())
      unsupported(fmt::format("input {} has rank {}, the term '{}' {} letters", i,
                              ctx.input(node, i).info.shape.size(), terms[i], terms[i].size()));
  }
  auto in = [](const std::string& t, char c) { return t.find(c) != std::string::npos; };
  std::string batch, contracted, free_a, free_b;
  for (char c : out) {
    if (!in(terms[0], c) && !in(terms[1], c)) unsupported(fmt::format("'{}' is in no input", c));
  }
  for (char c : terms[0] + terms[1]) {
    const bool a = in(terms[0], c), b = in(terms[1], c), o = in(out, c);
    std::string& group =
        a && b ? (o ? batch : contracted) : (!o ? contracted : (a ? free_a : free_b));
    if (!o && !(a && b)) unsupported(fmt::format("'{}' is summed within one input", c));
    if (!in(group, c)) group.push_back(c);
  }
  if (contracted.size() != 1 || free_a.size() != 1 || free_b.size() != 1)
    unsupported("not one contracted letter and one free letter per input");
  const std::size_t nb = batch.size();
  const std::string lead = out.substr(0, nb);
  if (lead.size() != nb || !std::is_permutation(lead.begin(), lead.end(), batch.begin()) ||
      terms[0].substr(0, nb) != lead || terms[1].substr(0, nb) != lead)
    unsupported("the batch letters do not lead every term in the same order");
  const char k = contracted[0];
  // Operands in product order: out[.., m, n] = first[.., m, k] x second[.., k, n].
  const int first = out[nb] == free_a[0] ? 0 : 1;
  const char n = first == 0 ? free_b[0] : free_a[0];
  const std::string& ta = terms[first];
  const std::string& tb = terms[1 - first];
  const bool transpose_a = ta[nb] == k;  // [.., k, m]
  const bool transpose_b = tb[nb] == n;  // [.., n, k]
  const Value& a = ctx.input(node, first);
  const Value& b = ctx.input(node, 1 - first);
  if (a.is_constant() != b.is_constant())
    ctx.fail(node, fmt::format("equation '{}': a constant operand is not supported", eq));
  ctx.emit(node, "matmul", {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}},
           {node.input(first), node.input(1 - first)}, {node.output(0)});
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
  t["Einsum"] = einsum;
  t["ReduceSumSquare"] = [](ImportContext& c, const Node& n) {
    reduce(
        c, n, "reduce_sum_square", 0, [](double a, double b) { return a + b * b; }, false);
  };
}

}  // namespace amdahl::graphs::onnx
