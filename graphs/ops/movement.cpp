// Data-movement layers for the ONNX standard's movement ops (also usable from YAML): slice,
// split, gather, expand, pad, tile. One rule for the family: no FLOPs; a copy reads what it
// needs and writes its output once. split is a set of views (as PyTorch's split/chunk: no
// copy). Backward: the gradient moves back the opposite way - slice and gather scatter
// into a zero-filled input-size gradient (writes the input size), split concatenates the
// parts (one copy of the input size), expand and tile sum over the repeated copies (a
// reduction), pad slices the gradient (a copy of the input size).
// (reshape, transpose and concat live in shape.cpp.)

#include "graphs/ops/broadcast.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

TensorInfo with_shape(const TensorInfo& t, Shape s) { return TensorInfo{std::move(s), t.dtype}; }

// ONNX Slice: for each listed axis, elements start, start+step, ... before end (clamped).
std::vector<TensorInfo> slice_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  Shape out = in.front().shape;
  const auto starts = layer.get_int_list("starts");
  const auto ends = layer.get_int_list("ends");
  const IntList axes = layer.has("axes") ? layer.get_int_list("axes") : IntList{};
  const IntList steps = layer.has("steps") ? layer.get_int_list("steps") : IntList{};
  check(starts.size() == ends.size(), layer, "starts and ends must have the same length");
  IntList axis_list = axes;
  if (axis_list.empty())
    for (std::size_t i = 0; i < starts.size(); ++i)
      axis_list.push_back(static_cast<std::int64_t>(i));
  check(axis_list.size() == starts.size(), layer, "axes must have one entry per start");
  const auto norm = normalize_axes(layer, axis_list, out.size());
  for (std::size_t i = 0; i < norm.size(); ++i) {
    const std::int64_t dim = out[norm[i]];
    const std::int64_t step = steps.empty() ? 1 : steps.at(i);
    check(step != 0, layer, "a step of 0");
    auto clamp = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
      if (v < 0) v += dim;
      return std::clamp(v, lo, hi);
    };
    const std::int64_t s = step > 0 ? clamp(starts[i], 0, dim) : clamp(starts[i], 0, dim - 1);
    const std::int64_t e = step > 0 ? clamp(ends[i], 0, dim) : clamp(ends[i], -1, dim - 1);
    // ceil((e - s) / step) elements where e lies past s in the step's direction, else none;
    // without forming e - s + step, which a step of any size would overflow.
    if (step > 0)
      out[norm[i]] = e > s ? (e - s - 1) / step + 1 : 0;
    else
      out[norm[i]] = s > e ? -((s - e - 1) / step) + 1 : 0;
  }
  return {with_shape(in.front(), out)};
}

// A copy of the output; reads the output's worth of the input plus the other inputs
// (gather's indices).
void copy_forward(ForwardContext& ctx) {
  double read = ctx.out().bytes();
  for (std::size_t i = 1; i < ctx.inputs.size(); ++i) read += ctx.in(i).bytes();
  ctx.emit(ctx.make("fwd", OpClass::kDataMovement, 0, read, ctx.out().bytes()));
}

// Zero-fill the input-size gradient and scatter the output gradient into it.
void scatter_backward(BackwardContext& ctx) {
  if (!ctx.needs_input_grad(0)) return;
  ctx.emit(ctx.make("bwd", OpClass::kDataMovement, Phase::kBackwardData, 0, ctx.out().bytes(),
                    ctx.in().bytes() + ctx.out().bytes()),
           0);
}

// Assemble the input-size gradient from the output gradient(s): one copy of the input's size
// (split's parts concatenated, pad's crop).
void input_copy_backward(BackwardContext& ctx) {
  if (!ctx.needs_input_grad(0)) return;
  ctx.emit(ctx.make("bwd", OpClass::kDataMovement, Phase::kBackwardData, 0, ctx.in().bytes(),
                    ctx.in().bytes()),
           0);
}

// Sum the output gradient over the copies: one add per output element.
void reduce_backward(BackwardContext& ctx) {
  if (!ctx.needs_input_grad(0)) return;
  ctx.emit(ctx.make("bwd", OpClass::kReduction, Phase::kBackwardData, d(ctx.out().elements()),
                    ctx.out().bytes(), ctx.in().bytes()),
           0);
}

