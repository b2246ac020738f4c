// Shape and data-movement layers. flatten and reshape are views: no op, no bytes, and the
// gradient passes through. concat, transpose and cast move data: each reads its inputs once
// and writes its output once (no FLOPs); their backward moves the gradient back the same way
// (concat: one slice copy per input that needs it).

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

std::int64_t normalize_axis(const Layer& layer, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  check(axis >= -r && axis < r, layer,
        [&] { return fmt::format("axis {} is outside {} dims", axis, r); });
  return axis < 0 ? axis + r : axis;
}

std::vector<TensorInfo> concat_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const Shape& first = in.front().shape;
  const auto axis =
      static_cast<std::size_t>(normalize_axis(layer, layer.get_int("axis"), first.size()));
  Shape out = first;
  CheckedInt joined = 0;
  for (const auto& t : in) {
    bool ok = t.shape.size() == first.size();
    for (std::size_t i = 0; ok && i < first.size(); ++i) ok = i == axis || t.shape[i] == first[i];
    check(ok, layer, [&] {
      return fmt::format("inputs must match except along axis {} (got {} and {})", axis,
                         shape_str(first), shape_str(t.shape));
    });
    joined += t.shape[axis];
  }
  out[axis] = checked_size(layer, "concatenated dim", joined);
  return {TensorInfo{out, in.front().dtype}};
}

// ONNX Reshape semantics: 0 copies the input dim, one -1 is inferred.
std::vector<TensorInfo> reshape_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const Shape& s = in.front().shape;
  Shape out = layer.get_int_list("shape");
  CheckedInt product = 1;
  int inferred = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0) {
      check(i < s.size(), layer, [&] {
        return fmt::format("shape[{}] = 0 copies a dim the input {} lacks", i, shape_str(s));
      });
      out[i] = s[i];
    }
    if (out[i] == -1) {
      check(inferred < 0, layer, "shape has more than one -1");
      inferred = static_cast<int>(i);
    } else {
      check(out[i] > 0, layer,
            [&] { return fmt::format("shape[{}] = {} is not a size", i, out[i]); });
      product *= out[i];
    }
  }
  const std::int64_t known = checked_size(layer, "shape", product);
  const std::int64_t n = in.front().elements();
  if (inferred >= 0) {
    check(known > 0 && n % known == 0, layer, [&] {
      return fmt::format("cannot infer -1: {} elements of {} are not a multiple of {}", n,
                         shape_str(s), known);
    });
    out[static_cast<std::size_t>(inferred)] = n / known;
  }
  check(elements(out) == n, layer, [&] {
    return fmt::format("cannot reshape {} ({} elements) to {}", shape_str(s), n, shape_str(out));
  });
  return {TensorInfo{out, in.front().dtype}};
}

std::vector<TensorInfo> transpose_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const Shape& s = in.front().shape;
  const auto perm = layer.get_int_list("perm");
  check(perm.size() == s.size(), layer, [&] {
    return fmt::format("perm has {} entries for an input of {} dims {}", perm.size(), s.size(),
                       shape_str(s));
  });
  Shape out(s.size());
  std::vector<bool> seen(s.size(), false);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const auto p = static_cast<std::size_t>(normalize_axis(layer, perm[i], s.size()));
    check(!seen[p], layer, [&] { return fmt::format("perm repeats dim {}", p); });
    seen[p] = true;
    out[i] = s[p];
  }
  return {TensorInfo{out, in.front().dtype}};
}

// A copy of the output (forward) or of the gradient (backward).
void move_forward(ForwardContext& ctx) {
  double read = 0;
  for (const auto& t : ctx.inputs) read += t.bytes();
  ctx.emit(ctx.make("fwd", OpClass::kDataMovement, 0, read, ctx.out().bytes()));
}

// The gradient of a one-input copy: dy copied back into dx's layout.
void move_backward(BackwardContext& ctx) {
  if (ctx.needs_input_grad(0))
    ctx.emit(ctx.make("bwd", OpClass::kDataMovement, Phase::kBackwardData, 0, ctx.out().bytes(),
                      ctx.in().bytes()),
             0);
}

}  // namespace

void register_shape_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "identity",
      .summary = "passes its input through (no op); selects a tensor for variants",
      .op_class = OpClass::kDataMovement,
      .infer = same_as_input,
      .forward = view_forward,
      .backward = view_backward,
  });
  r.add(LayerKind{
      .name = "flatten",
      .summary = "view [N, ...] as [N, prod(...)] from dim `start` (no data movement)",
      .op_class = OpClass::kDataMovement,
      .params = {int_param("start", "first dim to merge", "1")},
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            const Shape& s = in.front().shape;
            const std::int64_t start = layer.get_int("start");
            check(start >= 0 && static_cast<std::size_t>(start) < s.size(), layer, [&] {
              return fmt::format("start {} is outside the input's {} dims", start, s.size());
            });
            Shape out(s.begin(), s.begin() + start);
            CheckedInt tail = 1;
            for (std::size_t i = static_cast<std::size_t>(start); i < s.size(); ++i) tail *= s[i];
            out.push_back(checked_size(layer, "flattened dim", tail));
            return std::vector<TensorInfo>{TensorInfo{out, in.front().dtype}};
          },
      .forward = view_forward,
      .backward = view_backward,
  });
  r.add(LayerKind{
      .name = "reshape",
      .summary = "view with a new shape (0 copies the input dim, one -1 is inferred; no data "
                 "movement)",
      .op_class = OpClass::kDataMovement,
      .params = {ints_param("shape", "the new shape; size expressions allowed")},
      .infer = reshape_infer,
      .forward = view_forward,
      .backward = view_backward,
  });
  r.add(LayerKind{
      .name = "transpose",
      .summary = "permute dims (out dim i = input dim perm[i]); a copy",
      .op_class = OpClass::kDataMovement,
      .params = {ints_param("perm", "permutation of the input dims")},
      .infer = transpose_infer,
      .forward = move_forward,
      .backward = move_backward,
  });
  r.add(LayerKind{
      .name = "concat",
      .summary = "concatenate inputs along `axis`; a copy",
      .op_class = OpClass::kDataMovement,
      .params = {int_param("axis", "dim to join along (negative counts from the end)", "1")},
      .min_inputs = 1,
      .max_inputs = -1,
      .infer = concat_infer,
      .forward = move_forward,
      .backward =
          [](BackwardContext& ctx) {
            const double e = ctx.out().bytes() / std::max(1.0, d(ctx.out().elements()));
            for (std::size_t i = 0; i < ctx.inputs.size(); ++i)
              if (ctx.needs_input_grad(i)) {
                const double bytes = e * d(ctx.in(i).elements());
                ctx.emit(ctx.make(fmt::format("bwd{}", i), OpClass::kDataMovement,
                                  Phase::kBackwardData, 0, bytes, bytes),
                         static_cast<int>(i));
              }
          },
  });
  r.add(LayerKind{
      .name = "cast",
      .summary = "convert the element type (mixed precision inserts these); a copy",
      .op_class = OpClass::kDataMovement,
      .params = {choice_param("to", dtype_names(), "target element type", "")},
      .infer =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            return std::vector<TensorInfo>{
                TensorInfo{in.front().shape, *parse_dtype(layer.get_string("to"))}};
          },
      .forward = move_forward,
      .backward = move_backward,
  });
}

}  // namespace amdahl::graphs
