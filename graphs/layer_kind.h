#pragma once
// The operator table: every layer kind is registered once with its parameters, shape
// inference, weights, and forward and backward lowering rules: one concept, one place. Rules
// write their FLOP and byte formulas in one place; importers (ONNX) map onto these kinds.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graphs/layer.h"
#include "graphs/op_graph.h"
#include "graphs/tensor.h"

namespace amdahl::graphs {

class ForwardContext;
class BackwardContext;

struct Weight {
  std::string name;  // "weight", "bias"
  std::int64_t elements = 0;
  // Its dimensions where another layer may share it (`tied_to`: an embedding's table, a linear
  // layer's [out, in] matrix); empty otherwise.
  Shape shape = {};
};

// A weight a layer takes from another layer (`tied_to`: GPT-2's LM head and its token
// embedding): the owner's name, the weight's name there, and the shape this layer needs.
struct SharedWeight {
  std::string owner;
  std::string weight;
  Shape shape;
};

// The ops a layer's rules emit, for the kinds whose count grows with the sizes (an RNN unrolled
// over its time steps): `forward` exactly, `backward` exactly for the input gradients asked
// for. Lowering checks them against the op limit (lower.h max_ops) before the rules make a
// single op, and re-evaluation (relower) compares them with the plan before re-running the
// rules. Doubles: steps x layers x directions may pass 2^63.
struct OpCount {
  double forward = 0;
  double backward = 0;
};

struct LayerKind {
  std::string name;                          // "conv2d"
  std::string summary;                       // one line for `describe ops`
  OpClass op_class = OpClass::kElementwise;  // the class of its main forward op
  std::vector<ParamDecl> params;
  int min_inputs = 1;
  int max_inputs = 1;          // -1: any number
  bool is_loss = false;        // dropped in inference mode; backward starts here
  bool differentiable = true;  // false: no gradient flows through (e.g. argmax, shape ops)

  // Output tensors from input tensors. Throws UserError (use layer.error_prefix()) on a
  // shape mismatch.
  std::function<std::vector<TensorInfo>(const Layer&, const std::vector<TensorInfo>&)> infer;
  // Trainable tensors; empty for layers without weights.
  std::function<std::vector<Weight>(const Layer&, const std::vector<TensorInfo>&)> weights;
  // Emits the forward ops (none for views such as flatten).
  std::function<void(ForwardContext&)> forward;
  // Emits the backward ops: data gradients for inputs that need them, weight gradients.
  std::function<void(BackwardContext&)> backward;
  // Its op count (OpCount) at these inputs, given which inputs need a gradient; empty for the
  // kinds that emit a few ops whatever the sizes.
  std::function<OpCount(const Layer&, const std::vector<TensorInfo>&, const std::vector<bool>&)>
      op_count;
  // The layer whose weight this one uses instead of a weight of its own (`tied_to`) and the
  // weight it needs there: its name and shape at these inputs; nullopt when it owns its
  // weights. Lowering resolves the name and checks the shape (lower.h).
  std::function<std::optional<SharedWeight>(const Layer&, const std::vector<TensorInfo>&)>
      shared_weight;
};

class LayerRegistry {
 public:
  // Throws InternalError on a duplicate name.
  void add(LayerKind kind);
  // Throws UserError naming the unknown kind and listing the known ones.
  const LayerKind& get(const std::string& name) const;
  const LayerKind* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::map<std::string, LayerKind>& kinds() const { return kinds_; }

 private:
  std::map<std::string, LayerKind> kinds_;
};

// The registry with every built-in kind, built on first use by explicit registration.
const LayerRegistry& layer_registry();

// Context handed to forward rules. Ops emitted are chained: the first depends on the
// producers of the layer's inputs, each later one on the one before.
class ForwardContext {
 public:
  ForwardContext(const Layer& layer, const std::vector<TensorInfo>& inputs,
                 const std::vector<TensorInfo>& outputs, Precision precision, bool training,
                 bool conv_bias_kernel = false)
      : layer(layer),
        inputs(inputs),
        outputs(outputs),
        precision(precision),
        training(training),
        conv_bias_kernel(conv_bias_kernel) {}

  const Layer& layer;
  const std::vector<TensorInfo>& inputs;
  const std::vector<TensorInfo>& outputs;
  Precision precision;
  bool training;
  bool conv_bias_kernel;  // LoweringOptions::conv_bias_kernel

