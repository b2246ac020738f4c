#include <fmt/format.h>

#include <cstdlib>

#include "graphs/layer_kind.h"
#include "graphs/network.h"
#include "util/error.h"
#include "util/suggest.h"

namespace amdahl::graphs {
namespace {

std::string located(const SourceLocation& where, const std::string& what) {
  return fmt::format("{}: {}", where.str(), what);
}

ParamValue convert(const ParamDecl& decl, const RawParam& raw, const Bindings& sizes,
                   const std::string& layer) {
  const std::string path = fmt::format("layer '{}' parameter '{}'", layer, decl.name);
  auto integer = [&](const std::string& text) {
    try {
      return evaluate(text, sizes);
    } catch (const UserError& e) {
      throw UserError(located(raw.where, fmt::format("{}: {}", path, e.what())));
    }
  };
  if (raw.is_list && decl.type != ParamType::kInts)
    throw UserError(located(raw.where, fmt::format("{}: expected one value, got a list", path)));
  switch (decl.type) {
    case ParamType::kInt:
      return integer(raw.text);
    case ParamType::kInts: {
      if (!raw.is_list) return std::vector<std::int64_t>{integer(raw.text)};
      std::vector<std::int64_t> out;
      for (const auto& item : raw.items) out.push_back(integer(item));
      return out;
    }
    case ParamType::kFloat: {
      char* end = nullptr;
      const double v = std::strtod(raw.text.c_str(), &end);
      if (end == raw.text.c_str() || *end != '\0')
        throw UserError(
            located(raw.where, fmt::format("{}: expected a number (got '{}')", path, raw.text)));
      return v;
    }
    case ParamType::kBool:
      if (raw.text == "true" || raw.text == "false") return raw.text == "true";
      throw UserError(
          located(raw.where, fmt::format("{}: expected true or false (got '{}')", path, raw.text)));
    case ParamType::kString:
      return raw.text;
    case ParamType::kChoice:
      for (const auto& c : decl.choices)
        if (c == raw.text) return raw.text;
      throw UserError(located(raw.where, fmt::format("{}: unknown value '{}'; {}", path, raw.text,
                                                     suggestion(raw.text, decl.choices))));
  }
  throw InternalError("unhandled parameter type");
}

}  // namespace

BoundNetwork bind_sizes(const Network& network, const Bindings& overrides) {
  BoundNetwork out;
  out.name = network.name;
  out.optimizer = network.optimizer;
  std::vector<std::string> names;
  for (const auto& s : network.sizes) names.push_back(s.name);
  for (const auto& [name, value] : overrides) {
    bool known = false;
    for (const auto& s : network.sizes) known = known || s.name == name;
    if (!known)
      throw UserError(
          fmt::format("network '{}' has no size '{}'; {}", network.name, name,
                      names.empty() ? "it declares no sizes" : suggestion(name, names)));
    if (value <= 0) throw UserError(fmt::format("size {} must be positive (got {})", name, value));
  }
  for (const auto& s : network.sizes) {
    if (auto it = overrides.find(s.name); it != overrides.end()) {
      out.sizes[s.name] = it->second;
    } else if (s.has_default) {
      out.sizes[s.name] = s.default_value;
    } else {
      throw UserError(
          fmt::format("{}: size '{}' of network '{}' has no default; bind it with --set "
                      "{}=VALUE",
                      network.file, s.name, network.name, s.name));
    }
  }
  for (const auto& in : network.inputs) {
    TensorInfo t;
    t.dtype = in.dtype;
    for (const auto& dim : in.shape) {
      std::int64_t v = 0;
      try {
        v = evaluate(dim, out.sizes);
      } catch (const UserError& e) {
        throw UserError(located(in.where, fmt::format("input '{}': {}", in.name, e.what())));
      }
      if (v <= 0)
        throw UserError(
            located(in.where, fmt::format("input '{}': dim '{}' evaluates to {} (must be positive)",
                                          in.name, dim, v)));
      t.shape.push_back(v);
    }
    out.inputs.push_back({in.name, t});
  }
  const LayerRegistry& registry = layer_registry();
  for (const auto& decl : network.layers) {
    if (!decl.enabled.empty() && evaluate(decl.enabled, out.sizes) == 0) continue;
    const LayerKind& kind = registry.get(decl.kind);
    Layer layer;
    layer.name = decl.name;
    layer.kind = decl.kind;
    layer.inputs = decl.inputs;
    layer.where = decl.where;
    for (const auto& p : kind.params) {
      if (auto it = decl.params.find(p.name); it != decl.params.end()) {
        layer.params[p.name] = convert(p, it->second, out.sizes, decl.name);
      } else if (!p.default_value.empty()) {
        RawParam raw;
        raw.text = p.default_value;
        raw.where = decl.where;
        layer.params[p.name] = convert(p, raw, out.sizes, decl.name);
      }
    }
    out.layers.push_back(std::move(layer));
  }
  return out;
}

}  // namespace amdahl::graphs
