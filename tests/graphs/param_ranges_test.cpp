// Layer parameters outside their declared range (graphs/layer.h ParamDecl) are located errors
// naming the layer, the parameter and the rule, in network files, at any bound size, and in
// the registry's declarations; a value quoted back is a short escaped excerpt.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "graphs/network.h"
#include "graphs/zoo.h"
#include "scratch_dir.h"
#include "util/error.h"
#include "util/suggest.h"

using namespace amdahl;
using namespace amdahl::graphs;
using Catch::Contains;

using amdahl::test::scratch_file;

namespace {

// A convnet whose first layer is `layer` (one YAML flow map), written to a temporary file.
std::string network_with(const std::string& layer) {
  const auto path =
      scratch_file("param_ranges_" + std::to_string(std::hash<std::string>{}(layer)) + ".yaml");
  std::ofstream(path) << "name: t\ndescription: t\nsource: t\n"
                         "sizes:\n  batch: {default: 4, description: b}\n"
                         "  s: {default: 1, description: a stride}\n"
                         "inputs:\n  - {name: x, shape: [batch, 3, 32, 32], dtype: fp32}\n"
                         "  - {name: y, shape: [batch], dtype: int64}\n"
                         "layers:\n  "
                      << layer
                      << "\n  - {name: flat, kind: flatten}\n"
                         "  - {name: fc, kind: linear, out_features: 10}\n"
                         "  - {name: loss, kind: softmax_cross_entropy, inputs: [fc, y]}\n";
  return path;
}

std::string error_of(const std::string& layer, const Bindings& sizes = {}) {
  try {
    lower(bind_sizes(load_network(network_with(layer)), sizes), {.mode = Mode::kTrain});
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("out-of-range layer parameters are located errors", "[graphs][ranges]") {
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: 8, kernel: 3, stride: 0}"),
             Contains(":11:65:") && Contains("layer 'c' parameter 'stride': must be >= 1 (got 0)"));
  CHECK_THAT(error_of("- {name: p, kind: maxpool2d, kernel: 2, stride: 0}"),
             Contains("layer 'p' parameter 'stride': must be >= 1 (got 0)"));
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: 8, kernel: 0}"),
             Contains("parameter 'kernel': must be >= 1 (got 0)"));
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: 8, kernel: [3, 0]}"),
             Contains("parameter 'kernel': must be >= 1 (got 0)"));
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: 8, kernel: 3, dilation: 0}"),
             Contains("parameter 'dilation': must be >= 1 (got 0)"));
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: 8, kernel: 3, padding: -5}"),
             Contains("parameter 'padding': must be >= 0 (got -5)"));
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: -5, kernel: 3}"),
             Contains("parameter 'out_channels': must be >= 1 (got -5)"));
  CHECK_THAT(error_of("- {name: d, kind: dropout, p: 2}"),
             Contains("layer 'd' parameter 'p': must be in [0, 1] (got 2)"));
  CHECK_THAT(error_of("- {name: d, kind: dropout, p: nan}"),
             Contains("parameter 'p': must be in [0, 1] (got nan)"));
  // In range: the same layers lower.
  CHECK(error_of("- {name: c, kind: conv2d, out_channels: 8, kernel: 3, stride: 2}") == "no error");
  CHECK(error_of("- {name: d, kind: dropout, p: 0.5}") == "no error");
}

TEST_CASE("a size that puts a parameter out of range is caught at that size", "[graphs][ranges]") {
  const std::string conv = "- {name: c, kind: conv2d, out_channels: 8, kernel: 3, stride: s}";
  CHECK(error_of(conv, {{"s", 2}}) == "no error");
  // The expression and its value are both shown.
  CHECK_THAT(error_of(conv, {{"s", 0}}), Contains("parameter 'stride': must be >= 1 (got s = 0)"));
}

TEST_CASE("every stride, kernel, dilation and group count of the registry must be positive",
          "[graphs][ranges]") {
  // New kinds declare these through the same helpers: a kind that forgets the range fails here.
  for (const auto& [name, kind] : layer_registry().kinds())
    for (const ParamDecl& p : kind.params)
      if (p.name == "stride" || p.name == "kernel" || p.name == "dilation" || p.name == "groups") {
        INFO(name << "." << p.name);
        CHECK(p.min_value == 1);
      }
}

