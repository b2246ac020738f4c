// ONNX rules for data movement: views (Reshape, Flatten, Squeeze, Unsqueeze onto reshape or
// flatten: no op), copies (Transpose, Concat onto shape.cpp's kinds; Slice, Split, Gather,
// Expand, Pad, Tile onto graphs/ops/movement.cpp), and Gather from a float initializer with
// runtime ids onto embedding. Known constants (shape subgraphs) are evaluated instead.

#include <fmt/format.h>

#include <numeric>

#include "graphs/onnx/import_context.h"

namespace amdahl::graphs::onnx {
namespace {

using Node = ::onnx::NodeProto;

std::int64_t norm_axis(ImportContext& ctx, const Node& node, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    ctx.fail(node, fmt::format("axis {} is outside a rank-{} tensor", axis, rank));
  return axis < 0 ? axis + r : axis;
}

// A known constant mapped element-wise from the input: out[i] = in[index(i)].
void fold_gather(ImportContext& ctx, const Node& node, const Value& in, const Shape& out,
                 const std::function<std::int64_t(const IntList& coord)>& index, int output = 0) {
  Value v;
  v.info = TensorInfo{out, in.info.dtype};
  const std::int64_t n = elements(out);
  const IntList st = strides_of(out);
  std::vector<double> data(static_cast<std::size_t>(n));
  IntList coord(out.size());
  for (std::int64_t flat = 0; flat < n; ++flat) {
    for (std::size_t i = 0; i < out.size(); ++i) coord[i] = (flat / st[i]) % out[i];
    data[static_cast<std::size_t>(flat)] = (*in.data)[static_cast<std::size_t>(index(coord))];
  }
  v.data = std::move(data);
  ctx.define(node.output(output), std::move(v));
}

std::int64_t flat_index(const IntList& coord, const Shape& shape) {
  const IntList st = strides_of(shape);
  std::int64_t k = 0;
  for (std::size_t i = 0; i < coord.size(); ++i) k += coord[i] * st[i];
  return k;
}

// A view to `shape` (fully known): a constant keeps its data, a runtime tensor gets a
// reshape layer (no op).
void view(ImportContext& ctx, const Node& node, const Shape& shape) {
  const Value& x = ctx.input(node, 0);
  if (x.is_constant()) {
    Value v = x;
    v.info.shape = shape;
    ctx.define(node.output(0), std::move(v));
    return;
  }
  ctx.emit(node, "reshape", {{"shape", shape}}, {node.input(0)}, {node.output(0)});
}

void reshape(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  IntList shape = ctx.ints(node, 1, "shape");
  const bool allow_zero = ctx.attr_int(node, "allowzero", 0) != 0;
  std::int64_t known = 1;
  int inferred = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allow_zero) {
      if (i >= x.info.shape.size()) ctx.fail(node, "shape copies a dim the input lacks");
      shape[i] = x.info.shape[i];
    }
    if (shape[i] == -1)
      inferred = static_cast<int>(i);
    else
      known *= shape[i];
  }
  if (inferred >= 0) {
    if (known <= 0 || x.info.elements() % known != 0)
      ctx.fail(node,
               fmt::format("cannot reshape {} to {}", shape_str(x.info.shape), shape_str(shape)));
    shape[static_cast<std::size_t>(inferred)] = x.info.elements() / known;
  }
  if (elements(shape) != x.info.elements())
    ctx.fail(node, fmt::format("cannot reshape {} ({} elements) to {}", shape_str(x.info.shape),
                               x.info.elements(), shape_str(shape)));
  view(ctx, node, shape);
}

void flatten(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  const std::int64_t axis =
      ctx.attr_int(node, "axis", 1) < 0
          ? ctx.attr_int(node, "axis", 1) + static_cast<std::int64_t>(x.info.shape.size())
          : ctx.attr_int(node, "axis", 1);
  if (axis == 1 && !x.is_constant() && x.info.shape.size() >= 2)
    return ctx.emit(node, "flatten", {{"start", std::int64_t{1}}}, {node.input(0)},
                    {node.output(0)}),
           void();
  std::int64_t outer = 1;
  for (std::int64_t i = 0; i < axis; ++i) outer *= x.info.shape[static_cast<std::size_t>(i)];
  view(ctx, node, {outer, x.info.elements() / std::max<std::int64_t>(outer, 1)});
}

