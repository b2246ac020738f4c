#include <fmt/format.h>

#include "graphs/layer_kind.h"
#include "graphs/network.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/yaml_file.h"

namespace amdahl::graphs {

std::string_view optimizer_name(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::kSgd:
      return "sgd";
    case OptimizerKind::kMomentum:
      return "momentum";
    case OptimizerKind::kAdam:
      return "adam";
    case OptimizerKind::kRmsprop:
      return "rmsprop";
  }
  return "?";
}

namespace {

const std::vector<std::string> kTopKeys{"name",   "description", "source", "pytorch_name",
                                        "notes",  "sizes",       "inputs", "blocks",
                                        "layers", "optimizer"};
const std::vector<std::string> kLayerKeys{"name",   "kind",    "block", "input",
                                          "inputs", "enabled", "repeat"};
const std::vector<std::string> kBlockKeys{"params", "inputs", "output", "layers"};
const std::vector<std::string> kOptimizers{"sgd", "momentum", "adam", "rmsprop"};

class Reader {
 public:
  explicit Reader(const YamlFile& file) : file_(file) {}

  Network read() {
    Network net;
    net.file = file_.path;
    const YAML::Node& root = file_.root;
    if (!root.IsMap()) {
      diags_.add(file_.where(root), "", "expected a map at the top level", describe_node(root));
      diags_.throw_if_any();
    }
    check_keys(root, kTopKeys, "");
    net.name = scalar(root, "name", "", true);
    net.description = scalar(root, "description", "", true);
    net.source = scalar(root, "source", "", true);
    net.pytorch_name = scalar(root, "pytorch_name", "", false);
    if (root["notes"]) {
      if (root["notes"].IsSequence())
        for (const auto& n : root["notes"]) net.notes.push_back(n.as<std::string>());
      else
        diags_.add(file_.where(root["notes"]), "notes", "expected a list of strings",
                   describe_node(root["notes"]));
    }
    const std::string opt = scalar(root, "optimizer", "", false);
    if (!opt.empty()) {
      std::size_t i = 0;
      while (i < kOptimizers.size() && kOptimizers[i] != opt) ++i;
      if (i == kOptimizers.size())
        diags_.add(file_.where(root["optimizer"]), "optimizer",
                   fmt::format("unknown optimizer; {}", suggestion(opt, kOptimizers)),
                   fmt::format("'{}'", opt));
      else
        net.optimizer = static_cast<OptimizerKind>(i);
    }
    read_sizes(root["sizes"], net);
    read_inputs(root["inputs"], net);
    read_blocks(root["blocks"], net);
    if (!root["layers"] || !root["layers"].IsSequence() || root["layers"].size() == 0)
      diags_.add(file_.where(root["layers"] ? root["layers"] : root), "layers",
                 "expected a non-empty list of layers",
                 root["layers"] ? describe_node(root["layers"]) : "");
    else
      net.layers = read_layers(root["layers"], "layers", net, {});
    diags_.throw_if_any();
    return net;
  }

