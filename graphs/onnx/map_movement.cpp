// ONNX rules for data movement: views (Reshape, Flatten, Squeeze, Unsqueeze onto reshape or
// flatten: no op), copies (Transpose, Concat onto shape.cpp's kinds; Slice, Split, Gather,
// Expand, Pad, Tile onto graphs/ops/movement.cpp), and Gather from a float initializer with
// runtime ids onto embedding. Known constants (shape subgraphs) are evaluated instead.

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "graphs/onnx/import_context.h"
#include "graphs/ops/broadcast.h"

namespace amdahl::graphs::onnx {
namespace {

using Node = ::onnx::NodeProto;

// A known constant mapped element-wise from the input: out[i] = in[index(i)]. When the result
// is larger than the fold limit it keeps its shape only (nothing is allocated).
void fold_gather(ImportContext& ctx, const Node& node, const Value& in, const Shape& out,
                 const std::function<std::int64_t(const IntList& coord)>& index, int output = 0) {
  Value v;
  v.info = TensorInfo{out, in.info.dtype};
  v.trainable = in.trainable;
  if (ctx.fold_fits(node, out)) {
    const std::int64_t n = elements(out);
    const IntList st = strides_of(out);
    std::vector<double> data(static_cast<std::size_t>(n));
    IntList coord(out.size());
    for (std::int64_t flat = 0; flat < n; ++flat) {
      for (std::size_t i = 0; i < out.size(); ++i) coord[i] = (flat / st[i]) % out[i];
      data[static_cast<std::size_t>(flat)] = (*in.data)[static_cast<std::size_t>(index(coord))];
    }
    v.set_data(std::move(data));
  }
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

// ONNX Reshape: 0 copies the input's dim (unless allowzero), one -1 is inferred, every other
// entry is a size.
void reshape(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  IntList shape = ctx.ints(node, 1, "shape");
  const IntList asked = shape;
  const bool allow_zero = ctx.attr_int(node, "allowzero", 0) != 0;
  const std::int64_t n = x.info.elements();
  int inferred = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allow_zero) {
      if (i >= x.info.shape.size())
        ctx.fail(node, fmt::format("shape {} copies dim {} (0), which the input {} lacks",
                                   shape_str(asked), i, shape_str(x.info.shape)));
      shape[i] = x.info.shape[i];
    } else if (shape[i] == -1) {
      if (inferred >= 0) ctx.fail(node, fmt::format("shape {} has two -1s", shape_str(asked)));
      if (allow_zero && std::find(asked.begin(), asked.end(), 0) != asked.end())
        ctx.fail(node, fmt::format("shape {} has a -1 and, with allowzero, a 0", shape_str(asked)));
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      ctx.fail(node, fmt::format("shape {} has {}, neither a size nor -1 (infer) nor 0 (copy)",
                                 shape_str(asked), shape[i]));
    }
  }
  if (inferred >= 0) {
    Shape known = shape;
    known[static_cast<std::size_t>(inferred)] = 1;
    const std::int64_t k = ctx.count(node, known);
    if (k == 0 || n % k != 0)
      ctx.fail(node, fmt::format("cannot reshape {} ({} elements) to {}: no size for the -1",
                                 shape_str(x.info.shape), n, shape_str(asked)));
    shape[static_cast<std::size_t>(inferred)] = n / k;
  }
  if (ctx.count(node, shape) != n)
    ctx.fail(node, fmt::format("cannot reshape {} ({} elements) to {}", shape_str(x.info.shape), n,
                               shape_str(shape)));
  view(ctx, node, shape);
}

// ONNX Flatten: [d0 ... d(axis-1)] and [d(axis) ...] merged; axis in [-r, r].
void flatten(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  const auto rank = static_cast<std::int64_t>(x.info.shape.size());
  std::int64_t axis = ctx.attr_int(node, "axis", 1);
  if (axis < -rank || axis > rank)
    ctx.fail(node, fmt::format("axis {} is outside [{}, {}] of a rank-{} tensor", axis, -rank, rank,
                               rank));
  if (axis < 0) axis += rank;
  if (axis == 1 && !x.is_constant() && rank >= 2)
    return ctx.emit(node, "flatten", {{"start", std::int64_t{1}}}, {node.input(0)},
                    {node.output(0)}),
           void();
  const Shape outer(x.info.shape.begin(), x.info.shape.begin() + axis);
  const Shape inner(x.info.shape.begin() + axis, x.info.shape.end());
  view(ctx, node, {ctx.count(node, outer), ctx.count(node, inner)});
}

IntList axes_of(ImportContext& ctx, const Node& node, int input) {
  if (ctx.opset() >= 13 && ctx.has_input(node, input)) return ctx.ints(node, input, "axes");
  return ctx.attr_ints(node, "axes");
}

void squeeze(ImportContext& ctx, const Node& node) {
  const Shape& s = ctx.input(node, 0).info.shape;
  const IntList axes = axes_of(ctx, node, 1);
  std::vector<bool> drop(s.size(), axes.empty());
  for (const std::size_t a : ctx.axes(node, axes, s.size())) {
    if (s[a] != 1)
      ctx.fail(node, fmt::format("axis {} has size {} in {}; only a size-1 dim can be squeezed", a,
                                 s[a], shape_str(s)));
    drop[a] = true;
  }
  Shape out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!drop[i] || s[i] != 1) out.push_back(s[i]);
  view(ctx, node, out);
}

