#pragma once
// The state of one ONNX import: every ONNX value (a runtime tensor produced by a layer or a
// graph input, or a constant whose elements are known when small), the layers emitted so far,
// and helpers the per-op mapping rules (map_*.cpp) share: attributes, constant inputs,
// emitting a layer of a registered kind (its shape rule infers the outputs), errors.

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graphs/network.h"

namespace amdahl::graphs::onnx {

struct Value {
  TensorInfo info;
  std::string tensor;                       // the layer-graph tensor; empty for a constant
  std::optional<std::vector<double>> data;  // a constant's elements, row-major, when known
  bool trainable = false;                   // a constant derived from a float initializer
  bool is_constant() const { return tensor.empty(); }
};

using Params = ParamMap;

class ImportContext {
 public:
  ImportContext(std::string file, int opset) : file_(std::move(file)), opset_(opset) {}

  const std::string& file() const { return file_; }
  int opset() const { return opset_; }

  // Errors about a node: "FILE: node 'NAME' (OP): what".
  [[noreturn]] void fail(const ::onnx::NodeProto& node, const std::string& what) const;

  void define(const std::string& name, Value v);
  bool defined(const std::string& name) const { return values_.count(name) != 0; }
  // Input i of the node; throws UserError when it is absent or was never produced.
  const Value& input(const ::onnx::NodeProto& node, int i) const;
  bool has_input(const ::onnx::NodeProto& node, int i) const;
  // A constant input's elements as integers (shapes, axes, pads); UserError naming `what`
  // when the input depends on runtime data.
  IntList ints(const ::onnx::NodeProto& node, int i, const char* what) const;
  std::vector<double> numbers(const ::onnx::NodeProto& node, int i, const char* what) const;
  // True when every present input is a constant with known elements.
  bool all_known(const ::onnx::NodeProto& node) const;

  // Attributes, with the default when absent.
  bool has_attr(const ::onnx::NodeProto& node, const char* name) const;
  std::int64_t attr_int(const ::onnx::NodeProto& node, const char* name, std::int64_t def) const;
  double attr_float(const ::onnx::NodeProto& node, const char* name, double def) const;
  IntList attr_ints(const ::onnx::NodeProto& node, const char* name, IntList def = {}) const;
  std::string attr_string(const ::onnx::NodeProto& node, const char* name,
                          const std::string& def) const;
  const ::onnx::AttributeProto* attr(const ::onnx::NodeProto& node, const char* name) const;

  // Emits a layer of `kind` for `node` reading the values `inputs` and defines `outputs`
  // (empty names skipped) from the kind's shape rule. When every input is a constant, no
  // layer is emitted: the outputs are constants of the inferred shapes (weights reshaped or
  // transposed by the exporter). `suffix` names the layer when one node maps to several.
  std::vector<Value> emit(const ::onnx::NodeProto& node, const std::string& kind, Params params,
                          const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& suffix = {});
  // A fresh value name for an intermediate of a node that maps to several layers.
  std::string temp(const ::onnx::NodeProto& node, const std::string& what);

  // Consumers per value name, and nodes a mapping rule absorbed into an earlier layer.
  std::map<std::string, std::vector<const ::onnx::NodeProto*>> consumers;
  std::set<const ::onnx::NodeProto*> absorbed;
  // Names of graph inputs read by a layer (the network's inputs).
  std::set<std::string> used_inputs;
  std::map<std::string, std::string> input_tensors;  // layer-graph tensor -> graph input

  std::vector<Layer>& layers() { return layers_; }

 private:
  std::string layer_name(const ::onnx::NodeProto& node, const std::string& suffix);

  std::string file_;
  int opset_;
  std::map<std::string, Value> values_;
  std::vector<Layer> layers_;
  std::set<std::string> layer_names_;
  int temps_ = 0;
};

// A mapping rule: reads the node's inputs and attributes, emits layers or defines constants.
using OnnxRule = std::function<void(ImportContext&, const ::onnx::NodeProto&)>;
using OnnxRuleTable = std::map<std::string, OnnxRule>;

// One family per file (map_*.cpp).
void add_nn_rules(OnnxRuleTable& t);           // Conv, Gemm, MatMul, pooling, normalization
void add_elementwise_rules(OnnxRuleTable& t);  // unary and binary elementwise, activations
void add_movement_rules(OnnxRuleTable& t);     // Reshape, Transpose, Slice, Gather, Concat...
void add_constant_rules(OnnxRuleTable& t);     // Constant, Shape, ConstantOfShape, Range...
void add_recurrent_rules(OnnxRuleTable& t);    // LSTM, GRU, RNN
void add_reduce_rules(OnnxRuleTable& t);       // ReduceMean, ReduceSum, ..., Einsum

const OnnxRuleTable& onnx_rules();

// Element type of an ONNX TensorProto data type; UserError for an unsupported one.
DType onnx_dtype(int data_type, const std::string& where);
int onnx_data_type(DType t);

// Row-major strides of a shape, and the numpy-broadcast evaluation of `f` over constants.
IntList strides_of(const Shape& s);
std::vector<double> broadcast_apply(const std::vector<const Value*>& args, const Shape& out,
                                    const std::function<double(const std::vector<double>&)>& f);

}  // namespace amdahl::graphs::onnx