 private:
  void check_keys(const YAML::Node& node, const std::vector<std::string>& known,
                  const std::string& path, const std::vector<std::string>& more = {}) {
    std::vector<std::string> all = known;
    all.insert(all.end(), more.begin(), more.end());
    for (const auto& item : node) {
      const std::string key = item.first.as<std::string>();
      bool ok = false;
      for (const auto& k : all) ok = ok || k == key;
      if (!ok)
        diags_.add(file_.where(item.first), path.empty() ? key : path + "." + key,
                   fmt::format("unknown key; {}", suggestion(key, all)),
                   fmt::format("'{}'", excerpt(key)));
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& key, const std::string& path,
                     bool required) {
    const std::string key_path = path.empty() ? key : path + "." + key;
    const YAML::Node v = node[key];
    if (!v) {
      if (required) diags_.add(file_.where(node), key_path, "required key is missing");
      return {};
    }
    if (!v.IsScalar()) {
      diags_.add(file_.where(v), key_path, "expected a scalar", describe_node(v));
      return {};
    }
    return v.Scalar();
  }

  void read_sizes(const YAML::Node& node, Network& net) {
    if (!node) return;
    if (!node.IsMap()) {
      diags_.add(file_.where(node), "sizes", "expected a map of size declarations",
                 describe_node(node));
      return;
    }
    for (const auto& item : node) {
      SizeDecl s;
      s.name = item.first.as<std::string>();
      const std::string path = "sizes." + s.name;
      const YAML::Node& v = item.second;
      if (!v.IsMap()) {
        diags_.add(file_.where(v), path, "expected {default: N, description: ...}",
                   describe_node(v));
        continue;
      }
      check_keys(v, {"default", "description"}, path);
      s.description = scalar(v, "description", path, true);
      const std::string def = scalar(v, "default", path, false);
      if (!def.empty()) {
        try {
          s.default_value = evaluate(def, {});
          s.has_default = true;
          // 0 is allowed for switches read by `enabled:` (a variant off by default).
          if (s.default_value < 0)
            diags_.add(file_.where(v["default"]), path + ".default", "must not be negative",
                       fmt::format("'{}'", def));
        } catch (const UserError&) {
          diags_.add(file_.where(v["default"]), path + ".default", "expected an integer",
                     fmt::format("'{}'", def));
        }
      }
      net.sizes.push_back(std::move(s));
    }
  }

  // `extra`: further names in scope (the parameters of the block being read).
  void check_expression(const YAML::Node& v, const std::string& text, const std::string& path,
                        const Network& net, const std::vector<std::string>& extra = {}) {
    try {
      for (const auto& name : referenced_names(text)) {
        bool declared = false;
        for (const auto& s : net.sizes) declared = declared || s.name == name;
        for (const auto& s : extra) declared = declared || s == name;
        if (!declared) {
          std::vector<std::string> names = extra;
          for (const auto& s : net.sizes) names.push_back(s.name);
          diags_.add(file_.where(v), path,
                     fmt::format("undeclared size '{}' (declare it under sizes:); {}", name,
                                 suggestion(name, names)),
                     fmt::format("'{}'", text));
        }
      }
    } catch (const UserError& e) {
      diags_.add(file_.where(v), path, e.what(), fmt::format("'{}'", text));
    }
  }

  void read_inputs(const YAML::Node& node, Network& net) {
    if (!node || !node.IsSequence()) {
      diags_.add(file_.where(node ? node : file_.root), "inputs",
                 "expected a list of {name, shape, dtype}", node ? describe_node(node) : "");
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node& v = node[i];
      const std::string path = fmt::format("inputs[{}]", i);
      if (!v.IsMap()) {
        diags_.add(file_.where(v), path, "expected a map", describe_node(v));
        continue;
      }
      check_keys(v, {"name", "shape", "dtype"}, path);
      InputDecl in;
      in.where = file_.where(v);
      in.name = scalar(v, "name", path, true);
      const std::string dtype = scalar(v, "dtype", path, false);
      if (!dtype.empty()) {
        if (auto t = parse_dtype(dtype))
          in.dtype = *t;
        else
          diags_.add(file_.where(v["dtype"]), path + ".dtype",
                     fmt::format("unknown dtype; {}", suggestion(dtype, dtype_names())),
                     fmt::format("'{}'", dtype));
      }
      const YAML::Node shape = v["shape"];
      if (!shape || !shape.IsSequence()) {
        diags_.add(file_.where(shape ? shape : v), path + ".shape",
                   "expected a list of size expressions", shape ? describe_node(shape) : "");
      } else {
        for (const auto& dim : shape) {
          in.shape.push_back(dim.as<std::string>());
          check_expression(dim, in.shape.back(), path + ".shape", net);
        }
      }
      net.inputs.push_back(std::move(in));
    }
  }

  std::vector<std::string> string_list(const YAML::Node& node, const std::string& path) {
    std::vector<std::string> out;
    if (!node) return out;
    if (!node.IsSequence()) {
      diags_.add(file_.where(node), path, "expected a list of names", describe_node(node));
      return out;
    }
    for (const auto& x : node) out.push_back(x.as<std::string>());
    return out;
  }

  void read_blocks(const YAML::Node& node, Network& net) {
    if (!node) return;
    if (!node.IsMap()) {
      diags_.add(file_.where(node), "blocks", "expected a map of block definitions",
                 describe_node(node));
      return;
    }
    for (const auto& item : node) {
      BlockDecl b;
      b.name = item.first.as<std::string>();
      b.where = file_.where(item.first);
      const std::string path = "blocks." + b.name;
      const YAML::Node& v = item.second;
      if (!v.IsMap()) {
        diags_.add(file_.where(v), path, "expected {params, inputs, output, layers}",
                   describe_node(v));
        continue;
      }
      check_keys(v, kBlockKeys, path);
      if (v["params"] && v["params"].IsMap()) {
        for (const auto& param : v["params"]) {
          b.params.push_back(param.first.as<std::string>());
          if (!param.second.IsNull()) {
            if (param.second.IsScalar())
              b.defaults[b.params.back()] = param.second.Scalar();
            else
              diags_.add(file_.where(param.second), path + ".params." + b.params.back(),
                         "expected a default value or null", describe_node(param.second));
          }
        }
      } else {
        b.params = string_list(v["params"], path + ".params");
      }
      b.inputs = string_list(v["inputs"], path + ".inputs");
      b.output = scalar(v, "output", path, false);
      if (!v["layers"] || !v["layers"].IsSequence() || v["layers"].size() == 0) {
        diags_.add(file_.where(v["layers"] ? v["layers"] : v), path + ".layers",
                   "expected a non-empty list of layers");
        continue;
      }
      b.layers = read_layers(v["layers"], path + ".layers", net, b.params);
      if (!b.output.empty()) {
        bool found = false;
        std::vector<std::string> names;
        for (const auto& l : b.layers) {
          found = found || l.name == b.output;
          names.push_back(l.name);
        }
        if (!found)
          diags_.add(file_.where(v["output"]), path + ".output",
                     fmt::format("not a layer of the block; {}", suggestion(b.output, names)),
                     fmt::format("'{}'", b.output));
      }
      net.blocks.push_back(std::move(b));
    }
  }

  // Reads a list of layers; `scope` holds the parameters of the enclosing block.
  std::vector<LayerDecl> read_layers(const YAML::Node& node, const std::string& list_path,
                                     const Network& net, const std::vector<std::string>& scope) {
    std::vector<LayerDecl> out;
    const LayerRegistry& registry = layer_registry();
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node& v = node[i];
      const std::string path = fmt::format("{}[{}]", list_path, i);
      if (!v.IsMap()) {
        diags_.add(file_.where(v), path, "expected a map", describe_node(v));
        continue;
      }
      LayerDecl layer;
      layer.where = file_.where(v);
      layer.name = scalar(v, "name", path, true);
      layer.kind = scalar(v, "kind", path, false);
      layer.block = scalar(v, "block", path, false);
      layer.enabled = scalar(v, "enabled", path, false);
      layer.repeat = scalar(v, "repeat", path, false);
      const std::string layer_path = fmt::format("{} '{}'", path, layer.name);
      if (layer.kind.empty() == layer.block.empty())
        diags_.add(layer.where, layer_path,
                   layer.kind.empty() ? "needs `kind` (a layer kind) or `block` (a block name)"
                                      : "give `kind` or `block`, not both");
      if (!layer.enabled.empty())
        check_expression(v["enabled"], layer.enabled, path + ".enabled", net, scope);
      if (!layer.repeat.empty())
        check_expression(v["repeat"], layer.repeat, path + ".repeat", net, scope);
      if (v["input"] && v["inputs"])
        diags_.add(file_.where(v), layer_path, "give `input` or `inputs`, not both");
      if (v["input"]) layer.inputs.push_back(scalar(v, "input", path, false));
      if (v["inputs"]) {
        if (v["inputs"].IsSequence())
          for (const auto& x : v["inputs"]) layer.inputs.push_back(x.as<std::string>());
        else
          diags_.add(file_.where(v["inputs"]), layer_path + ".inputs", "expected a list of names",
                     describe_node(v["inputs"]));
      }
      const LayerKind* kind = layer.kind.empty() ? nullptr : registry.find(layer.kind);
      if (!layer.kind.empty() && !kind) {
        diags_.add(file_.where(v["kind"]), layer_path + ".kind",
                   fmt::format("unknown layer kind; {}", suggestion(layer.kind, registry.names())),
                   fmt::format("'{}'", layer.kind));
      }
      const BlockDecl* block = nullptr;
      if (!layer.block.empty()) {
        std::vector<std::string> names;
        for (const auto& b : net.blocks) {
          if (b.name == layer.block) block = &b;
          names.push_back(b.name);
        }
        if (!block)
          diags_.add(file_.where(v["block"]), layer_path + ".block",
                     fmt::format("unknown block (blocks are defined under blocks:, before use); "
                                 "{}",
                                 names.empty() ? "none defined" : suggestion(layer.block, names)),
                     fmt::format("'{}'", layer.block));
      }
      std::vector<std::string> param_names;
      std::vector<ParamType> param_types;
      if (kind)
        for (const auto& p : kind->params) {
          param_names.push_back(p.name);
          param_types.push_back(p.type);
        }
      if (block)
        for (const auto& p : block->params) {
          param_names.push_back(p);
          param_types.push_back(ParamType::kInt);
        }
      for (const auto& item : v) {
        const std::string key = item.first.as<std::string>();
        bool structural = false;
        for (const auto& k : kLayerKeys) structural = structural || k == key;
        if (structural) continue;
        std::size_t index = param_names.size();
        for (std::size_t p = 0; p < param_names.size(); ++p)
          if (param_names[p] == key) index = p;
        if ((kind || block) && index == param_names.size()) {
          std::vector<std::string> all = kLayerKeys;
          all.insert(all.end(), param_names.begin(), param_names.end());
          diags_.add(file_.where(item.first), layer_path + "." + key,
                     fmt::format("unknown parameter of {}; {}", kind ? layer.kind : layer.block,
                                 suggestion(key, all)),
                     fmt::format("'{}'", key));
          continue;
        }
        RawParam p;
        p.where = file_.where(item.second);
        if (item.second.IsSequence()) {
          p.is_list = true;
          for (const auto& x : item.second) p.items.push_back(x.as<std::string>());
        } else if (item.second.IsScalar()) {
          p.text = item.second.Scalar();
        } else {
          diags_.add(p.where, layer_path + "." + key, "expected a value or a list",
                     describe_node(item.second));
          continue;
        }
        if (index < param_types.size() &&
            (param_types[index] == ParamType::kInt || param_types[index] == ParamType::kInts)) {
          if (p.is_list)
            for (const auto& x : p.items)
              check_expression(item.second, x, layer_path + "." + key, net, scope);
          else
            check_expression(item.second, p.text, layer_path + "." + key, net, scope);
        }
        layer.params.emplace(key, std::move(p));
      }
      if (kind) {
        for (const auto& p : kind->params)
          if (p.required && !layer.params.count(p.name))
            diags_.add(
                layer.where, layer_path + "." + p.name,
                fmt::format("required parameter of {} is missing ({})", layer.kind, p.description));
      }
      if (block) {
        for (const auto& p : block->params)
          if (!layer.params.count(p) && !block->defaults.count(p))
            diags_.add(layer.where, layer_path + "." + p,
                       fmt::format("parameter of block {} is missing", layer.block));
      }
      out.push_back(std::move(layer));
    }
    return out;
  }

  const YamlFile& file_;
  Diagnostics diags_;
};

}  // namespace

Network load_network(const std::string& path) {
  const YamlFile file = load_yaml_file(path);
  return with_yaml_errors(file, [&] { return Reader(file).read(); });
}

}  // namespace amdahl::graphs