IntList axes_of(ImportContext& ctx, const Node& node, int input) {
  if (ctx.opset() >= 13 && ctx.has_input(node, input)) return ctx.ints(node, input, "axes");
  return ctx.attr_ints(node, "axes");
}

void squeeze(ImportContext& ctx, const Node& node) {
  const Shape& s = ctx.input(node, 0).info.shape;
  const IntList axes = axes_of(ctx, node, 1);
  std::vector<bool> drop(s.size(), false);
  for (std::int64_t a : axes)
    drop[static_cast<std::size_t>(norm_axis(ctx, node, a, s.size()))] = true;
  Shape out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (axes.empty() ? s[i] != 1 : !drop[i]) out.push_back(s[i]);
  view(ctx, node, out);
}

void unsqueeze(ImportContext& ctx, const Node& node) {
  const Shape& s = ctx.input(node, 0).info.shape;
  const IntList axes = axes_of(ctx, node, 1);
  const std::size_t rank = s.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (std::int64_t a : axes)
    inserted[static_cast<std::size_t>(norm_axis(ctx, node, a, rank))] = true;
  Shape out;
  std::size_t k = 0;
  for (std::size_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : s[k++]);
  view(ctx, node, out);
}

void transpose(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  IntList perm = ctx.attr_ints(node, "perm");
  if (perm.empty())
    for (std::size_t i = x.info.shape.size(); i-- > 0;)
      perm.push_back(static_cast<std::int64_t>(i));
  if (ctx.all_known(node)) {
    Shape out;
    for (std::int64_t p : perm) out.push_back(x.info.shape.at(static_cast<std::size_t>(p)));
    return fold_gather(ctx, node, x, out, [&](const IntList& c) {
      IntList in(c.size());
      for (std::size_t i = 0; i < c.size(); ++i) in[static_cast<std::size_t>(perm[i])] = c[i];
      return flat_index(in, x.info.shape);
    });
  }
  ctx.emit(node, "transpose", {{"perm", perm}}, {node.input(0)}, {node.output(0)});
}

void concat(ImportContext& ctx, const Node& node) {
  const Value& first = ctx.input(node, 0);
  const std::int64_t axis =
      norm_axis(ctx, node, ctx.attr_int(node, "axis", 0), first.info.shape.size());
  if (ctx.all_known(node)) {
    Value v;
    v.info = first.info;
    v.info.shape[static_cast<std::size_t>(axis)] = 0;
    for (int i = 0; i < node.input_size(); ++i)
      v.info.shape[static_cast<std::size_t>(axis)] +=
          ctx.input(node, i).info.shape[static_cast<std::size_t>(axis)];
    // Row-major: the outer dims before `axis` interleave blocks of each input.
    std::int64_t outer = 1;
    for (std::int64_t i = 0; i < axis; ++i) outer *= v.info.shape[static_cast<std::size_t>(i)];
    std::vector<double> data;
    for (std::int64_t o = 0; o < outer; ++o)
      for (int i = 0; i < node.input_size(); ++i) {
        const Value& in = ctx.input(node, i);
        const std::int64_t block = in.info.elements() / std::max<std::int64_t>(outer, 1);
        data.insert(data.end(), in.data->begin() + o * block, in.data->begin() + (o + 1) * block);
      }
    v.data = std::move(data);
    ctx.define(node.output(0), std::move(v));
    return;
  }
  std::vector<std::string> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    if (ctx.input(node, i).info.elements() == 0) continue;  // an empty part adds nothing
    inputs.push_back(node.input(i));
  }
  ctx.emit(node, "concat", {{"axis", axis}}, inputs, {node.output(0)});
}

struct SliceSpec {
  IntList starts, ends, axes, steps;
};

