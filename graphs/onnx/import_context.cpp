#include "graphs/onnx/import_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "graphs/layer_kind.h"
#include "util/error.h"

namespace amdahl::graphs::onnx {
namespace {

// The kind's parameter defaults, converted by bind_sizes as for a network file.
const Params& defaults_of(const std::string& kind) {
  static std::map<std::string, Params> cache;
  auto it = cache.find(kind);
  if (it != cache.end()) return it->second;
  Network net;
  net.name = "defaults";
  LayerDecl decl;
  decl.name = "layer";
  decl.kind = kind;
  net.layers.push_back(decl);
  return cache[kind] = bind_sizes(net, {}).layers.front().params;
}

std::string node_label(const ::onnx::NodeProto& node) {
  return fmt::format("node '{}' ({})", node.name(), node.op_type());
}

}  // namespace

void ImportContext::fail(const ::onnx::NodeProto& node, const std::string& what) const {
  throw UserError(fmt::format("{}: {}: {}", file_, node_label(node), what));
}

void ImportContext::define(const std::string& name, Value v) {
  if (current_) producers_[name] = node_label(*current_);
  values_[name] = std::move(v);
}

bool ImportContext::has_input(const ::onnx::NodeProto& node, int i) const {
  return i < node.input_size() && !node.input(i).empty();
}

const Value& ImportContext::input(const ::onnx::NodeProto& node, int i) const {
  if (!has_input(node, i)) fail(node, fmt::format("input {} is missing", i));
  const auto it = values_.find(node.input(i));
  if (it == values_.end())
    fail(node, fmt::format("input '{}' is not produced by an earlier node, an initializer or a "
                           "graph input (or is an output amdahl does not model)",
                           node.input(i)));
  return it->second;
}

const std::vector<double>& ImportContext::numbers(const ::onnx::NodeProto& node, int i,
                                                  const char* what) const {
  const Value& v = input(node, i);
  if (v.is_constant() && !v.data) {
    const auto from = producers_.find(node.input(i));
    fail(node,
         fmt::format("input {} ({}) '{}' is a constant of {} elements{}, more than the {} "
                     "whose values amdahl evaluates",
                     i, what, node.input(i), v.info.elements(),
                     from == producers_.end() ? "" : " from " + from->second, kMaxFoldedElements));
  }
  if (!v.is_constant())
    fail(node, fmt::format("input {} ({}) must be a constant once the sizes are bound (it "
                           "depends on runtime data)",
                           i, what));
  return *v.data;
}

double ImportContext::scalar(const ::onnx::NodeProto& node, int i, const char* what) const {
  const std::vector<double>& v = numbers(node, i, what);
  if (v.size() != 1)
    fail(node, fmt::format("input {} ({}) must be a scalar (got {} elements)", i, what, v.size()));
  return v.front();
}

IntList ImportContext::ints(const ::onnx::NodeProto& node, int i, const char* what) const {
  // int64 data arrives as doubles: INT64_MAX (Slice's "to the end") rounds to 2^63, which
  // saturates back; a float that is no integer of that range is an error.
  constexpr double kTwo63 = 9223372036854775808.0;
  IntList out;
  for (double x : numbers(node, i, what)) {
    if (!std::isfinite(x))
      fail(node, fmt::format("input {} ({}) holds {}, not an integer", i, what, x));
    if (x >= kTwo63)
      out.push_back(std::numeric_limits<std::int64_t>::max());
    else if (x <= -kTwo63)
      out.push_back(std::numeric_limits<std::int64_t>::min());
    else
      out.push_back(static_cast<std::int64_t>(x));
  }
  return out;
}

std::int64_t ImportContext::count(const ::onnx::NodeProto& node, const Shape& shape) const {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0)
      fail(node, fmt::format("makes a tensor of shape {}: a negative dim", shape_str(shape)));
    if (__builtin_mul_overflow(n, d, &n))
      fail(node,
           fmt::format("makes a tensor of shape {}: more than 2^63 elements", shape_str(shape)));
  }
  return n;
}

bool ImportContext::fold_fits(const ::onnx::NodeProto& node, const Shape& shape) {
  const std::int64_t n = count(node, shape);
  if (n > kMaxFoldedElements) return false;
  folded_total_ += n;
  if (folded_total_ > kMaxFoldedTotal)
    fail(node, fmt::format("the model's constant folding reaches {} elements, more than the {} "
                           "amdahl evaluates for one model",
                           folded_total_, kMaxFoldedTotal));
  return true;
}