void unsqueeze(ImportContext& ctx, const Node& node) {
  const Shape& s = ctx.input(node, 0).info.shape;
  const IntList axes = axes_of(ctx, node, 1);
  const std::size_t rank = s.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (const std::size_t a : ctx.axes(node, axes, rank)) inserted[a] = true;
  Shape out;
  std::size_t k = 0;
  for (std::size_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : s[k++]);
  view(ctx, node, out);
}

void transpose(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  const std::size_t rank = x.info.shape.size();
  IntList perm = ctx.attr_ints(node, "perm");
  if (perm.empty())
    for (std::size_t i = rank; i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  // ONNX: a permutation of 0 .. rank-1.
  std::vector<bool> seen(rank, false);
  for (const std::int64_t p : perm)
    if (perm.size() != rank || p < 0 || p >= static_cast<std::int64_t>(rank) ||
        seen[static_cast<std::size_t>(p)])
      ctx.fail(node, fmt::format("perm {} is not a permutation of the {} dims of {}",
                                 shape_str(perm), rank, shape_str(x.info.shape)));
    else
      seen[static_cast<std::size_t>(p)] = true;
  if (ctx.all_known(node)) {
    Shape out;
    for (std::int64_t p : perm) out.push_back(x.info.shape[static_cast<std::size_t>(p)]);
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
  const std::size_t axis = ctx.axis(node, ctx.attr_int(node, "axis", 0), first.info.shape.size());
  if (ctx.all_known(node)) {
    Value v;
    v.info = first.info;
    v.info.shape[axis] = 0;
    for (int i = 0; i < node.input_size(); ++i) {
      const Shape& s = ctx.input(node, i).info.shape;
      bool same = s.size() == first.info.shape.size();
      for (std::size_t d = 0; same && d < s.size(); ++d)
        same = d == axis || s[d] == first.info.shape[d];
      if (!same)
        ctx.fail(node, fmt::format("inputs must match except along axis {} (got {} and {})", axis,
                                   shape_str(first.info.shape), shape_str(s)));
      if (__builtin_add_overflow(v.info.shape[axis], s[axis], &v.info.shape[axis]))
        ctx.fail(node, "the concatenated dim passes 2^63");
      v.trainable = v.trainable || ctx.input(node, i).trainable;
    }
    if (ctx.fold_fits(node, v.info.shape)) {
      // Row-major: the outer dims before `axis` interleave blocks of each input.
      std::int64_t outer = 1;
      for (std::size_t i = 0; i < axis; ++i) outer *= v.info.shape[i];
      std::vector<double> data;
      data.reserve(static_cast<std::size_t>(v.info.elements()));
      for (std::int64_t o = 0; o < outer; ++o)
        for (int i = 0; i < node.input_size(); ++i) {
          const Value& in = ctx.input(node, i);
          const std::int64_t block = in.info.elements() / std::max<std::int64_t>(outer, 1);
          data.insert(data.end(), in.data->begin() + o * block, in.data->begin() + (o + 1) * block);
        }
      v.set_data(std::move(data));
    }
    ctx.define(node.output(0), std::move(v));
    return;
  }
  std::vector<std::string> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    if (ctx.input(node, i).info.elements() == 0) continue;  // an empty part adds nothing
    inputs.push_back(node.input(i));
  }
  ctx.emit(node, "concat", {{"axis", static_cast<std::int64_t>(axis)}}, inputs, {node.output(0)});
}

// ONNX Slice: starts and ends are clamped to each dim (not range errors); steps are non-zero.
// A step past the dim selects what a step of the dim does, so it is clamped there (the
// kind's arithmetic stays far from 2^63).
void slice(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  IntList starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.attr_ints(node, "starts");
    ends = ctx.attr_ints(node, "ends");
    axes = ctx.attr_ints(node, "axes");
  } else {
    starts = ctx.ints(node, 1, "starts");
    ends = ctx.ints(node, 2, "ends");
    if (ctx.has_input(node, 3)) axes = ctx.ints(node, 3, "axes");
    if (ctx.has_input(node, 4)) steps = ctx.ints(node, 4, "steps");
  }
  const std::size_t rank = x.info.shape.size();
  if (ends.size() != starts.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    ctx.fail(node,
             fmt::format("starts {}, ends {}, axes {} and steps {} must have one entry each "
                         "per sliced axis",
                         shape_str(starts), shape_str(ends), shape_str(axes), shape_str(steps)));
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  const std::vector<std::size_t> dims = ctx.axes(node, axes, rank);
  if (steps.empty()) steps.assign(starts.size(), 1);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] == 0) ctx.fail(node, fmt::format("steps {} has a 0", shape_str(steps)));
    const std::int64_t dim = std::max<std::int64_t>(x.info.shape[dims[i]], 1);
    steps[i] = steps[i] > 0 ? std::min(steps[i], dim) : std::max(steps[i], -dim);
  }
  Params p{{"starts", starts}, {"ends", ends}, {"axes", axes}, {"steps", steps}};
  if (!x.is_constant() || !x.data) {
    ctx.emit(node, "slice", std::move(p), {node.input(0)}, {node.output(0)});
    return;
  }
  // Known constant: evaluate (resolving starts the way the kind's shape rule does).
  IntList start(rank, 0), step(rank, 1);
  Shape out = x.info.shape;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::size_t a = dims[i];
    const std::int64_t dim = x.info.shape[a];
    const std::int64_t st = steps[i];
    auto resolve = [dim](std::int64_t v) { return v < 0 ? v + dim : v; };
    std::int64_t b = resolve(starts[i]), e = resolve(ends[i]);
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