  const TensorInfo& in(std::size_t i = 0) const { return inputs.at(i); }
  const TensorInfo& out(std::size_t i = 0) const { return outputs.at(i); }
  // An operator of this layer with names, shapes, precision and dtype filled in.
  Operator make(const std::string& suffix, OpClass op_class, double flops, double bytes_read,
                double bytes_written) const;
  void emit(Operator op) { emitted_.push_back(std::move(op)); }
  std::vector<Operator>& emitted() { return emitted_; }
  // Numbers only (re-evaluating a lowered graph, lower.h relower): make() leaves the names
  // empty.
  void skip_names() { named_ = false; }
  // Operators whose shape storage make() reuses, taking one per op (relower: the ops it
  // replaced). Nothing else of them carries over.
  void reuse_shapes_of(std::vector<Operator>* spare) { spare_ = spare; }

 private:
  std::vector<Operator> emitted_;
  bool named_ = true;
  std::vector<Operator>* spare_ = nullptr;
};

// Context handed to backward rules. emit() ops depend on the gradient of the layer's
// outputs and on its forward ops (saved activations); emit_after() ops also on the op
// emitted just before. Mark what each op produces with its grad_of_input / grad_of_weight.
class BackwardContext {
 public:
  BackwardContext(const Layer& layer, const std::vector<TensorInfo>& inputs,
                  const std::vector<TensorInfo>& outputs, std::vector<bool> needs_input_grad,
                  Precision precision)
      : layer(layer),
        inputs(inputs),
        outputs(outputs),
        precision(precision),
        needs_input_grad_(std::move(needs_input_grad)) {}

  const Layer& layer;
  const std::vector<TensorInfo>& inputs;
  const std::vector<TensorInfo>& outputs;
  Precision precision;

  const TensorInfo& in(std::size_t i = 0) const { return inputs.at(i); }
  const TensorInfo& out(std::size_t i = 0) const { return outputs.at(i); }
  bool needs_input_grad(std::size_t i = 0) const {
    return i < needs_input_grad_.size() && needs_input_grad_[i];
  }
  Operator make(const std::string& suffix, OpClass op_class, Phase phase, double flops,
                double bytes_read, double bytes_written) const;

  struct Emitted {
    Operator op;
    bool chained = false;
    int grad_of_input = -1;                 // this op produces d(loss)/d(input i)
    int grad_of_weight = -1;                // this op produces d(loss)/d(weight w)
    std::vector<int> also_grad_of_weights;  // further weights this op's gradient covers
  };
  void emit(Operator op, int grad_of_input = -1, int grad_of_weight = -1) {
    emitted_.push_back({std::move(op), false, grad_of_input, grad_of_weight});
  }
  void emit_after(Operator op, int grad_of_input = -1, int grad_of_weight = -1) {
    emitted_.push_back({std::move(op), true, grad_of_input, grad_of_weight});
  }
  // The op emitted last also produces d(loss)/d(weight w) (one kernel for gamma and beta).
  void mark_weight(int w) { emitted_.back().also_grad_of_weights.push_back(w); }
  // The gradient of the output flows to input i unchanged (add, views): no op.
  void pass_input_grad(std::size_t i) { passed_.push_back(i); }

  std::vector<Emitted>& emitted() { return emitted_; }
  const std::vector<std::size_t>& passed() const { return passed_; }
  // Numbers only (lower.h relower): make() leaves the names empty.
  void skip_names() { named_ = false; }
  // As ForwardContext::reuse_shapes_of.
  void reuse_shapes_of(std::vector<Operator>* spare) { spare_ = spare; }

 private:
  bool named_ = true;
  std::vector<Operator>* spare_ = nullptr;
  std::vector<bool> needs_input_grad_;
  std::vector<Emitted> emitted_;
  std::vector<std::size_t> passed_;
};

// Registration of each op family (graphs/ops/*.cpp); called by layer_registry().
void register_unary_ops(LayerRegistry& r);
void register_binary_ops(LayerRegistry& r);
void register_reduce_ops(LayerRegistry& r);
void register_movement_ops(LayerRegistry& r);
void register_conv_ops(LayerRegistry& r);
void register_linear_ops(LayerRegistry& r);
void register_activation_ops(LayerRegistry& r);
void register_pool_ops(LayerRegistry& r);
void register_norm_ops(LayerRegistry& r);
void register_loss_ops(LayerRegistry& r);
void register_shape_ops(LayerRegistry& r);
void register_softmax_ops(LayerRegistry& r);
void register_embedding_ops(LayerRegistry& r);
void register_recurrent_ops(LayerRegistry& r);
void register_attention_ops(LayerRegistry& r);
void register_attention_decoder_ops(LayerRegistry& r);

}  // namespace amdahl::graphs
