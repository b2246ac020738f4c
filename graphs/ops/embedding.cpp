// Embedding lookup: ids of any shape (integer) gather rows of a [num_embeddings, dim] table,
// output [..., dim]. Forward reads the ids and one row per id; no FLOPs. The weight gradient
// is sparse, as in TensorFlow's IndexedSlices and PyTorch's embedding backward: a
// scatter-add of the output gradient into the rows that were looked up (1 FLOP per element),
// touching ids*dim elements, never the whole table. No gradient flows to the ids.

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

bool is_integer(DType t) {
  return t == DType::kI64 || t == DType::kI32 || t == DType::kI8 || t == DType::kBool;
}

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  check(is_integer(in.front().dtype), layer,
        fmt::format("expects integer ids (got {} {})", dtype_name(in.front().dtype),
                    shape_str(in.front().shape)));
  Shape s = in.front().shape;
  s.push_back(layer.get_int("embedding_dim"));
  return {TensorInfo{s, parse_dtype(layer.get_string("dtype")).value_or(DType::kF32)}};
}

}  // namespace

void register_embedding_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "embedding",
      .summary = "table lookup of integer ids -> [..., embedding_dim]; sparse weight gradient",
      .op_class = OpClass::kEmbedding,
      .params = {int_param("num_embeddings", "rows of the table (vocabulary)"),
                 int_param("embedding_dim", "width of a row"),
                 choice_param("dtype", {"fp32", "fp16", "bf16"}, "storage of the table", "fp32")},
      .infer = infer,
      .weights =
          [](const Layer& layer, const std::vector<TensorInfo>&) {
            return std::vector<Weight>{
                {"weight", layer.get_int("num_embeddings") * layer.get_int("embedding_dim")}};
          },
      .forward =
          [](ForwardContext& ctx) {
            ctx.emit(ctx.make("fwd", OpClass::kEmbedding, 0, ctx.in().bytes() + ctx.out().bytes(),
                              ctx.out().bytes()));
          },
      .backward =
          [](BackwardContext& ctx) {
            // Reads the output gradient and the ids, adds into the looked-up rows.
            ctx.emit(ctx.make("bwd_weight", OpClass::kEmbedding, Phase::kBackwardWeight,
                              d(ctx.out().elements()), ctx.out().bytes() + ctx.in().bytes(),
                              ctx.out().bytes()),
                     -1, 0);
          },
  });
}

}  // namespace amdahl::graphs