// ONNX Gather: indices into `axis` of the data, in [-n, n-1] (negative from the end); known
// indices are checked whatever the data.
void gather(ImportContext& ctx, const Node& node) {
  const Value& data = ctx.input(node, 0);
  const Value& idx = ctx.input(node, 1);
  const std::size_t axis = ctx.axis(node, ctx.attr_int(node, "axis", 0), data.info.shape.size());
  const std::int64_t n = data.info.shape[axis];
  IntList known;
  if (idx.is_constant() && idx.data) {
    known = ctx.ints(node, 1, "indices");
    for (std::int64_t& k : known) k = ctx.index(node, k, n, fmt::format("axis {}", axis));
  }
  if (ctx.all_known(node)) {
    Shape out(data.info.shape.begin(), data.info.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    out.insert(out.end(), idx.info.shape.begin(), idx.info.shape.end());
    out.insert(out.end(), data.info.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1,
               data.info.shape.end());
    const std::size_t q = idx.info.shape.size();
    return fold_gather(ctx, node, data, out, [&](const IntList& c) {
      const auto begin = c.begin() + static_cast<std::ptrdiff_t>(axis);
      const IntList ic(begin, begin + static_cast<std::ptrdiff_t>(q));
      IntList in(c.begin(), begin);
      in.push_back(known[static_cast<std::size_t>(flat_index(ic, idx.info.shape))]);
      in.insert(in.end(), begin + static_cast<std::ptrdiff_t>(q), c.end());
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
  const auto a = static_cast<std::int64_t>(axis);
  if (idx.is_constant())
    ctx.emit(node, "gather", {{"axis", a}, {"indices_shape", idx.info.shape}}, {node.input(0)},
             {node.output(0)});
  else
    ctx.emit(node, "gather", {{"axis", a}}, {node.input(0), node.input(1)}, {node.output(0)});
}

// ONNX Split: `split` sizes (one per output, >= 0, adding up to the dim), or equal parts.
void split(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  const std::size_t axis = ctx.axis(node, ctx.attr_int(node, "axis", 0), x.info.shape.size());
  const std::int64_t dim = x.info.shape[axis];
  IntList sizes = ctx.opset() >= 13 && ctx.has_input(node, 1) ? ctx.ints(node, 1, "split")
                                                              : ctx.attr_ints(node, "split");
  const std::int64_t parts = node.output_size();
  if (sizes.empty()) {
    const std::int64_t each = (dim + parts - 1) / parts;
    for (std::int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::clamp<std::int64_t>(dim - i * each, 0, each));
  }
  std::int64_t total = 0;
  for (const std::int64_t s : sizes)
    if (s < 0 || __builtin_add_overflow(total, s, &total)) total = -1;
  if (static_cast<std::int64_t>(sizes.size()) != parts || total != dim)
    ctx.fail(node, fmt::format("split {} must have one size >= 0 per output ({}) adding up to "
                               "dim {} of {} ({})",
                               shape_str(sizes), parts, axis, shape_str(x.info.shape), dim));
  std::vector<std::string> outputs(node.output().begin(), node.output().end());
  if (x.is_constant() && x.data) {
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      Shape out = x.info.shape;
      out[axis] = sizes[k];
      const std::int64_t o = offset;
      offset += sizes[k];
      if (outputs[k].empty()) continue;
      fold_gather(
          ctx, node, x, out,
          [&](const IntList& c) {
            IntList in = c;
            in[axis] += o;
            return flat_index(in, x.info.shape);
          },
          static_cast<int>(k));
    }
    return;
  }
  ctx.emit(node, "split", {{"axis", static_cast<std::int64_t>(axis)}, {"sizes", sizes}},
           {node.input(0)}, outputs);
}

// ONNX Expand: numpy broadcasting of the input and `shape` (each pair equal or one of them 1).
void expand(ImportContext& ctx, const Node& node) {
  const Value& x = ctx.input(node, 0);
  const IntList shape = ctx.ints(node, 1, "shape");
  const std::optional<Shape> broadcast_shape =
      std::ranges::any_of(shape, [](std::int64_t d) { return d < 0; })
          ? std::nullopt
          : ops::broadcast({x.info.shape, shape});
  if (!broadcast_shape)
    ctx.fail(node, fmt::format("the input {} does not broadcast to shape {}",
                               shape_str(x.info.shape), shape_str(shape)));
  const Shape& out = *broadcast_shape;
  ctx.count(node, out);
  if (x.is_constant() && x.data) {
    Value v;
    v.info = TensorInfo{out, x.info.dtype};
    v.trainable = x.trainable;
    if (ctx.fold_fits(node, out))
      v.set_data(broadcast_apply({&x}, out, [](const std::vector<double>& e) { return e[0]; }));
    ctx.define(node.output(0), std::move(v));
    return;
  }
  ctx.emit(node, "expand", {{"shape", shape}}, {node.input(0)}, {node.output(0)});
}

void pad(ImportContext& ctx, const Node& node) {
  const Shape& s = ctx.input(node, 0).info.shape;
  const IntList pads = ctx.opset() >= 11 ? ctx.ints(node, 1, "pads") : ctx.attr_ints(node, "pads");
  if (pads.size() != 2 * s.size())
    ctx.fail(node, fmt::format("pads {} needs 2 x {} entries (begins, then ends) for {}",
                               shape_str(pads), s.size(), shape_str(s)));
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::int64_t d = 0;
    if (__builtin_add_overflow(s[i], pads[i], &d) ||
        __builtin_add_overflow(d, pads[i + s.size()], &d) || d < 0)
      ctx.fail(node, fmt::format("pads {} make dim {} of {} negative or past 2^63", shape_str(pads),
                                 i, shape_str(s)));
  }
  ctx.emit(node, "pad", {{"pads", pads}}, {node.input(0)}, {node.output(0)});
}

void tile(ImportContext& ctx, const Node& node) {
  const Shape& s = ctx.input(node, 0).info.shape;
  const IntList repeats = ctx.ints(node, 1, "repeats");
  if (repeats.size() != s.size())
    ctx.fail(node, fmt::format("repeats {} needs one entry per dim of {}", shape_str(repeats),
                               shape_str(s)));
  Shape out = s;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (repeats[i] < 0 || __builtin_mul_overflow(s[i], repeats[i], &out[i]))
      ctx.fail(node, fmt::format("repeats {} of {}: a negative repeat or a dim past 2^63",
                                 shape_str(repeats), shape_str(s)));
  ctx.count(node, out);
  ctx.emit(node, "tile", {{"repeats", repeats}}, {node.input(0)}, {node.output(0)});
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
