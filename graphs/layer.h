#pragma once
// A bound layer: concrete parameters (every size expression evaluated), the names of its
// input tensors, and where it was declared. Produced by bind() from a network file or
// directly by an importer (ONNX).

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "util/diagnostics.h"

namespace amdahl::graphs {

using ParamValue = std::variant<std::int64_t, double, bool, std::string, std::vector<std::int64_t>>;

enum class ParamType {
  kInt,     // one integer (size expressions allowed)
  kInts,    // an integer or a list of integers (kernel: 3 or [3, 5])
  kFloat,   // a number
  kBool,    // true or false
  kString,  // free text
  kChoice,  // one of `choices`
};

struct ParamDecl {
  std::string name;
  ParamType type = ParamType::kInt;
  bool required = false;
  std::string default_value;  // text, applied when absent; empty = optional without default
  std::string description;
  std::vector<std::string> choices;
};

struct Layer {
  std::string name;
  std::string kind;
  std::vector<std::string> inputs;  // tensor names: network inputs or "layer" / "layer:i"
  std::map<std::string, ParamValue> params;
  SourceLocation where;

  bool has(const std::string& key) const { return params.count(key) != 0; }
  // Typed access; a missing or mistyped value is an InternalError (bind() checked them).
  std::int64_t get_int(const std::string& key) const;
  // An integer or list, broadcast to `n` values (kernel: 3 -> [3, 3]); a list of another
  // length is a UserError naming the layer.
  std::vector<std::int64_t> get_ints(const std::string& key, std::size_t n) const;
  std::vector<std::int64_t> get_int_list(const std::string& key) const;
  double get_float(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;

  // "file:line:col: layer 'conv1' (conv2d): what" for errors about this layer.
  std::string error_prefix() const;
};

// Whether `layer` writes its output over its first input: its kind declares `inplace`
// (activations, add) and the layer sets it.
inline bool writes_in_place(const Layer& layer) {
  return layer.has("inplace") && layer.get_bool("inplace");
}

}  // namespace amdahl::graphs
