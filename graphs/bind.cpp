#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
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
  // Built only for an error message (binding converts every parameter of every layer).
  const auto path = [&] { return fmt::format("layer '{}' parameter '{}'", layer, decl.name); };
  auto integer = [&](const std::string& text) {
    try {
      return evaluate(text, sizes);
    } catch (const UserError& e) {
      throw UserError(located(raw.where, fmt::format("{}: {}", path(), e.what())));
    }
  };
  if (raw.is_list && decl.type != ParamType::kInts)
    throw UserError(located(raw.where, fmt::format("{}: expected one value, got a list", path())));
  // The declared range (ParamDecl), for numbers and each element of a list.
  auto in_range = [&](double v, const std::string& text) {
    if (decl.in_range(v)) return v;
    const std::string shown = excerpt(text);
    throw UserError(located(
        raw.where, fmt::format("{}: {} (got {}{})", path(), decl.range_rule(), shown,
                               shown == fmt::format("{:g}", v) ? "" : fmt::format(" = {:g}", v))));
  };
  auto bounded = [&](const std::string& text) {
    const std::int64_t v = integer(text);
    in_range(static_cast<double>(v), text);
    return v;
  };
  switch (decl.type) {
    case ParamType::kInt:
      return bounded(raw.text);
    case ParamType::kInts: {
      if (!raw.is_list) return IntList{bounded(raw.text)};
      IntList out;
      for (const auto& item : raw.items) out.push_back(bounded(item));
      return out;
    }
    case ParamType::kFloat: {
      char* end = nullptr;
      const double v = std::strtod(raw.text.c_str(), &end);
      if (end == raw.text.c_str() || *end != '\0')
        throw UserError(located(
            raw.where, fmt::format("{}: expected a number (got '{}')", path(), excerpt(raw.text))));
      return in_range(v, raw.text);
    }
    case ParamType::kBool:
      if (raw.text == "true" || raw.text == "false") return raw.text == "true";
      throw UserError(located(raw.where, fmt::format("{}: expected true or false (got '{}')",
                                                     path(), excerpt(raw.text))));
    case ParamType::kString:
      return raw.text;
    case ParamType::kChoice:
      for (const auto& c : decl.choices)
        if (c == raw.text) return raw.text;
      throw UserError(located(raw.where, fmt::format("{}: unknown value '{}'; {}", path(), raw.text,
                                                     suggestion(raw.text, decl.choices))));
  }
  throw InternalError("unhandled parameter type");
}

bool ident_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

// Block parameter values by name (text, in the scope of the instance).
using Substitutions = std::map<std::string, std::string>;

