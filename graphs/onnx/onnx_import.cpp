#include "graphs/onnx/onnx_import.h"

#include <fmt/format.h>
#include <onnx/defs/schema.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "graphs/onnx/import_context.h"
#include "graphs/onnx/tensor_data.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/suggest.h"

namespace amdahl::graphs::onnx {
namespace {
namespace fs = std::filesystem;

::onnx::ModelProto read_model(const std::string& path) {
  check_input_file(path, kMaxModelInputBytes, "the ONNX model");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("{}: cannot open the file", path));
  ::onnx::ModelProto model;
  const bool parsed = model.ParseFromIstream(&in);
  if (!parsed || !model.has_graph() || model.opset_import_size() == 0 ||
      model.graph().node_size() == 0)
    throw UserError(fmt::format(
        "{}: not an ONNX model (the file does not parse as an onnx.ModelProto with a graph and "
        "an opset; is it truncated?)",
        path));
  return model;
}

// The node's input and output counts against the ONNX specification's schema of its op at
// the model's opset (onnx::OpSchemaRegistry; optional inputs left out by an empty name still
// count), so that no rule reads an input or output the node does not have. An op the
// registry does not know is left to the rule table's "unsupported op" error.
void check_arity(const ImportContext& ctx, const ::onnx::NodeProto& node) {
  const ::onnx::OpSchema* schema =
      ::onnx::OpSchemaRegistry::Schema(node.op_type(), ctx.opset(), "");
  if (!schema) return;
  const auto count = [](int min, int max) {
    if (min == max) return fmt::format("{}", min);
    if (max == std::numeric_limits<int>::max()) return fmt::format("at least {}", min);
    return fmt::format("{} to {}", min, max);
  };
  if (node.input_size() < schema->min_input() || node.input_size() > schema->max_input())
    ctx.fail(node,
             fmt::format("has {} inputs; {} (opset {}) takes {}", node.input_size(), node.op_type(),
                         ctx.opset(), count(schema->min_input(), schema->max_input())));
  if (node.output_size() < schema->min_output() || node.output_size() > schema->max_output())
    ctx.fail(node, fmt::format("has {} outputs; {} (opset {}) gives {}", node.output_size(),
                               node.op_type(), ctx.opset(),
                               count(schema->min_output(), schema->max_output())));
}

int default_opset(const std::string& path, const ::onnx::ModelProto& model) {
  int opset = -1;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  if (opset < kMinOpset || opset > kMaxOpset)
    throw UserError(fmt::format("{}: opset {} is outside the supported range {} to {}{}", path,
                                opset, kMinOpset, kMaxOpset,
                                opset < 0 ? " (the model imports no default-domain opset)" : ""));
  return opset;
}

// Symbolic dim names of the graph inputs (those without an initializer), in order.
std::vector<std::string> symbolic_dims(const ::onnx::GraphProto& g,
                                       const std::set<std::string>& initializers) {
  std::vector<std::string> names;
  for (const auto& in : g.input()) {
    if (initializers.count(in.name())) continue;
    for (const auto& dim : in.type().tensor_type().shape().dim())
      if (dim.has_dim_param() &&
          std::find(names.begin(), names.end(), dim.dim_param()) == names.end())
        names.push_back(dim.dim_param());
  }
  return names;
}

std::string binding_option(const std::string& name) {
  return name == "batch" ? "--batch N (or --set batch=N)" : fmt::format("--set {}=VALUE", name);
}

// The sizes bound to the model's symbolic dims, checked both ways.
Bindings bind_dims(const std::string& path, const ::onnx::GraphProto& g,
                   const std::set<std::string>& initializers, const Bindings& sizes,
                   std::string& batch_dim) {
  const std::vector<std::string> dims = symbolic_dims(g, initializers);
  Bindings bound;
  batch_dim = "batch";
  if (std::find(dims.begin(), dims.end(), "batch") == dims.end()) {
    batch_dim.clear();
    for (const auto& in : g.input()) {
      if (initializers.count(in.name())) continue;
      const auto& shape = in.type().tensor_type().shape();
      if (shape.dim_size() > 0 && shape.dim(0).has_dim_param())
        batch_dim = shape.dim(0).dim_param();
      break;
    }
  }
  for (const auto& [name, value] : sizes) {
    const bool known = std::find(dims.begin(), dims.end(), name) != dims.end();
    if (name == "batch" && !batch_dim.empty()) {
      bound[batch_dim] = value;
    } else if (!known) {
      throw UserError(
          fmt::format("{}: the model has no symbolic size '{}'; {}", path, name,
                      dims.empty() ? "all its input dims are fixed" : suggestion(name, dims)));
    } else {
      bound[name] = value;
    }
  }
  return bound;
}

// Where a graph input feeds a node, whether that input slot takes a weight: the slots whose
// values the mapping rules read only for their geometry or bind as learned parameters (Conv
// W and B, Gemm B and C, MatMul's rank-2 second operand, normalization parameters, an
// embedding table, RNN W, R and B), and the bias Add after a MatMul.
bool weight_slot(const ::onnx::NodeProto& node, int slot, const Shape& shape,
                 const std::map<std::string, const ::onnx::NodeProto*>& producer) {
  const std::string& op = node.op_type();
  if (op == "Conv" || op == "ConvTranspose" || op == "Gemm") return slot == 1 || slot == 2;
  if (op == "MatMul") return slot == 1 && shape.size() == 2;
  if (op == "BatchNormalization") return slot >= 1 && slot <= 4;
  if (op == "InstanceNormalization" || op == "LayerNormalization") return slot == 1 || slot == 2;
  if (op == "Gather") return slot == 0 && shape.size() == 2;
  if (op == "LSTM" || op == "GRU" || op == "RNN") return slot >= 1 && slot <= 3;
  if (op == "Add" && node.input_size() == 2 && shape.size() == 1) {
    const auto it = producer.find(node.input(1 - slot));
    return it != producer.end() && it->second->op_type() == "MatMul";
  }
  return false;
}

// Graph inputs (not initializers) of a static float shape that feed only weight slots: the
// weights of a model exported without its parameters (export_params=False) or with them
// bound at run time. They are weights, not step inputs: constants here, counted as
// parameters by the layers they feed and never copied to the device per step.
std::vector<const ::onnx::ValueInfoProto*> weight_inputs(
    const ::onnx::GraphProto& g, const std::set<std::string>& initializers) {
  std::map<std::string, const ::onnx::NodeProto*> producer;
  std::map<std::string, std::vector<std::pair<const ::onnx::NodeProto*, int>>> uses;
  for (const auto& node : g.node()) {
    for (const auto& out : node.output()) producer[out] = &node;
    for (int i = 0; i < node.input_size(); ++i) uses[node.input(i)].push_back({&node, i});
  }
  std::vector<const ::onnx::ValueInfoProto*> out;
  for (const auto& in : g.input()) {
    if (initializers.count(in.name()) || !uses.count(in.name())) continue;
    const auto& type = in.type().tensor_type();
    const int t = type.elem_type();
    if (!type.has_shape() ||
        (t != ::onnx::TensorProto::FLOAT && t != ::onnx::TensorProto::FLOAT16 &&
         t != ::onnx::TensorProto::BFLOAT16 && t != ::onnx::TensorProto::DOUBLE))
      continue;
    Shape shape;
    bool fixed = true;
    for (const auto& dim : type.shape().dim()) {
      fixed = fixed && dim.has_dim_value() && dim.dim_value() >= 0;
      shape.push_back(dim.dim_value());
    }
    if (!fixed) continue;
    bool only_weights = true;
    for (const auto& [node, slot] : uses.at(in.name()))
      only_weights = only_weights && weight_slot(*node, slot, shape, producer);
    if (only_weights) out.push_back(&in);
  }
  return out;
}

Value graph_input(const std::string& path, const ::onnx::ValueInfoProto& in, const Bindings& dims,
                  const std::string& batch_dim) {
  const auto& type = in.type().tensor_type();
  Value v;
  v.info.dtype = onnx_dtype(type.elem_type(), fmt::format("{}: graph input '{}'", path, in.name()));
  if (!type.has_shape())
    throw UserError(fmt::format("{}: graph input '{}' has no shape", path, in.name()));
  for (int i = 0; i < type.shape().dim_size(); ++i) {
    const auto& dim = type.shape().dim(i);
    // A step over an empty tensor is no step: every dim of an input is at least 1, given in
    // the model or bound on the command line (a "batch 0" would predict a step of nothing).
    if (dim.has_dim_value()) {
      if (dim.dim_value() <= 0)
        throw UserError(
            fmt::format("{}: graph input '{}' dim {} is {}; a size of an input is at "
                        "least 1",
                        path, excerpt(in.name()), i, dim.dim_value()));
      v.info.shape.push_back(dim.dim_value());
    } else if (dim.has_dim_param()) {
      const auto it = dims.find(dim.dim_param());
      if (it == dims.end())
        throw UserError(fmt::format(
            "{}: graph input '{}' dim {} is the symbolic size '{}', which is unbound; bind it "
            "with {}",
            path, excerpt(in.name()), i, excerpt(dim.dim_param()),
            dim.dim_param() == batch_dim ? std::string("--batch N")
                                         : binding_option(dim.dim_param())));
      if (it->second <= 0)
        throw UserError(fmt::format(
            "{}: graph input '{}' dim {} is the symbolic size '{}', bound to {}; a size of an "
            "input is at least 1",
            path, excerpt(in.name()), i, excerpt(dim.dim_param()), it->second));
      v.info.shape.push_back(it->second);
    } else {
      throw UserError(
          fmt::format("{}: graph input '{}' dim {} has neither a size nor a name (dim_param)", path,
                      in.name(), i));
    }
  }
  try {
    v.info.elements();
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: graph input '{}': {}", path, in.name(), e.what()));
  }
  v.tensor = in.name();
  return v;
}

std::string supported_list() {
  std::string out;
  for (const auto& name : supported_onnx_ops()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::vector<std::string> supported_onnx_ops() {
  std::vector<std::string> names;
  for (const auto& [name, rule] : onnx_rules()) names.push_back(name);
  return names;
}

const OnnxRuleTable& onnx_rules() {
  static const OnnxRuleTable kRules = [] {
    OnnxRuleTable t;
    add_nn_rules(t);
    add_elementwise_rules(t);
    add_movement_rules(t);
    add_constant_rules(t);
    add_recurrent_rules(t);
    add_reduce_rules(t);
    add_einsum_rules(t);
    return t;
  }();
  return kRules;
}

BoundNetwork import_onnx(const std::string& path, const Bindings& sizes) {
  const ::onnx::ModelProto model = read_model(path);
  const int opset = default_opset(path, model);
  const ::onnx::GraphProto& g = model.graph();
  ImportContext ctx(path, opset);

  std::set<std::string> initializers;
  for (const auto& t : g.initializer()) {
    Value v = constant_value(t, path, path);
    v.trainable = v.info.dtype == DType::kF32 || v.info.dtype == DType::kF16 ||
                  v.info.dtype == DType::kBf16 || v.info.dtype == DType::kF64;
    ctx.define(t.name(), std::move(v));
    initializers.insert(t.name());
  }
  const std::vector<const ::onnx::ValueInfoProto*> weight_ins = weight_inputs(g, initializers);
  for (const ::onnx::ValueInfoProto* in : weight_ins) initializers.insert(in->name());
  std::string batch_dim;
  const Bindings dims = bind_dims(path, g, initializers, sizes, batch_dim);

  BoundNetwork net;
  net.name = g.name().empty() ? fs::path(path).stem().string() : g.name();
  if (net.name == "torch_jit" || net.name == "main_graph" || net.name == "torch-jit-export")
    net.name = fs::path(path).stem().string();
  net.sizes = dims;
  if (!batch_dim.empty() && dims.count(batch_dim)) net.sizes["batch"] = dims.at(batch_dim);

  std::vector<std::string> weights;
  std::int64_t weight_elements = 0;
  for (const ::onnx::ValueInfoProto* in : weight_ins) {
    Value v = graph_input(path, *in, dims, batch_dim);
    v.tensor.clear();
    v.trainable = true;
    weights.push_back(in->name());
    if (__builtin_add_overflow(weight_elements, v.info.elements(), &weight_elements))
      throw UserError(fmt::format("{}: the weight inputs hold more than 2^63 elements", path));
    ctx.define(in->name(), std::move(v));
  }
  if (!weights.empty()) {
    Assumption a{AssumptionKind::kOnnxWeightInputs,
                 {},
                 {static_cast<double>(weights.size()), static_cast<double>(weight_elements)}};
    for (std::size_t i = 0; i < weights.size() && i < 4; ++i)
      a.names.push_back(excerpt(weights[i]));
    net.assumptions.push_back(std::move(a));
  }

  std::vector<NamedTensor> graph_inputs;
  for (const auto& in : g.input()) {
    if (initializers.count(in.name())) continue;
    Value v = graph_input(path, in, dims, batch_dim);
    graph_inputs.push_back({in.name(), v.info});
    ctx.input_tensors[in.name()] = in.name();
    ctx.define(in.name(), std::move(v));
  }

  for (const auto& node : g.node())
    for (const auto& name : node.input()) ctx.consumers[name].push_back(&node);
  const OnnxRuleTable& rules = onnx_rules();
  for (const auto& node : g.node()) {
    if (ctx.absorbed.count(&node)) continue;
    ctx.set_current(&node);
    // The shape every rule relies on: an output, input 0 (but for Constant), and outputs
    // defined once (ONNX graphs are in SSA form; a redefinition would alias a value a rule
    // still reads).
    if (node.output_size() == 0) ctx.fail(node, "has no outputs");
    if (node.op_type() != "Constant" && !ctx.has_input(node, 0))
      ctx.fail(node, "input 0 is missing");
    for (const auto& out : node.output())
      if (!out.empty() && ctx.defined(out))
        ctx.fail(node, fmt::format("output '{}' is already defined by an earlier node, an "
                                   "initializer or a graph input",
                                   excerpt(out)));
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      ctx.fail(node, fmt::format("op domain '{}' is not supported (only the default ONNX domain); "
                                 "supported ops: {}",
                                 node.domain(), supported_list()));
    const auto it = rules.find(node.op_type());
    if (it == rules.end())
      ctx.fail(node, fmt::format("unsupported op '{}'; supported ops: {}", node.op_type(),
                                 supported_list()));
    check_arity(ctx, node);
    it->second(ctx, node);
  }

  for (const auto& in : graph_inputs)
    if (ctx.used_inputs.count(in.name)) net.inputs.push_back(in);
  net.layers = std::move(ctx.layers());

  // The training loss over the first graph output, as the zoo networks end.
  if (g.output_size() > 0 && ctx.defined(g.output(0).name())) {
    ::onnx::NodeProto probe;  // looks the output up through the context's value table
    probe.set_name("loss");
    probe.add_input(g.output(0).name());
    const Value& logits = ctx.input(probe, 0);
    if (!logits.is_constant() && !logits.info.shape.empty()) {
      Shape labels(logits.info.shape.begin(), logits.info.shape.end() - 1);
      if (labels.empty()) labels.push_back(1);
      net.inputs.push_back({"labels", TensorInfo{labels, DType::kI64}});
      Layer layer;
      layer.name = "loss";
      layer.kind = "softmax_cross_entropy";
      layer.inputs = {logits.tensor, "labels"};
      layer.where = SourceLocation{path, 0, 0};
      net.layers.push_back(std::move(layer));
    }
  }
  return net;
}

}  // namespace amdahl::graphs::onnx