std::int64_t ImportContext::index(const ::onnx::NodeProto& node, std::int64_t i, std::int64_t n,
                                  const std::string& what) const {
  if (i < -n || i >= n)
    fail(node, fmt::format("index {} is outside [{}, {}] of {}", i, -n, n - 1, what));
  return i < 0 ? i + n : i;
}

std::size_t ImportContext::axis(const ::onnx::NodeProto& node, std::int64_t a, std::size_t rank,
                                const char* what) const {
  const auto r = static_cast<std::int64_t>(rank);
  if (a < -r || a >= r)
    fail(node,
         fmt::format("{} {} is outside [{}, {}] of a rank-{} tensor", what, a, -r, r - 1, rank));
  return static_cast<std::size_t>(a < 0 ? a + r : a);
}

std::vector<std::size_t> ImportContext::axes(const ::onnx::NodeProto& node, const IntList& list,
                                             std::size_t rank, const char* what) const {
  std::vector<std::size_t> out;
  for (const std::int64_t a : list) {
    const std::size_t k = axis(node, a, rank, what);
    if (std::find(out.begin(), out.end(), k) != out.end())
      fail(node, fmt::format("{} {} names dim {} twice", what, shape_str(list), k));
    out.push_back(k);
  }
  return out;
}

bool ImportContext::all_known(const ::onnx::NodeProto& node) const {
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty()) continue;
    const auto it = values_.find(node.input(i));
    if (it == values_.end() || !it->second.is_constant() || !it->second.data) return false;
  }
  return true;
}

const ::onnx::AttributeProto* ImportContext::attr(const ::onnx::NodeProto& node,
                                                  const char* name) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool ImportContext::has_attr(const ::onnx::NodeProto& node, const char* name) const {
  return attr(node, name) != nullptr;
}

std::int64_t ImportContext::attr_int(const ::onnx::NodeProto& node, const char* name,
                                     std::int64_t def) const {
  const auto* a = attr(node, name);
  return a ? a->i() : def;
}

double ImportContext::attr_float(const ::onnx::NodeProto& node, const char* name,
                                 double def) const {
  const auto* a = attr(node, name);
  return a ? a->f() : def;
}

IntList ImportContext::attr_ints(const ::onnx::NodeProto& node, const char* name,
                                 IntList def) const {
  const auto* a = attr(node, name);
  if (!a) return def;
  return {a->ints().begin(), a->ints().end()};
}

std::string ImportContext::attr_string(const ::onnx::NodeProto& node, const char* name,
                                       const std::string& def) const {
  const auto* a = attr(node, name);
  return a ? a->s() : def;
}

std::string ImportContext::layer_name(const ::onnx::NodeProto& node, const std::string& suffix) {
  std::string base =
      node.name().empty() ? fmt::format("{}_{}", node.op_type(), layers_.size()) : node.name();
  for (char& c : base)
    if (c == ':') c = '_';
  if (!suffix.empty()) base += "/" + suffix;
  std::string name = base;
  for (int k = 1; layer_names_.count(name); ++k) name = fmt::format("{}_{}", base, k);
  layer_names_.insert(name);
  return name;
}

std::string ImportContext::temp(const ::onnx::NodeProto& node, const std::string& what) {
  return fmt::format("{}#{}#{}", node.name(), what, temps_++);
}