// Replaces every whole identifier of `text` that names a block parameter by "(value)".
std::string substitute(const std::string& text, const Substitutions& subs) {
  if (subs.empty()) return text;
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (ident_char(text[i], true)) {
      std::size_t j = i;
      while (j < text.size() && ident_char(text[j], false)) ++j;
      const std::string word = text.substr(i, j - i);
      const auto it = subs.find(word);
      out += it == subs.end() ? word : "(" + it->second + ")";
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

RawParam substitute(const RawParam& raw, ParamType type, const Substitutions& subs) {
  RawParam out = raw;
  if (type == ParamType::kInt || type == ParamType::kInts) {
    out.text = substitute(raw.text, subs);
    for (auto& item : out.items) item = substitute(item, subs);
  } else if (const auto it = subs.find(raw.text); it != subs.end() && !raw.is_list) {
    out.text = it->second;  // a choice or number passed whole
  }
  return out;
}

constexpr int kMaxBlockDepth = 16;
// Declarations evaluated while expanding (each instance of a block's layers, disabled ones
// included) per layer the limit allows: a network of blocks nests a few declarations per
// layer made; blocks of blocks of disabled layers nested 16 deep would evaluate 10^16 and hang.
constexpr int kMaxVisitsPerOp = 4;

// A layer count as a whole number (scientific past 2^53, where doubles skip integers).
std::string count_text(double n) {
  return n < 0x1p53 ? fmt::format("{:.0f}", n) : fmt::format("{:.3g}", n);
}

bool names_a_size(const std::string& expression) { return !referenced_names(expression).empty(); }

// Expands blocks and repeats into concrete layers, in order.
class Expander {
 public:
  Expander(const Network& net, const Bindings& sizes, std::vector<Layer>& out,
           SizeDependence* dependence)
      : net_(net), sizes_(sizes), out_(out), dependence_(dependence) {
    if (!net.inputs.empty()) last_ = net.inputs.front().name;
  }

  // A top-level layer declaration. Its layers are counted first, from the declarations with
  // blocks and repeats multiplied out (extent()), and the limit checked, before one is made.
  void expand(const LayerDecl& decl) {
    const Extent e = extent(decl, decl.name, {}, 0);
    if (static_cast<double>(out_.size()) + e.layers > static_cast<double>(max_ops())) {
      const std::string repeat =
          decl.repeat.empty() ? "" : fmt::format("repeat '{}'", excerpt(decl.repeat));
      const std::string what =
          !decl.block.empty()
              ? fmt::format("block {}{} expands to {} layers", decl.block,
                            repeat.empty() ? "" : " (" + repeat + ")", count_text(e.layers))
          : !repeat.empty() ? fmt::format("{} evaluates to {}", repeat, count_text(e.layers))
                            : std::string("one layer more");
      throw UserError(located(decl.where, fmt::format("layer '{}': {}: the network would have more "
                                                      "than {} layers (the limit; --max-ops N "
                                                      "raises it)",
                                                      decl.name, what, max_ops())));
    }
    visits_ += e.visits;
    if (visits_ > kMaxVisitsPerOp * static_cast<double>(max_ops()))
      throw UserError(located(
          decl.where,
          fmt::format("layer '{}': its blocks and repeats expand into {} layer declarations to "
                      "evaluate (disabled ones included): more than {} times the limit of {} "
                      "layers (--max-ops N raises it)",
                      decl.name, count_text(e.visits), kMaxVisitsPerOp, max_ops())));
    expand(decl, decl.name, decl.inputs, {}, 0);
  }

 private:
  // What expanding a declaration makes: its layers, and the declarations evaluated on the way
  // (each instance of each block's layers, made or disabled: the expansion's work).
  struct Extent {
    double layers = 0;
    double visits = 0;
  };

  // Counts what expand() would make of `decl` without making it: a block's body is counted
  // once per set of parameter values (memoized), then multiplied by the repeat. Throws what
  // expand() throws for the declarations' expressions.
  Extent extent(const LayerDecl& decl, const std::string& decl_name, const Substitutions& subs,
                int depth) {
    check_depth(decl, decl_name, depth);
    Extent e{0, 1};
    if (!decl.enabled.empty() &&
        integer(decl, decl_name, "enabled", decl.enabled, subs, false) == 0)
      return e;
    const double copies = static_cast<double>(copies_of(decl, decl_name, subs, false));
    if (decl.block.empty()) {
      e.layers = copies;
      return e;
    }
    if (copies == 0) return e;
    const auto found = block_substitutions(decl, decl_name, subs);
    const BlockDecl* block = found.first;
    const Substitutions& inner_subs = found.second;
    std::string key = block->name;
    for (const auto& [name, value] : inner_subs) key += '\0' + name + '\0' + value;
    auto it = block_extents_.find(key);
    if (it == block_extents_.end()) {
      Extent body;
      for (const LayerDecl& inner : block->layers) {
        const Extent x = extent(inner, decl_name + "." + inner.name, inner_subs, depth + 1);
        body.layers += x.layers;
        body.visits += x.visits;
      }
      it = block_extents_.emplace(std::move(key), body).first;
    }
    e.layers = copies * it->second.layers;
    e.visits += copies * it->second.visits;
    return e;
  }

  void check_depth(const LayerDecl& decl, const std::string& decl_name, int depth) const {
    if (depth > kMaxBlockDepth)
      throw UserError(located(decl.where, fmt::format("layer '{}': blocks nest more than {} deep "
                                                      "(does a block instantiate itself?)",
                                                      decl_name, kMaxBlockDepth)));
  }

  // The copies `decl`'s repeat makes (1 without one); `record`: note a size dependence.
  std::int64_t copies_of(const LayerDecl& decl, const std::string& decl_name,
                         const Substitutions& subs, bool record) {
    const std::int64_t copies =
        decl.repeat.empty() ? 1 : integer(decl, decl_name, "repeat", decl.repeat, subs, record);
    if (copies < 0)
      throw UserError(located(decl.where, fmt::format("layer '{}': repeat '{}' evaluates to {} "
                                                      "(must be >= 0)",
                                                      decl_name, decl.repeat, copies)));
    return copies;
  }

  // `decl` named `decl_name` with `inputs` (a block's layer renamed into its instance,
  // without copying its declaration); `subs` the enclosing block's parameters.
  void expand(const LayerDecl& decl, const std::string& decl_name, std::vector<std::string> inputs,
              const Substitutions& subs, int depth) {
    check_depth(decl, decl_name, depth);
    if (!decl.enabled.empty() && integer(decl, decl_name, "enabled", decl.enabled, subs, true) == 0)
      return;
    const std::int64_t copies = copies_of(decl, decl_name, subs, true);
    if (copies > max_ops() - static_cast<std::int64_t>(out_.size()))
      throw UserError(located(
          decl.where, fmt::format("layer '{}': repeat '{}' evaluates to {}: the network would have "
                                  "more than {} layers (the limit; --max-ops N raises it)",
                                  decl_name, excerpt(decl.repeat), copies, max_ops())));
    for (std::int64_t i = 0; i < copies; ++i) {
      const std::string name =
          decl.repeat.empty() || i + 1 == copies ? decl_name : fmt::format("{}.{}", decl_name, i);
      const std::string prefix =
          decl.repeat.empty() ? decl_name : fmt::format("{}.{}", decl_name, i);
      if (decl.block.empty())
        emit_layer(decl, name, inputs, subs);
      else
        expand_block(decl, decl_name, name, prefix, inputs, subs, depth);
      if (inputs.empty())
        inputs.push_back(name);
      else
        inputs.front() = name;
    }
  }

  std::int64_t integer(const LayerDecl& decl, const std::string& decl_name, const char* key,
                       const std::string& text, const Substitutions& subs, bool record) {
    try {
      std::string expression = substitute(text, subs);
      const std::int64_t value = evaluate(expression, sizes_);
      if (record && dependence_ && names_a_size(expression))
        dependence_->structure.push_back({std::move(expression), value});
      return value;
    } catch (const UserError& e) {
      throw UserError(
          located(decl.where, fmt::format("layer '{}' {}: {}", decl_name, key, e.what())));
    }
  }

  void emit_layer(const LayerDecl& decl, const std::string& name,
                  const std::vector<std::string>& inputs, const Substitutions& subs) {
    if (static_cast<std::int64_t>(out_.size()) >= max_ops())
      throw UserError(located(decl.where, fmt::format("layer '{}': the network has more than {} "
                                                      "layers (the limit; --max-ops N raises it)",
                                                      name, max_ops())));
    const LayerKind& kind = layer_registry().get(decl.kind);
    Layer layer;
    layer.name = name;
    layer.kind = decl.kind;
    layer.inputs = inputs;
    layer.where = decl.where;
    layer.params.reserve(kind.params.size());
    for (const auto& p : kind.params) {
      RawParam raw;
      if (auto it = decl.params.find(p.name); it != decl.params.end()) {
        raw = substitute(it->second, p.type, subs);
      } else if (!p.default_value.empty()) {
        raw.text = p.default_value;
        raw.where = decl.where;
      } else {
        continue;
      }
      layer.params[p.name] = convert(p, raw, sizes_, name);
      if (dependence_ && (p.type == ParamType::kInt || p.type == ParamType::kInts) &&
          (raw.is_list ? std::any_of(raw.items.begin(), raw.items.end(), names_a_size)
                       : names_a_size(raw.text)))
        dependence_->params.push_back({out_.size(), p.name, &p, std::move(raw)});
    }
    last_ = layer.name;
    out_.push_back(std::move(layer));
  }

  // The block `decl` instantiates and its parameters' values (in the scope of `outer`).
  std::pair<const BlockDecl*, Substitutions> block_substitutions(const LayerDecl& decl,
                                                                 const std::string& decl_name,
                                                                 const Substitutions& outer) const {
    const BlockDecl* block = nullptr;
    for (const auto& b : net_.blocks)
      if (b.name == decl.block) block = &b;
    if (!block) throw InternalError(fmt::format("block '{}' not loaded", decl.block));
    Substitutions subs;
    for (const auto& p : block->params) {
      const auto it = decl.params.find(p);
      if (it == decl.params.end()) {
        if (const auto def = block->defaults.find(p); def != block->defaults.end()) {
          subs[p] = def->second;
          continue;
        }
      }
      if (it == decl.params.end() || it->second.is_list)
        throw UserError(located(decl.where, fmt::format("layer '{}': block parameter '{}' needs "
                                                        "one value",
                                                        decl_name, p)));
      subs[p] = substitute(it->second.text, outer);
    }
    return {block, std::move(subs)};
  }

  void expand_block(const LayerDecl& decl, const std::string& decl_name, const std::string& name,
                    const std::string& prefix, const std::vector<std::string>& inputs,
                    const Substitutions& outer, int depth) {
    const auto found = block_substitutions(decl, decl_name, outer);
    const BlockDecl* block = found.first;
    const Substitutions& subs = found.second;
    if (inputs.size() > std::max<std::size_t>(block->inputs.size(), 1))
      throw UserError(located(
          decl.where, fmt::format("layer '{}': block {} takes {} input(s) "
                                  "(got {})",
                                  decl_name, block->name, block->inputs.size(), inputs.size())));
    // Formal inputs: the instance's inputs in order, the first defaulting to the previous
    // layer's output.
    std::map<std::string, std::string> formals;
    for (std::size_t i = 0; i < block->inputs.size(); ++i) {
      if (i < inputs.size())
        formals[block->inputs[i]] = inputs[i];
      else if (i == 0)
        formals[block->inputs[i]] = last_;
      else
        throw UserError(located(decl.where, fmt::format("layer '{}': block {} input '{}' is not "
                                                        "given (inputs: [...])",
                                                        decl_name, block->name, block->inputs[i])));
    }
    const std::string output = block->output.empty() ? block->layers.back().name : block->output;
    auto rename = [&](const std::string& local) {
      return local == output ? name : prefix + "." + local;
    };
    // A block's own layer names (a block has a few: a linear search, no set per instance).
    const auto is_local = [&](const std::string& n) {
      return std::any_of(block->layers.begin(), block->layers.end(),
                         [&](const LayerDecl& l) { return l.name == n; });
    };
    bool first = true;
    for (const LayerDecl& inner : block->layers) {
      std::vector<std::string> inner_inputs;
      inner_inputs.reserve(inner.inputs.size());
      for (const auto& ref : inner.inputs) {
        const auto colon = ref.find(':');
        const std::string base = ref.substr(0, colon);
        const std::string rest = colon == std::string::npos ? "" : ref.substr(colon);
        if (is_local(base))
          inner_inputs.push_back(rename(base) + rest);
        else if (const auto f = formals.find(base); f != formals.end())
          inner_inputs.push_back(f->second + rest);
        else
          inner_inputs.push_back(ref);
      }
      if (first && inner_inputs.empty() && !inputs.empty()) inner_inputs.push_back(inputs.front());
      first = false;
      expand(inner, rename(inner.name), std::move(inner_inputs), subs, depth + 1);
    }
  }

  const Network& net_;
  const Bindings& sizes_;
  std::vector<Layer>& out_;
  SizeDependence* dependence_;
  std::string last_;
  std::map<std::string, Extent> block_extents_;  // block and parameter values -> its body's
  double visits_ = 0;                            // declarations evaluated, all layers so far
};

// Every size of `network`: the override, else the default.
Bindings resolve_sizes(const Network& network, const Bindings& overrides) {
  Bindings sizes;
  std::vector<std::string> names;
  for (const auto& s : network.sizes) names.push_back(s.name);
  for (const auto& [name, value] : overrides) {
    bool known = false;
    for (const auto& s : network.sizes) known = known || s.name == name;
    if (!known)
      throw UserError(
          fmt::format("network '{}' has no size '{}'; {}", network.name, name,
                      names.empty() ? "it declares no sizes" : suggestion(name, names)));
    // 0 turns off a variant switch; a dim that evaluates to 0 is rejected below.
    if (value < 0)
      throw UserError(fmt::format("size {} must not be negative (got {})", name, value));
  }
  for (const auto& s : network.sizes) {
    if (auto it = overrides.find(s.name); it != overrides.end()) {
      sizes[s.name] = it->second;
    } else if (s.has_default) {
      sizes[s.name] = s.default_value;
    } else {
      throw UserError(
          fmt::format("{}: size '{}' of network '{}' has no default; bind it with --set "
                      "{}=VALUE",
                      network.file, s.name, network.name, s.name));
    }
  }
  return sizes;
}

std::vector<NamedTensor> bind_inputs(const Network& network, const Bindings& sizes) {
  std::vector<NamedTensor> out;
  for (const auto& in : network.inputs) {
    TensorInfo t;
    t.dtype = in.dtype;
    for (const auto& dim : in.shape) {
      std::int64_t v = 0;
      try {
        v = evaluate(dim, sizes);
      } catch (const UserError& e) {
        throw UserError(located(in.where, fmt::format("input '{}': {}", in.name, e.what())));
      }
      if (v <= 0)
        throw UserError(
            located(in.where, fmt::format("input '{}': dim '{}' evaluates to {} (must be positive)",
                                          in.name, dim, v)));
      t.shape.push_back(v);
    }
    try {
      elements(t.shape);  // a count that overflows is an error here, where the input is declared
    } catch (const UserError& e) {
      throw UserError(located(in.where, fmt::format("input '{}': {}", in.name, e.what())));
    }
    out.push_back({in.name, t});
  }
  return out;
}

BoundNetwork bind_network(const Network& network, const Bindings& overrides,
                          SizeDependence* dependence) {
  BoundNetwork out;
  out.name = network.name;
  out.optimizer = network.optimizer;
  out.sizes = resolve_sizes(network, overrides);
  out.inputs = bind_inputs(network, out.sizes);
  Expander expander(network, out.sizes, out.layers, dependence);
  for (const auto& decl : network.layers) expander.expand(decl);
  return out;
}

}  // namespace

BoundNetwork bind_sizes(const Network& network, const Bindings& overrides) {
  return bind_network(network, overrides, nullptr);
}

BoundNetwork bind_sizes(const Network& network, const Bindings& overrides,
                        SizeDependence& dependence) {
  dependence = SizeDependence{};
  return bind_network(network, overrides, &dependence);
}

bool rebind(const Network& network, const SizeDependence& dependence, const Bindings& overrides,
            BoundNetwork& bound) {
  Bindings sizes = resolve_sizes(network, overrides);
  for (const auto& s : dependence.structure)
    if (evaluate(s.expression, sizes) != s.value) return false;
  bound.inputs = bind_inputs(network, sizes);
  for (const auto& p : dependence.params) {
    Layer& layer = bound.layers[p.layer];
    layer.params[p.name] = convert(*p.decl, p.raw, sizes, layer.name);
  }
  bound.sizes = std::move(sizes);
  return true;
}

}  // namespace amdahl::graphs
