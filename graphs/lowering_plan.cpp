#include "graphs/lowering_plan.h"

#include "graphs/ops/common.h"
#include "util/suggest.h"

namespace amdahl::graphs {

void transfer_numbers(Operator& op, const TensorInfo& t) {
  op.output_shape = t.shape;
  op.bytes_read = t.bytes();
  op.bytes_written = t.bytes();
}
void weight_cast_numbers(Operator& op, std::int64_t elements, DType half) {
  const double n = static_cast<double>(elements);
  op.input_elements = n;
  op.output_shape = {elements};
  op.bytes_read = n * dtype_bytes(DType::kF32);
  op.bytes_written = n * dtype_bytes(half);
}
void grad_sum_numbers(Operator& op, const TensorInfo& t, double k) {
  op.output_shape = t.shape;
  op.flops = (k - 1) * static_cast<double>(t.elements());
  op.bytes_read = k * t.bytes();
  op.bytes_written = t.bytes();
}
void grad_cast_numbers(Operator& op, std::int64_t n, DType from) {
  op.input_elements = static_cast<double>(n);
  op.output_shape = {n};
  op.bytes_read = static_cast<double>(n) * dtype_bytes(from);
  op.bytes_written = static_cast<double>(n) * dtype_bytes(DType::kF32);
}
void grad_accumulate_numbers(Operator& op, std::int64_t elements) {
  const double n = static_cast<double>(elements);
  op.input_elements = 2 * n;
  op.output_shape = {elements};
  op.flops = n;
  op.bytes_read = 2 * kF32Bytes * n;
  op.bytes_written = kF32Bytes * n;
}
void update_numbers(Operator& op, OptimizerKind optimizer, double elements) {
  const UpdateCost c = update_cost(optimizer);
  op.output_shape = {static_cast<std::int64_t>(elements)};
  op.flops = c.flops_per_element * elements;
  op.bytes_read = c.bytes_read_per_element * elements;
  op.bytes_written = c.bytes_written_per_element * elements;
}

void all_reduce_numbers(Operator& op, double elements) {
  op.output_shape = {static_cast<std::int64_t>(elements)};
  op.flops = 0;
  op.bytes_read = kF32Bytes * elements;
  op.bytes_written = kF32Bytes * elements;
}

std::vector<std::vector<std::size_t>> gradient_buckets(const std::vector<std::int64_t>& elements,
                                                       const DataParallel& dp) {
  std::vector<std::vector<std::size_t>> buckets;
  double filled = 0;
  const bool per_weight = dp.exchange != GradientExchange::kBucketedAllReduce;
  for (std::size_t j = elements.size(); j-- > 0;) {
    if (buckets.empty() || per_weight ||
        filled >= (buckets.size() == 1 ? dp.first_bucket_bytes : dp.bucket_cap_bytes)) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(j);
    filled += kF32Bytes * static_cast<double>(elements[j]);
  }
  return buckets;
}

std::int64_t add_parameters(const Layer& layer, std::int64_t total, std::int64_t elements) {
  return ops::checked_size(layer, "the network's parameter count", CheckedInt(total) + elements);
}

std::size_t shared_weight_index(const Layer& layer, const SharedWeight& shared, const Layer& owner,
                                const std::vector<Weight>& owner_weights) {
  for (std::size_t i = 0; i < owner_weights.size(); ++i) {
    const Weight& w = owner_weights[i];
    if (w.name != shared.weight || w.shape.empty()) continue;
    if (w.shape != shared.shape)
      throw UserError(fmt::format("{}: tied_to '{}': its {} is {}; this layer needs {}",
                                  layer.error_prefix(), excerpt(owner.name), w.name,
                                  shape_str(w.shape), shape_str(shared.shape)));
    return i;
  }
  throw UserError(fmt::format(
      "{}: tied_to '{}': layer '{}' ({}) has no {} to share (tie to an "
      "embedding or a linear layer)",
      layer.error_prefix(), excerpt(owner.name), excerpt(owner.name), owner.kind, shared.weight));
}

}  // namespace amdahl::graphs
