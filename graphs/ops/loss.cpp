// Losses. Softmax cross-entropy over the last dim of the logits: forward a softmax (max,
// subtract, exp, sum, divide: 5 FLOPs/element) and the per-example loss; backward the
// elementwise (softmax - one_hot) / batch.

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  const TensorInfo& logits = in[0];
  const TensorInfo& labels = in[1];
  check(logits.shape.size() >= 2, layer,
        fmt::format("expects logits [N, classes] (got {})", shape_str(logits.shape)));
  check(labels.elements() * logits.shape.back() == logits.elements(), layer,
        fmt::format("labels {} do not match logits {}", shape_str(labels.shape),
                    shape_str(logits.shape)));
  return {TensorInfo{{}, DType::kF32}};
}

}  // namespace

void register_loss_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "softmax_cross_entropy",
      .summary = "softmax over classes and mean cross-entropy against integer labels",
      .op_class = OpClass::kSoftmax,
      .min_inputs = 2,
      .max_inputs = 2,
      .is_loss = true,
      .infer = infer,
      .forward =
          [](ForwardContext& ctx) {
            const double n = d(ctx.in(0).elements());
            ctx.emit(ctx.make("fwd", OpClass::kSoftmax, 5.0 * n + d(ctx.in(1).elements()),
                              ctx.in(0).bytes() + ctx.in(1).bytes(), ctx.in(0).bytes() + 4.0));
          },
      .backward =
          [](BackwardContext& ctx) {
            if (!ctx.needs_input_grad(0)) return;
            const double n = d(ctx.in(0).elements());
            Operator op = ctx.make("bwd", OpClass::kSoftmax, Phase::kBackwardData, 2.0 * n,
                                   ctx.in(0).bytes() + ctx.in(1).bytes(), ctx.in(0).bytes());
            ctx.emit(std::move(op), 0);
          },
  });
}

}  // namespace amdahl::graphs