void slice(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  SliceSpec s;
  if (ctx.opset() < 10) {
    s.starts = ctx.attr_ints(node, "starts");
    s.ends = ctx.attr_ints(node, "ends");
    s.axes = ctx.attr_ints(node, "axes");
  } else {
    s.starts = ctx.ints(node, 1, "starts");
    s.ends = ctx.ints(node, 2, "ends");
    if (ctx.has_input(node, 3)) s.axes = ctx.ints(node, 3, "axes");
    if (ctx.has_input(node, 4)) s.steps = ctx.ints(node, 4, "steps");
  }
  // Exporters write "to the end" as INT64_MAX; the kind clamps.
  Params p{{"starts", s.starts}, {"ends", s.ends}};
  if (!s.axes.empty()) p["axes"] = s.axes;
  if (!s.steps.empty()) p["steps"] = s.steps;
  if (!x.is_constant() || !x.data) {
    ctx.emit(node, "slice", std::move(p), {node.input(0)}, {node.output(0)});
    return;
  }
  // Known constant: evaluate (resolving starts the way the kind's shape rule does).
  const std::size_t rank = x.info.shape.size();
  IntList start(rank, 0), step(rank, 1);
  Shape out = x.info.shape;
  for (std::size_t i = 0; i < s.starts.size(); ++i) {
    const auto a = static_cast<std::size_t>(
        norm_axis(ctx, node, s.axes.empty() ? static_cast<std::int64_t>(i) : s.axes[i], rank));
    const std::int64_t dim = x.info.shape[a];
    const std::int64_t st = s.steps.empty() ? 1 : s.steps[i];
    std::int64_t b = s.starts[i] < 0 ? s.starts[i] + dim : s.starts[i];
    std::int64_t e = s.ends[i] < 0 ? s.ends[i] + dim : s.ends[i];
    if (st > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      out[a] = std::max<std::int64_t>(0, (e - b + st - 1) / st);
    } else {
      b = std::clamp<std::int64_t>(b, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      out[a] = std::max<std::int64_t>(0, (b - e - st - 1) / -st);
    }
    start[a] = b;
    step[a] = st;
  }
  fold_gather(ctx, node, x, out, [&](const IntList& c) {
    IntList in(rank);
    for (std::size_t i = 0; i < rank; ++i) in[i] = start[i] + c[i] * step[i];
    return flat_index(in, x.info.shape);
  });
}

void gather(ImportContext& ctx, const Node& node) {
  const Value& data = ctx.input(node, 0);
  const Value& idx = ctx.input(node, 1);
  const std::int64_t axis =
      norm_axis(ctx, node, ctx.attr_int(node, "axis", 0), data.info.shape.size());
  if (ctx.all_known(node)) {
    Shape out(data.info.shape.begin(), data.info.shape.begin() + axis);
    out.insert(out.end(), idx.info.shape.begin(), idx.info.shape.end());
    out.insert(out.end(), data.info.shape.begin() + axis + 1, data.info.shape.end());
    const std::size_t q = idx.info.shape.size();
    const auto a = static_cast<std::size_t>(axis);
    return fold_gather(ctx, node, data, out, [&](const IntList& c) {
      IntList ic(c.begin() + axis, c.begin() + axis + static_cast<std::ptrdiff_t>(q));
      auto k = static_cast<std::int64_t>(
          (*idx.data)[static_cast<std::size_t>(flat_index(ic, idx.info.shape))]);
      if (k < 0) k += data.info.shape[a];
      IntList in(c.begin(), c.begin() + axis);
      in.push_back(k);
      in.insert(in.end(), c.begin() + axis + static_cast<std::ptrdiff_t>(q), c.end());
      return flat_index(in, data.info.shape);
    });
  }
  if (data.is_constant() && !idx.is_constant() && axis == 0 && data.info.shape.size() == 2 &&
      data.trainable) {
    ctx.emit(node, "embedding",
             {{"num_embeddings", data.info.shape[0]}, {"embedding_dim", data.info.shape[1]}},
             {node.input(1)}, {node.output(0)});
    return;
  }
  if (data.is_constant())
    ctx.fail(node,
             "gathering from a constant is supported as an embedding lookup (a rank-2 float "
             "initializer indexed along axis 0)");
  if (idx.is_constant())
    ctx.emit(node, "gather", {{"axis", axis}, {"indices_shape", idx.info.shape}}, {node.input(0)},
             {node.output(0)});
  else
    ctx.emit(node, "gather", {{"axis", axis}}, {node.input(0), node.input(1)}, {node.output(0)});
}

void split(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  const std::int64_t axis =
      norm_axis(ctx, node, ctx.attr_int(node, "axis", 0), x.info.shape.size());
  IntList sizes = ctx.opset() >= 13 && ctx.has_input(node, 1) ? ctx.ints(node, 1, "split")
                                                              : ctx.attr_ints(node, "split");
  if (sizes.empty()) {
    const std::int64_t dim = x.info.shape[static_cast<std::size_t>(axis)];
    const std::int64_t parts = node.output_size();
    const std::int64_t each = (dim + parts - 1) / parts;
    for (std::int64_t i = 0; i < parts; ++i) sizes.push_back(std::min(each, dim - i * each));
  }
  std::vector<std::string> outputs(node.output().begin(), node.output().end());
  if (x.is_constant() && x.data) {
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < sizes.size() && k < outputs.size(); ++k) {
      Shape out = x.info.shape;
      out[static_cast<std::size_t>(axis)] = sizes[k];
      const std::int64_t o = offset;
      fold_gather(
          ctx, node, x, out,
          [&](const IntList& c) {
            IntList in = c;
            in[static_cast<std::size_t>(axis)] += o;
            return flat_index(in, x.info.shape);
          },
          static_cast<int>(k));
      offset += sizes[k];
    }
    return;
  }
  ctx.emit(node, "split", {{"axis", axis}, {"sizes", sizes}}, {node.input(0)}, outputs);
}

