#pragma once
// Networks before and after binding their symbolic sizes.
//
// Network      - as written in a network YAML file: sizes with defaults, inputs whose
//                shapes are size expressions, layers whose parameters may be expressions.
// BoundNetwork - every size bound (defaults, --batch, --set), every parameter concrete.
//                Importers (ONNX) produce a BoundNetwork directly.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graphs/expr.h"
#include "graphs/layer.h"
#include "graphs/tensor.h"
#include "util/assumption.h"
#include "util/diagnostics.h"

namespace amdahl::graphs {

struct SizeDecl {
  std::string name;
  std::int64_t default_value = 0;
  bool has_default = false;
  std::string description;
};

struct InputDecl {
  std::string name;
  std::vector<std::string> shape;  // size expressions
  DType dtype = DType::kF32;
  SourceLocation where;
};

// A layer parameter as written: a scalar's text, or a list's items.
struct RawParam {
  std::string text;
  std::vector<std::string> items;
  bool is_list = false;
  SourceLocation where;
};

// A layer as written. Either `kind` names a layer kind and `params` are its parameters, or
// `block` names a block and `params` bind the block's parameters. `repeat` makes that many
// consecutive copies, each fed by the one before.
struct LayerDecl {
  std::string name;
  std::string kind;
  std::string block;
  std::vector<std::string> inputs;  // empty: the previous layer's output
  std::map<std::string, RawParam> params;
  std::string enabled;  // size expression; the layer exists when it is non-zero
  std::string repeat;   // size expression; empty: once
  SourceLocation where;
};

// A parameterized group of layers (a residual unit, a transformer layer), instantiated by
// layers with `block: NAME`. Instance `name` prefixes the block's layer names
// ("layer1.0.conv1"); the `output` layer takes the instance name itself, so later layers
// refer to the block by it. Parameters are substituted into size expressions (and into
// choice values written as the bare parameter name); `params` is a list of names or a map
// of name to default (null: required); `inputs` are formal names bound to
// the instance's inputs (default: the previous layer's output).
struct BlockDecl {
  std::string name;
  std::vector<std::string> params;
  std::map<std::string, std::string> defaults;  // parameter -> default value text
  std::vector<std::string> inputs;
  std::string output;  // empty: the last layer
  std::vector<LayerDecl> layers;
  SourceLocation where;
};

enum class OptimizerKind { kSgd, kMomentum, kAdam, kRmsprop };
std::string_view optimizer_name(OptimizerKind k);

struct Network {
  std::string name;
  std::string description;
  std::string source;  // where the architecture comes from
  // The PyTorch definition this network is, by the name PyTorch measurement sets give it
  // (a torchvision.models constructor with default arguments, or a network of
  // ../shared/data/h200/models.py); empty for networks that are no PyTorch definition.
  std::string pytorch_name;
  std::string file;
  std::vector<std::string> notes;  // variants and deviations, for `describe models`
  std::vector<SizeDecl> sizes;
  std::vector<InputDecl> inputs;
  std::vector<BlockDecl> blocks;
  std::vector<LayerDecl> layers;
  OptimizerKind optimizer = OptimizerKind::kSgd;
};

struct NamedTensor {
  std::string name;
  TensorInfo tensor;
};

struct BoundNetwork {
  std::string name;
  std::vector<NamedTensor> inputs;
  std::vector<Layer> layers;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  Bindings sizes;
  // What an importer assumed about the model (ONNX: graph inputs taken as weights); lowering
  // carries them to the prediction's assumptions.
  std::vector<Assumption> assumptions;
};

// Parses a network file. Throws ConfigError with every problem located
// (file:line:col: key: rule (got value)); unknown layer kinds and parameters list the
// valid choices.
Network load_network(const std::string& path);

// Binds sizes: each size takes its default unless `overrides` sets it, then expands blocks
// and repeats and drops disabled layers. Throws UserError for an override of an unknown
// size (listing them), a size without default left unbound, a non-positive size, a negative
// repeat, or a parameter whose expression cannot be evaluated.
BoundNetwork bind_sizes(const Network& network, const Bindings& overrides);

// What binding read from the sizes, for re-binding at another point (sweeps): the integer
// parameters whose expressions name a size, and every `enabled:` and `repeat:` expression
// that names one (block parameters substituted) with the value it had, which fixes the
// layer list.
struct SizeDependence {
  struct Param {
    std::size_t layer = 0;  // index into BoundNetwork::layers
    std::string name;
    const ParamDecl* decl = nullptr;
    RawParam raw;  // block parameters substituted
  };
  std::vector<Param> params;
  struct Structure {
    std::string expression;
    std::int64_t value = 0;
  };
  std::vector<Structure> structure;
};
BoundNetwork bind_sizes(const Network& network, const Bindings& overrides,
                        SizeDependence& dependence);

// Re-binds `bound` (bound from `network` with `dependence` recorded) at `overrides`: the
// sizes, the input shapes and the size-dependent parameters. Returns false, leaving `bound`
// half updated, when an `enabled:` or `repeat:` expression evaluates differently (the
// layers would differ: bind again). Throws as bind_sizes does.
bool rebind(const Network& network, const SizeDependence& dependence, const Bindings& overrides,
            BoundNetwork& bound);

}  // namespace amdahl::graphs
