// Embedding lookup: ids of any shape (integer) gather rows of a [num_embeddings, dim] table,
// output [..., dim]. Forward reads the ids and one row per id; no FLOPs. The weight gradient
// is sparse, as in TensorFlow's IndexedSlices and PyTorch's embedding backward: a
// scatter-add of the output gradient into the rows that were looked up (1 FLOP per element),
// touching ids*dim elements, never the whole table. No gradient flows to the ids.
//
// position_encoding: the bag-of-words sentence encoding of end-to-end memory networks
// (Sukhbaatar et al., NeurIPS 2015, section 4.1): [..., S, E] word embeddings multiplied by a
// fixed [S, E] position-encoding matrix and summed over the S words -> [..., E]: 2 FLOPs per
// input element. With `temporal`, a learned [M, E] temporal matrix is added to [N, M, E]
// memories (1 FLOP per output element).

#include "graphs/ops/common.h"

namespace amdahl::graphs {
namespace {
using namespace ops;

bool is_integer(DType t) {
  return t == DType::kI64 || t == DType::kI32 || t == DType::kI8 || t == DType::kBool;
}

std::vector<TensorInfo> infer(const Layer& layer, const std::vector<TensorInfo>& in) {
  check(is_integer(in.front().dtype), layer, [&] {
    return fmt::format("expects integer ids (got {} {})", dtype_name(in.front().dtype),
                       shape_str(in.front().shape));
  });
  Shape s = in.front().shape;
  s.push_back(layer.get_int("embedding_dim"));
  return {TensorInfo{s, parse_dtype(layer.get_string("dtype")).value_or(DType::kF32)}};
}

std::vector<TensorInfo> position_encoding_infer(const Layer& layer,
                                                const std::vector<TensorInfo>& in) {
  const Shape& s = in.front().shape;
  check(s.size() >= 2, layer,
        [&] { return fmt::format("expects [..., S, E] (got {})", shape_str(s)); });
  if (layer.get_bool("temporal"))
    check(s.size() == 4, layer, [&] {
      return fmt::format("temporal encoding expects memories [N, M, S, E] (got {})", shape_str(s));
    });
  Shape out(s.begin(), s.end() - 2);
  out.push_back(s.back());
  return {TensorInfo{out, in.front().dtype}};
}

}  // namespace

void register_embedding_ops(LayerRegistry& r) {
  r.add(LayerKind{
      .name = "embedding",
      .summary = "table lookup of integer ids -> [..., embedding_dim]; sparse weight gradient",
      .op_class = OpClass::kEmbedding,
      .params = {int_param("num_embeddings", "rows of the table (vocabulary)").at_least(1),
                 int_param("embedding_dim", "width of a row").at_least(1),
                 choice_param("dtype", {"fp32", "fp16", "bf16"}, "storage of the table", "fp32")},
      .infer = infer,
      .weights =
          [](const Layer& layer, const std::vector<TensorInfo>&) {
            const std::int64_t rows = layer.get_int("num_embeddings");
            const std::int64_t dim = layer.get_int("embedding_dim");
            return std::vector<Weight>{{"weight",
                                        checked_size(layer, "weight", CheckedInt(rows) * dim),
                                        Shape{rows, dim}}};
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
  r.add(LayerKind{
      .name = "position_encoding",
      .summary = "memory-network sentence encoding: [..., S, E] x position weights, summed over "
                 "S -> [..., E]; temporal: add a learned [M, E] matrix",
      .op_class = OpClass::kElementwise,
      .params = {bool_param("temporal", "add a learned temporal matrix (memories)", "false")},
      .infer = position_encoding_infer,
      .weights =
          [](const Layer& layer, const std::vector<TensorInfo>& in) {
            if (!layer.get_bool("temporal")) return std::vector<Weight>{};
            const Shape& s = in.front().shape;
            return std::vector<Weight>{
                {"temporal", checked_size(layer, "temporal", CheckedInt(s[1]) * s[3])}};
          },
      .forward =
          [](ForwardContext& ctx) {
            const double extra = ctx.layer.get_bool("temporal") ? d(ctx.out().elements()) : 0.0;
            ctx.emit(ctx.make("fwd", OpClass::kElementwise, 2.0 * d(ctx.in().elements()) + extra,
                              ctx.in().bytes(), ctx.out().bytes()));
          },
      .backward =
          [](BackwardContext& ctx) {
            // Broadcasts the gradient back over the words times the position weights.
            const bool temporal = ctx.layer.get_bool("temporal");
            if (ctx.needs_input_grad(0))
              ctx.emit(ctx.make("bwd", OpClass::kElementwise, Phase::kBackwardData,
                                d(ctx.in().elements()), ctx.out().bytes(), ctx.in().bytes()),
                       0);
            if (temporal)
              ctx.emit(ctx.make("bwd_temporal", OpClass::kReduction, Phase::kBackwardWeight,
                                d(ctx.out().elements()), ctx.out().bytes(),
                                ctx.out().bytes() / d(ctx.out().shape[0])),
                       -1, 0);
          },
  });
}

}  // namespace amdahl::graphs