std::vector<Value> ImportContext::emit(const ::onnx::NodeProto& node, const std::string& kind_name,
                                       Params params, const std::vector<std::string>& inputs,
                                       const std::vector<std::string>& outputs,
                                       const std::string& suffix) {
  const LayerKind& kind = layer_registry().get(kind_name);
  Layer layer;
  layer.kind = kind_name;
  layer.params = std::move(params);
  for (const auto& [k, v] : defaults_of(kind_name)) layer.params.emplace(k, v);
  layer.where = SourceLocation{file_, 0, 0};
  try {
    check_param_ranges(kind.params, layer);
  } catch (const UserError& e) {
    fail(node, fmt::format("{} {}", kind_name, e.what()));
  }
  std::vector<TensorInfo> infos;
  bool all_constant = true;
  bool trainable = false;
  for (const auto& name : inputs) {
    const auto it = values_.find(name);
    if (it == values_.end()) fail(node, fmt::format("input '{}' is not defined", name));
    infos.push_back(it->second.info);
    all_constant = all_constant && it->second.is_constant();
    trainable = trainable || it->second.trainable;
    layer.inputs.push_back(it->second.tensor);
  }
  for (const auto& name : inputs)
    if (!all_constant && values_.at(name).is_constant())
      fail(node, fmt::format("input '{}' is a constant, which {} takes only as a runtime tensor",
                             name, kind_name));
  const int n = static_cast<int>(inputs.size());
  if (n < kind.min_inputs || (kind.max_inputs >= 0 && n > kind.max_inputs))
    fail(node, fmt::format("maps to {} with {} runtime inputs, which takes {} to {}", kind_name, n,
                           kind.min_inputs, kind.max_inputs));
  layer.name = all_constant ? node.name() : layer_name(node, suffix);
  std::vector<TensorInfo> out_infos;
  try {
    out_infos = kind.infer(layer, infos);
  } catch (const UserError& e) {
    fail(node, fmt::format("{} (as {})", e.what(), kind_name));
  }
  std::vector<Value> out;
  for (std::size_t i = 0; i < out_infos.size(); ++i) {
    count(node, out_infos[i].shape);
    Value v;
    v.info = out_infos[i];
    if (all_constant)
      v.trainable = trainable;
    else
      v.tensor = i == 0 ? layer.name : fmt::format("{}:{}", layer.name, i);
    if (i < outputs.size() && !outputs[i].empty()) define(outputs[i], v);
    out.push_back(std::move(v));
  }
  if (!all_constant) {
    for (const auto& t : layer.inputs)
      if (const auto it = input_tensors.find(t); it != input_tensors.end())
        used_inputs.insert(it->second);
    layers_.push_back(std::move(layer));
  }
  return out;
}

DType onnx_dtype(int data_type, const std::string& where) {
  using T = ::onnx::TensorProto;
  switch (data_type) {
    case T::FLOAT:
      return DType::kF32;
    case T::FLOAT16:
      return DType::kF16;
    case T::BFLOAT16:
      return DType::kBf16;
    case T::DOUBLE:
      return DType::kF64;
    case T::INT64:
    case T::UINT64:
      return DType::kI64;
    case T::INT32:
    case T::UINT32:
    case T::INT16:
    case T::UINT16:
      return DType::kI32;
    case T::INT8:
    case T::UINT8:
      return DType::kI8;
    case T::BOOL:
      return DType::kBool;
    default:
      break;
  }
  throw UserError(fmt::format("{}: unsupported element type {} ({})", where,
                              T::DataType_Name(static_cast<T::DataType>(data_type)), data_type));
}

int onnx_data_type(DType t) {
  using T = ::onnx::TensorProto;
  switch (t) {
    case DType::kF32:
      return T::FLOAT;
    case DType::kF16:
      return T::FLOAT16;
    case DType::kBf16:
      return T::BFLOAT16;
    case DType::kF64:
      return T::DOUBLE;
    case DType::kI64:
      return T::INT64;
    case DType::kI32:
      return T::INT32;
    case DType::kI8:
      return T::INT8;
    case DType::kBool:
      return T::BOOL;
  }
  return T::FLOAT;
}

IntList strides_of(const Shape& s) {
  IntList st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

std::vector<double> broadcast_apply(const std::vector<const Value*>& args, const Shape& out,
                                    const std::function<double(const std::vector<double>&)>& f) {
  const std::int64_t n = elements(out);
  const IntList out_strides = strides_of(out);
  std::vector<double> result(static_cast<std::size_t>(n));
  std::vector<double> x(args.size());
  std::vector<IntList> arg_strides;
  arg_strides.reserve(args.size());
  for (const Value* v : args) arg_strides.push_back(strides_of(v->info.shape));
  for (std::int64_t flat = 0; flat < n; ++flat) {
    for (std::size_t a = 0; a < args.size(); ++a) {
      const Shape& s = args[a]->info.shape;
      const IntList& st = arg_strides[a];
      std::int64_t index = 0;
      for (std::size_t i = 0; i < s.size(); ++i) {
        const std::size_t o = out.size() - s.size() + i;
        const std::int64_t coord = (flat / out_strides[o]) % out[o];
        if (s[i] != 1) index += coord * st[i];
      }
      x[a] = (*args[a]->data)[static_cast<std::size_t>(index)];
    }
    result[static_cast<std::size_t>(flat)] = f(x);
  }
  return result;
}

}  // namespace amdahl::graphs::onnx
