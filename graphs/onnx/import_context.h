#pragma once
// The state of one ONNX import: every ONNX value (a runtime tensor produced by a layer or a
// graph input, or a constant whose elements are known when small), the layers emitted so far,
// and helpers the per-op mapping rules (map_*.cpp) share: attributes, constant inputs,
// emitting a layer of a registered kind (its shape rule infers the outputs), errors.

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graphs/network.h"

namespace amdahl::graphs::onnx {

// The most elements of one constant whose values the importer keeps: an initializer or
// Constant up to this size, or a tensor it folds (Range, ConstantOfShape, Expand, Concat,
// Gather, Slice, arithmetic... of known constants). Shape computations fold a few elements;
// a larger constant keeps its shape only (a weight, a mask, a table: the layers it feeds need
// no values), and a rule that needs its values (a Reshape's shape) is an error naming the
// node and the count. Sizes are counted, overflow-checked, before anything is allocated.
inline constexpr std::int64_t kMaxFoldedElements = 1 << 16;
// The most elements the folded constants of one import may hold together: a hostile model
// of a million small folds is an error, not gigabytes (shape subgraphs fold a few thousand
// elements; this is 256 folds of the largest). 2^24 doubles: 128 MiB.
inline constexpr std::int64_t kMaxFoldedTotal = std::int64_t{1} << 24;

struct Value {
  TensorInfo info;
  std::string tensor;  // the layer-graph tensor; empty for a constant
  // A constant's elements, row-major, when known (at most kMaxFoldedElements); shared, so
  // views and Identity copy no elements.
  std::shared_ptr<const std::vector<double>> data;
  bool trainable = false;  // a constant derived from a float initializer, or a weight input
  bool is_constant() const { return tensor.empty(); }
  void set_data(std::vector<double> d) {
    data = std::make_shared<const std::vector<double>>(std::move(d));
  }
};

using Params = ParamMap;

class ImportContext {
 public:
  ImportContext(std::string file, int opset) : file_(std::move(file)), opset_(opset) {}

  const std::string& file() const { return file_; }
  int opset() const { return opset_; }

  // Errors about a node: "FILE: node 'NAME' (OP): what".
  [[noreturn]] void fail(const ::onnx::NodeProto& node, const std::string& what) const;

  // The node whose rule runs (names the producer of a constant in later errors).
  void set_current(const ::onnx::NodeProto* node) { current_ = node; }
  void define(const std::string& name, Value v);
  bool defined(const std::string& name) const { return values_.count(name) != 0; }
  // Input i of the node; throws UserError when it is absent or was never produced.
  const Value& input(const ::onnx::NodeProto& node, int i) const;
  bool has_input(const ::onnx::NodeProto& node, int i) const;
  // A constant input's elements as integers (shapes, axes, pads); UserError naming `what`
  // when the input depends on runtime data, is a constant too large to have known values
  // (naming its producer and count), or holds a value that is no int64 (nan, 1e300).
  IntList ints(const ::onnx::NodeProto& node, int i, const char* what) const;
  const std::vector<double>& numbers(const ::onnx::NodeProto& node, int i, const char* what) const;
  // A constant scalar input (Range's start, Clip's min): one element, else a UserError.
  double scalar(const ::onnx::NodeProto& node, int i, const char* what) const;

  // The element count of a tensor of `shape` that `node` makes, overflow-checked: a
  // negative dim or a count past 2^63 is an error naming the node.
  std::int64_t count(const ::onnx::NodeProto& node, const Shape& shape) const;
  // Whether `node` may fold (evaluate) a constant of `shape`: its count is at most
  // kMaxFoldedElements. Counts it against kMaxFoldedTotal (an error past it). Call before
  // allocating; when false, define the result with its shape only.
  bool fold_fits(const ::onnx::NodeProto& node, const Shape& shape);
  // An index into a dim of `n` entries, ONNX style: [-n, n-1], negative from the end.
  // Out of range is "index I is outside [-n, n-1] of WHAT" naming the node.
  std::int64_t index(const ::onnx::NodeProto& node, std::int64_t i, std::int64_t n,
                     const std::string& what) const;
  // An axis of a rank-`rank` tensor: [-rank, rank-1], negative from the end.
  std::size_t axis(const ::onnx::NodeProto& node, std::int64_t a, std::size_t rank,
                   const char* what = "axis") const;
  // A list of distinct axes (Squeeze, Unsqueeze, reductions): each in range, none twice.
  std::vector<std::size_t> axes(const ::onnx::NodeProto& node, const IntList& list,
                                std::size_t rank, const char* what = "axes") const;
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
  const ::onnx::NodeProto* current_ = nullptr;
  std::int64_t folded_total_ = 0;
  std::map<std::string, Value> values_;
  std::map<std::string, std::string> producers_;  // value -> "node 'NAME' (OP)"
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
void add_reduce_rules(OnnxRuleTable& t);       // ReduceMean, ReduceSum, ...
void add_einsum_rules(OnnxRuleTable& t);       // Einsum

const OnnxRuleTable& onnx_rules();

// Element type of an ONNX TensorProto data type; UserError for an unsupported one.
DType onnx_dtype(int data_type, const std::string& where);
int onnx_data_type(DType t);

// Row-major strides of a shape, and the numpy-broadcast evaluation of `f` over constants.
IntList strides_of(const Shape& s);
std::vector<double> broadcast_apply(const std::vector<const Value*>& args, const Shape& out,
                                    const std::function<double(const std::vector<double>&)>& f);

}  // namespace amdahl::graphs::onnx
