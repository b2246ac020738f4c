// Reductions over a set of axes (ONNX ReduceSum, ReduceMean, ReduceMax, ...; also usable
// from YAML). One rule: the forward reads the input once and combines each input element
// into its output (1 FLOP per input element; mean adds 1 per output element for the
// division); the backward broadcasts the output gradient back to the input's size (mean:
// 1 FLOP per element for the scale; max/min: a compare against the saved input).

#include "graphs/ops/broadcast.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

std::vector<TensorInfo> reduce_infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const Shape& s = in.front().shape;
  std::vector<bool> reduced(s.size(), !layer.has("axes"));
  if (layer.has("axes"))
    for (std::size_t a : normalize_axes(layer, layer.get_int_list("axes"), s.size()))
      reduced[a] = true;
  const bool keep = layer.get_bool("keepdims");
  Shape out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!reduced[i])
      out.push_back(s[i]);
    else if (keep)
      out.push_back(1);
  return {TensorInfo{out, in.front().dtype}};
}

struct ReduceOp {
  const char* name;
  const char* summary;
  double per_input_flops;     // the combine (sum of squares: multiply and add)
  double per_output_flops;    // after the combine (mean: the division)
  double backward_flops;      // per input element
  bool backward_reads_input;  // max/min find the winner again
  bool differentiable = true;
};

LayerKind reduce(ReduceOp op) {
  return LayerKind{
      .name = op.name,
      .summary = op.summary,
      .op_class = OpClass::kReduction,
      .params = {ParamDecl{"axes",
                           ParamType::kInts,
                           false,
                           "",
                           "axes to reduce (negative from the end); absent: all",
                           {}},
                 bool_param("keepdims", "keep reduced axes as size 1", "true")},
      .differentiable = op.differentiable,
      .infer = reduce_infer,
      .forward =
          [op](ForwardContext& ctx) {
            ctx.emit(ctx.make("fwd", OpClass::kReduction,
                              op.per_input_flops * d(ctx.in().elements()) +
                                  op.per_output_flops * d(ctx.out().elements()),
                              ctx.in().bytes(), ctx.out().bytes()));
          },
      .backward =
          [op](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            ctx.emit(
                ctx.make("bwd", OpClass::kElementwise, Phase::kBackwardData,
                         op.backward_flops * d(ctx.in().elements()),
                         ctx.out().bytes() + (op.backward_reads_input ? ctx.in().bytes() : 0.0),
                         ctx.in().bytes()),
                0);
          },
  };
}

}  // namespace

void register_reduce_ops(LayerRegistry& r) {
  r.add(reduce({"reduce_sum", "sum over axes", 1, 0, 0, false}));
  r.add(reduce({"reduce_mean", "mean over axes", 1, 1, 1, false}));
  r.add(reduce({"reduce_max", "maximum over axes", 1, 0, 1, true}));
  r.add(reduce({"reduce_min", "minimum over axes", 1, 0, 1, true}));
  r.add(reduce({"reduce_prod", "product over axes", 1, 0, 2, true}));
  r.add(reduce({"reduce_sum_square", "sum of squares over axes", 2, 0, 2, true}));
  r.add(reduce(
      {"reduce_l2", "Euclidean norm over axes (sqrt of the sum of squares)", 2, 1, 2, true}));
}

}  // namespace amdahl::graphs
