// Network files with `blocks:` and `repeat:`: every bad use is a located error naming the
// key path (fixtures: tests/fixtures/graphs/block_*.yaml, repeat_*.yaml, each a one-line
// change of blocks_good.yaml).

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "graphs/network.h"
#include "util/error.h"

using namespace amdahl::graphs;
using Catch::Contains;

namespace {
std::string fixture(const std::string& name) {
  return std::string(AMDAHL_FIXTURES) + "/graphs/" + name;
}
std::string error_of(const std::string& name) {
  try {
    lower(bind_sizes(load_network(fixture(name)), {}), {.mode = Mode::kTrain});
  } catch (const amdahl::UserError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a valid block repeated expands into named copies", "[graphs][network][blocks]") {
  const BoundNetwork net = bind_sizes(load_network(fixture("blocks_good.yaml")), {});
  // depth 2 copies of {fc, act}: copy 0 prefixed body.0, the last copy prefixed body; plus
  // head and loss.
  REQUIRE(net.layers.size() == 2 * 2 + 2);
  const auto net_lowered = lower(net, {.mode = Mode::kTrain});
  CHECK(net_lowered.parameters == 2 * (16 * 16 + 16) + 16 * 3 + 3);
}

TEST_CASE("an unknown block is located and suggests the defined ones",
          "[graphs][network][blocks]") {
  CHECK_THAT(error_of("block_unknown.yaml"),
             Contains("block_unknown.yaml:20:25: layers[0] 'body'.block: unknown block") &&
                 Contains("did you mean 'mlp_block'") && Contains("(got 'mlp_blok')"));
}

TEST_CASE("a block parameter left out is located at the instance", "[graphs][network][blocks]") {
  CHECK_THAT(error_of("block_missing_param.yaml"),
             Contains("block_missing_param.yaml:20:5: layers[0] 'body'.width: parameter of block "
                      "mlp_block is missing"));
}

TEST_CASE("an unknown parameter of a block lists the valid ones", "[graphs][network][blocks]") {
  CHECK_THAT(error_of("block_unknown_param.yaml"),
             Contains("block_unknown_param.yaml:20:51: layers[0] 'body'.widht: unknown parameter "
                      "of mlp_block; did you mean 'width'"));
}

TEST_CASE("a block output that is not one of its layers", "[graphs][network][blocks]") {
  CHECK_THAT(error_of("block_bad_output.yaml"),
             Contains("block_bad_output.yaml:15:13: blocks.mlp_block.output: not a layer of the "
                      "block; did you mean 'fc'") &&
                 Contains("(got 'fcc')"));
}

TEST_CASE("a block instance with more inputs than the block declares",
          "[graphs][network][blocks]") {
  CHECK_THAT(error_of("block_too_many_inputs.yaml"),
             Contains("block_too_many_inputs.yaml:20:5: layer 'body': block mlp_block takes 1 "
                      "input(s) (got 2)"));
}

TEST_CASE("a name inside a block that is neither a size nor a block parameter",
          "[graphs][network][blocks]") {
  CHECK_THAT(error_of("block_undeclared_name.yaml"),
             Contains("block_undeclared_name.yaml:17:") &&
                 Contains("blocks.mlp_block.layers[0] 'fc'.out_features") && Contains("widht"));
}

TEST_CASE("repeat with an undeclared size is located", "[graphs][network][blocks]") {
  CHECK_THAT(error_of("repeat_undeclared_size.yaml"), Contains("repeat_undeclared_size.yaml:20:") &&
                                                          Contains("layers[0].repeat") &&
                                                          Contains("dept"));
}

TEST_CASE("repeat evaluating below zero is located", "[graphs][network][blocks]") {
  CHECK_THAT(error_of("repeat_negative.yaml"),
             Contains("repeat_negative.yaml:20:5: layer 'body': repeat 'depth - 3' evaluates to "
                      "-1 (must be >= 0)"));
}

TEST_CASE("a layer with both kind and block", "[graphs][network][blocks]") {
  CHECK_THAT(error_of("block_and_kind.yaml"),
             Contains("block_and_kind.yaml:20:5: layers[0] 'body': give `kind` or `block`, not "
                      "both"));
}