TEST_CASE("check_param_ranges checks a layer built without binding", "[graphs][ranges]") {
  const LayerKind& conv = layer_registry().get("conv2d");
  Layer l;
  l.name = "c";
  l.kind = "conv2d";
  l.params["out_channels"] = std::int64_t{8};
  l.params["kernel"] = IntList{3};
  l.params["stride"] = IntList{1, 0};
  CHECK_THROWS_WITH(check_param_ranges(conv.params, l),
                    Contains("parameter 'stride': must be >= 1 (got 0)"));
  l.params["stride"] = IntList{1, 1};
  CHECK_NOTHROW(check_param_ranges(conv.params, l));
}

TEST_CASE("excerpt quotes a short escaped prefix", "[util][ranges]") {
  CHECK(excerpt("stride") == "stride");
  CHECK(excerpt("a\x1b[31mb") == "a\\x1b[31mb");
  const std::string big(100000, 'x');
  const std::string e = excerpt(big);
  CHECK(e.size() < kExcerptChars + 30);
  CHECK_THAT(e, Contains("... (100000 bytes)"));
}

TEST_CASE("sizes that overflow a count are errors, not wrapped numbers", "[graphs][ranges]") {
  // 2^53 images of 3 x 32 x 32 are more than 2^63 elements.
  const Network alexnet = load_network(network_with("- {name: r, kind: relu}"));
  CHECK_THROWS_WITH(lower(bind_sizes(alexnet, {{"batch", std::int64_t{1} << 53}}), {}),
                    Contains("has more than 2^63 elements"));
  // An integer a rule needs exactly (here a weight's element count) is overflow-checked and
  // located at the layer: 2^62 rows of 4 are 2^64 elements.
  CHECK_THAT(error_of("- {name: e, kind: embedding, input: y, num_embeddings: 4611686018427387904, "
                      "embedding_dim: 4}"),
             Contains("layer 'e' (embedding): weight: 4611686018427387904 * 4 overflows 2^63"));
}

TEST_CASE("FLOP and byte counts past 2^63 are exact doubles, not wrapped products",
          "[graphs][ranges]") {
  // The attention scores of a 10^9-token sequence: batch x heads x seq_len^2 =
  // 32 x 12 x 10^18 passes 2^63 (9.2 x 10^18); as doubles the count is exact (10^18 =
  // 2^18 x 5^18, 5^18 < 2^53). Per layer S = Q K^T costs 2 x that x d (d = 768 / 12 = 64).
  const Network bert = load_zoo_network("bert-base");
  const LoweredNetwork net =
      lower(bind_sizes(bert, {{"seq_len", 1000000000}}), {.mode = Mode::kInfer});
  const double scores = 32.0 * 12 * 1e9 * 1e9;
  int seen = 0;
  for (OpId id = 0; id < net.graph.size(); ++id) {
    const Operator& op = net.graph.op(id);
    if (!op.name.ends_with(".scores")) continue;
    ++seen;
    CHECK(op.flops == 2.0 * scores * 64);
    CHECK(op.bytes_written == 4.0 * scores);  // fp32 scores
    CHECK(op.gemm == GemmDims{1000000000, 1000000000, 64, 32 * 12});
  }
  CHECK(seen == 12);
}

TEST_CASE("a repeat past the op limit is an error before it expands", "[graphs][ranges]") {
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: 3, kernel: 1, repeat: 100000000}"),
             Contains("repeat '100000000' evaluates to 100000000") &&
                 Contains("more than 2000000 layers") && Contains("--max-ops"));
  // The limit is the one --max-ops sets: 3 layers are more than 2.
  set_max_ops(2);
  CHECK_THAT(error_of("- {name: c, kind: conv2d, out_channels: 3, kernel: 1, repeat: 3}"),
             Contains("more than 2 layers"));
  set_max_ops(kDefaultMaxOps);
  CHECK(error_of("- {name: c, kind: conv2d, out_channels: 3, kernel: 1, repeat: 3}") == "no error");
}
