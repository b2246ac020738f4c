#pragma once
// A bound layer: concrete parameters (every size expression evaluated), the names of its
// input tensors, and where it was declared. Produced by bind() from a network file or
// directly by an importer (ONNX).

#include <boost/container/flat_map.hpp>
#include <boost/container/small_vector.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "util/diagnostics.h"

namespace amdahl::graphs {

// An integer parameter or list (kernel sizes, strides, shapes): up to four without the heap.
using IntList = boost::container::small_vector<std::int64_t, 4>;

using ParamValue = std::variant<std::int64_t, double, bool, std::string, IntList>;

enum class ParamType {
  kInt,     // one integer (size expressions allowed)
  kInts,    // an integer or a list of integers (kernel: 3 or [3, 5])
  kFloat,   // a number
  kBool,    // true or false
  kString,  // free text
  kChoice,  // one of `choices`
};

// A layer's parameters by name, in name order: a sorted vector, one allocation per layer.
using ParamMap = boost::container::flat_map<std::string, ParamValue, std::less<>>;

struct Layer;

struct ParamDecl {
  std::string name;
  ParamType type = ParamType::kInt;
  bool required = false;
  std::string default_value;  // text, applied when absent; empty = optional without default
  std::string description;
  std::vector<std::string> choices;
  // The valid range of a number (each element of a list), checked when the layer is bound
  // (graphs/bind.cpp) at every sweep point: a stride of 0 or a probability of 2 is a located
  // error, not a division by zero or a silent wrong number.
  double min_value = -std::numeric_limits<double>::infinity();
  double max_value = std::numeric_limits<double>::infinity();

  ParamDecl& at_least(double v) {
    min_value = v;
    return *this;
  }
  ParamDecl& within(double lo, double hi) {
    min_value = lo;
    max_value = hi;
    return *this;
  }
  bool in_range(double v) const { return std::isfinite(v) && v >= min_value && v <= max_value; }
  // "must be >= 1", "must be in [0, 1]", or "must be finite".
  std::string range_rule() const;
};

// Checks every declared numeric parameter of `layer` against its range (ParamDecl); throws
// UserError "parameter 'stride': must be >= 1 (got 0)" for the first outside it. Binding checks
// as it converts; layers built otherwise (the ONNX importer) call this.
void check_param_ranges(const std::vector<ParamDecl>& decls, const Layer& layer);

struct Layer {
  std::string name;
  std::string kind;
  std::vector<std::string> inputs;  // tensor names: network inputs or "layer" / "layer:i"
  ParamMap params;
  SourceLocation where;

  bool has(std::string_view key) const { return param(key) != nullptr; }
  // The value of `key`, nullptr when absent. Rules read parameters per op and per sweep
  // point: a layer has a few, so a scan comparing lengths first beats a binary search of
  // string comparisons (and the first character before the rest: "stride", "kernel" and
  // "groups" share a length).
  const ParamValue* param(std::string_view key) const {
    for (const auto& [name, value] : params)
      if (name.size() == key.size() && (key.empty() || name[0] == key[0]) && name == key)
        return &value;
    return nullptr;
  }
  // Typed access; a missing or mistyped value is an InternalError (bind() checked them).
  std::int64_t get_int(std::string_view key) const;
  // An integer or list, broadcast to `n` values (kernel: 3 -> [3, 3]); a list of another
  // length is a UserError naming the layer.
  IntList get_ints(std::string_view key, std::size_t n) const;
  IntList get_int_list(std::string_view key) const;
  double get_float(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;

  // "file:line:col: layer 'conv1' (conv2d): what" for errors about this layer.
  std::string error_prefix() const;
};

// Whether `layer` writes its output over its first input: its kind declares `inplace`
// (activations, add) and the layer sets it.
inline bool writes_in_place(const Layer& layer) {
  return layer.has("inplace") && layer.get_bool("inplace");
}

}  // namespace amdahl::graphs
