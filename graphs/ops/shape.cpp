// Shape-only layers. flatten is a view: no op, no bytes, and the gradient passes through.

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;
}  // namespace

void register_shape_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "identity",
      .summary = "passes its input through (no op); selects a tensor for variants",
      .op_class = OpClass::kDataMovement,
      .infer = same_as_input,
      .forward = [](ForwardContext&) {},
      .backward =
          [](BackwardContext& ctx) {
            if (ctx.needs_input_grad(0)) ctx.pass_input_grad(0);
          },
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
            check(start >= 0 && static_cast<std::size_t>(start) < s.size(), layer,
                  fmt::format("start {} is outside the input's {} dims", start, s.size()));
            Shape out(s.begin(), s.begin() + start);
            std::int64_t tail = 1;
            for (std::size_t i = static_cast<std::size_t>(start); i < s.size(); ++i) tail *= s[i];
            out.push_back(tail);
            return std::vector<TensorInfo>{TensorInfo{out, in.front().dtype}};
          },
      .forward = [](ForwardContext&) {},
      .backward =
          [](BackwardContext& ctx) {
            if (ctx.needs_input_grad(0)) ctx.pass_input_grad(0);
          },
  });
}

}  // namespace amdahl::graphs