std::vector<TensorInfo> split_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const Shape& s = in.front().shape;
  const std::size_t axis = normalize_axes(layer, {layer.get_int("axis")}, s.size()).front();
  const auto sizes = layer.get_int_list("sizes");
  CheckedInt total = 0;
  std::vector<TensorInfo> out;
  for (std::int64_t n : sizes) {
    check(n >= 0, layer, [&] { return fmt::format("a negative split size {}", n); });
    Shape part = s;
    part[axis] = n;
    out.push_back(with_shape(in.front(), part));
    total += n;
  }
  const std::int64_t sum = checked_size(layer, "split sizes", total);
  check(sum == s[axis], layer, [&] {
    return fmt::format("split sizes add up to {}, the input's dim {} is {}", sum, axis, s[axis]);
  });
  return out;
}

std::vector<TensorInfo> gather_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const Shape& s = in.front().shape;
  const std::size_t axis = normalize_axes(layer, {layer.get_int("axis")}, s.size()).front();
  const Shape indices = in.size() > 1 ? in[1].shape : layer.get_int_list("indices_shape");
  Shape out(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), s.begin() + static_cast<std::ptrdiff_t>(axis) + 1, s.end());
  return {with_shape(in.front(), out)};
}

std::vector<TensorInfo> expand_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  return {with_shape(in.front(),
                     broadcast_shapes(layer, {in.front().shape, layer.get_int_list("shape")}))};
}

std::vector<TensorInfo> pad_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  Shape out = in.front().shape;
  const auto pads = layer.get_int_list("pads");
  check(pads.size() == 2 * out.size(), layer, [&] {
    return fmt::format("pads needs 2 x {} entries (begins then ends; got {})", out.size(),
                       pads.size());
  });
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = checked_size(layer, "padded dim", CheckedInt(out[i]) + pads[i] + pads[i + out.size()]);
    check(out[i] >= 0, layer, [&] { return fmt::format("pads remove more than dim {} holds", i); });
  }
  return {with_shape(in.front(), out)};
}

std::vector<TensorInfo> tile_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  Shape out = in.front().shape;
  const auto repeats = layer.get_int_list("repeats");
  check(repeats.size() == out.size(), layer, [&] {
    return fmt::format("repeats needs {} entries (got {})", out.size(), repeats.size());
  });
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = checked_size(layer, "tiled dim", CheckedInt(out[i]) * repeats[i]);
  return {with_shape(in.front(), out)};
}

ParamDecl optional_ints(std::string name, std::string description) {
  return ParamDecl{std::move(name), ParamType::kInts, false, "", std::move(description), {}};
}

}  // namespace

void register_movement_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "slice",
      .summary = "elements start:end:step along axes (ONNX Slice; negative counts from the end)",
      .op_class = OpClass::kDataMovement,
      .params = {ints_param("starts", "first index per axis"),
                 ints_param("ends", "end index per axis (exclusive, clamped)"),
                 optional_ints("axes", "axes (default 0, 1, ...)"),
                 optional_ints("steps", "steps (default 1)")},
      .infer = slice_infer,
      .forward = copy_forward,
      .backward = scatter_backward,
  });
  r.add(LayerKind{
      .name = "split",
      .summary = "views of consecutive parts along `axis` (output i has sizes[i])",
      .op_class = OpClass::kDataMovement,
      .params = {int_param("axis", "dim to split", "0"), ints_param("sizes", "part sizes")},
      .infer = split_infer,
      .forward = view_forward,
      .backward = input_copy_backward,
  });
  r.add(LayerKind{
      .name = "gather",
      .summary = "select entries along `axis` by indices (second input, or constant indices of "
                 "indices_shape)",
      .op_class = OpClass::kDataMovement,
      .params = {int_param("axis", "dim indexed", "0"),
                 optional_ints("indices_shape", "shape of constant indices (one input then)")},
      .min_inputs = 1,
      .max_inputs = 2,
      .infer = gather_infer,
      .forward = copy_forward,
      .backward = scatter_backward,
  });
  r.add(LayerKind{
      .name = "expand",
      .summary = "broadcast to `shape` (numpy rules); a copy",
      .op_class = OpClass::kDataMovement,
      .params = {ints_param("shape", "target shape")},
      .infer = expand_infer,
      .forward = copy_forward,
      .backward = reduce_backward,
  });
  r.add(LayerKind{
      .name = "pad",
      .summary = "pad each dim (pads: all begins, then all ends; negative crops); a copy",
      .op_class = OpClass::kDataMovement,
      .params = {ints_param("pads", "begin pads per dim, then end pads per dim")},
      .infer = pad_infer,
      .forward = copy_forward,
      .backward = input_copy_backward,
  });
  r.add(LayerKind{
      .name = "tile",
      .summary = "repeat the input repeats[i] times along dim i; a copy",
      .op_class = OpClass::kDataMovement,
      .params = {ints_param("repeats", "repeats per dim")},
      .infer = tile_infer,
      .forward = copy_forward,
      .backward = reduce_backward,
  });
}

}  // namespace amdahl::graphs