void expand(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  const IntList shape = ctx.ints(node, 1, "shape");
  if (x.is_constant() && x.data) {
    std::size_t rank = std::max(shape.size(), x.info.shape.size());
    Shape out(rank, 1);
    for (std::size_t i = 0; i < rank; ++i) {
      const std::int64_t a =
          i + x.info.shape.size() >= rank ? x.info.shape[i + x.info.shape.size() - rank] : 1;
      const std::int64_t b = i + shape.size() >= rank ? shape[i + shape.size() - rank] : 1;
      out[i] = a == 1 ? b : a;
    }
    Value v;
    v.info = TensorInfo{out, x.info.dtype};
    v.data = broadcast_apply({&x}, out, [](const std::vector<double>& e) { return e[0]; });
    ctx.define(node.output(0), std::move(v));
    return;
  }
  ctx.emit(node, "expand", {{"shape", shape}}, {node.input(0)}, {node.output(0)});
}

void pad(ImportContext& ctx, const Node& node) {
  const IntList pads = ctx.opset() >= 11 ? ctx.ints(node, 1, "pads") : ctx.attr_ints(node, "pads");
  ctx.emit(node, "pad", {{"pads", pads}}, {node.input(0)}, {node.output(0)});
}

void tile(ImportContext& ctx, const Node& node) {
  ctx.emit(node, "tile", {{"repeats", ctx.ints(node, 1, "repeats")}}, {node.input(0)},
           {node.output(0)});
}

}  // namespace

void add_movement_rules(OnnxRuleTable& t) {
  t["Reshape"] = reshape;
  t["Flatten"] = flatten;
  t["Squeeze"] = squeeze;
  t["Unsqueeze"] = unsqueeze;
  t["Transpose"] = transpose;
  t["Concat"] = concat;
  t["Slice"] = slice;
  t["Gather"] = gather;
  t["Split"] = split;
  t["Expand"] = expand;
  t["Pad"] = pad;
  t["Tile"] = tile;
  t["Identity"] = [](ImportContext& c, const Node& n) { c.define(n.output(0), c.input(n, 0)); };
}

}  // namespace amdahl::graphs::onnx
