#include "graphs/layer_kind.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::graphs {

void LayerRegistry::add(LayerKind kind) {
  const std::string name = kind.name;
  if (!kinds_.emplace(name, std::move(kind)).second)
    throw InternalError(fmt::format("layer kind '{}' registered twice", name));
}

const LayerKind* LayerRegistry::find(const std::string& name) const {
  const auto it = kinds_.find(name);
  return it == kinds_.end() ? nullptr : &it->second;
}

const LayerKind& LayerRegistry::get(const std::string& name) const {
  if (const LayerKind* k = find(name)) return *k;
  throw UserError(fmt::format("unknown layer kind '{}'; {}", name, suggestion(name, names())));
}

std::vector<std::string> LayerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, kind] : kinds_) out.push_back(name);
  return out;
}

const LayerRegistry& layer_registry() {
  static const LayerRegistry kRegistry = [] {
    LayerRegistry r;
    register_unary_ops(r);
    register_binary_ops(r);
    register_reduce_ops(r);
    register_movement_ops(r);
    register_conv_ops(r);
    register_linear_ops(r);
    register_activation_ops(r);
    register_pool_ops(r);
    register_norm_ops(r);
    register_loss_ops(r);
    register_shape_ops(r);
    register_softmax_ops(r);
    register_embedding_ops(r);
    register_recurrent_ops(r);
    register_attention_ops(r);
    register_attention_decoder_ops(r);
    return r;
  }();
  return kRegistry;
}

namespace {
DType storage_of(const std::vector<TensorInfo>& outputs) {
  return outputs.empty() ? DType::kF32 : outputs.front().dtype;
}
// A default operator with `inputs`' elements and the output shape of `output`'s first tensor
// (empty when none), in storage taken from a spare operator when there is one.
Operator shaped_op(std::vector<Operator>* spare, const std::vector<TensorInfo>& inputs,
                   const std::vector<TensorInfo>& output) {
  Operator op;
  if (spare && !spare->empty()) {
    op.output_shape = std::move(spare->back().output_shape);
    spare->pop_back();
  }
  for (const TensorInfo& t : inputs) op.input_elements += static_cast<double>(t.elements());
  if (output.empty())
    op.output_shape.clear();
  else
    op.output_shape.assign(output.front().shape.begin(), output.front().shape.end());
  return op;
}

struct OpKind {
  OpClass op_class;
  Phase phase;
  Precision precision;
  DType dtype;
};
struct OpWork {
  double flops, bytes_read, bytes_written;
};
// An op of `layer`: shaped as shaped_op, named "<layer>.<suffix>" when `suffix` is given (a
// re-evaluated sweep point skips names), with its class, phase, precision and work.
Operator layer_op(std::vector<Operator>* spare, const std::vector<TensorInfo>& inputs,
                  const std::vector<TensorInfo>& output, const Layer& layer,
                  const std::string* suffix, const OpKind& k, const OpWork& w) {
  Operator op = shaped_op(spare, inputs, output);
  if (suffix) {
    op.name = layer.name + "." + *suffix;
    op.layer = layer.name;
    op.kind = layer.kind;
  }
  op.op_class = k.op_class;
  op.phase = k.phase;
  op.precision = k.precision;
  op.dtype = k.dtype;
  op.flops = w.flops;
  op.bytes_read = w.bytes_read;
  op.bytes_written = w.bytes_written;
  return op;
}
}  // namespace

Operator ForwardContext::make(const std::string& suffix, OpClass op_class, double flops,
                              double bytes_read, double bytes_written) const {
  return layer_op(spare_, inputs, outputs, layer, named_ ? &suffix : nullptr,
                  {op_class, Phase::kForward, precision, storage_of(outputs)},
                  {flops, bytes_read, bytes_written});
}

Operator BackwardContext::make(const std::string& suffix, OpClass op_class, Phase phase,
                               double flops, double bytes_read, double bytes_written) const {
  return layer_op(spare_, outputs, inputs, layer, named_ ? &suffix : nullptr,
                  {op_class, phase, precision, storage_of(outputs)},
                  {flops, bytes_read, bytes_written});
}

}  // namespace amdahl::graphs
