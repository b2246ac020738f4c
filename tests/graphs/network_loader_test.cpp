// Network files: every bad input is a located error naming the layer.

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "graphs/network.h"
#include "graphs/zoo.h"
#include "util/error.h"

using namespace amdahl::graphs;
using Catch::Contains;

namespace {
std::string fixture(const std::string& name) {
  return std::string(AMDAHL_FIXTURES) + "/graphs/" + name;
}
std::string error_of(const std::string& name, const Bindings& sizes = {{"width", 20}}) {
  try {
    lower(bind_sizes(load_network(fixture(name)), sizes), {.mode = Mode::kTrain});
  } catch (const amdahl::UserError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a valid network binds its sizes from defaults and overrides", "[graphs][network]") {
  const Network net = load_network(fixture("good.yaml"));
  const BoundNetwork bound = bind_sizes(net, {{"width", 20}, {"batch", 16}});
  CHECK(bound.sizes.at("batch") == 16);
  CHECK(bound.sizes.at("hidden") == 32);
  CHECK(bound.inputs.front().tensor.shape == Shape{16, 20});
  const LoweredNetwork lowered = lower(bound, {.mode = Mode::kTrain});
  CHECK(lowered.parameters == 20 * 32 + 32 + 32 * 10 + 10);
}

TEST_CASE("an unbound size names the size and the option", "[graphs][network]") {
  CHECK_THAT(error_of("good.yaml", {}), Contains("size 'width'") && Contains("--set width=VALUE"));
}

TEST_CASE("an override of an unknown size lists the sizes", "[graphs][network]") {
  CHECK_THAT(error_of("good.yaml", {{"width", 20}, {"hiden", 3}}),
             Contains("no size 'hiden'") && Contains("did you mean 'hidden'"));
}

TEST_CASE("a non-positive size is an error", "[graphs][network]") {
  CHECK_THAT(error_of("good.yaml", {{"width", 20}, {"batch", 0}}), Contains("must be positive"));
}

TEST_CASE("an unknown layer kind is located and lists the known kinds", "[graphs][network]") {
  CHECK_THAT(error_of("unknown_kind.yaml"),
             Contains("unknown_kind.yaml:15:23: layers[2] 'fc2'.kind: unknown layer kind; did you "
                      "mean 'linear'") &&
                 Contains("conv2d"));
}

TEST_CASE("an unknown layer parameter lists the valid ones", "[graphs][network]") {
  CHECK_THAT(error_of("unknown_param.yaml"),
             Contains("unknown_param.yaml:15:31: layers[2] 'fc2'.out_feature: unknown parameter of "
                      "linear; did you mean 'out_features'"));
}

TEST_CASE("a missing input is located at the layer", "[graphs][network]") {
  CHECK_THAT(
      error_of("missing_input.yaml"),
      Contains("missing_input.yaml:16:5: layer 'loss' (softmax_cross_entropy): missing input "
               "'lables'; did you mean 'labels'"));
}

TEST_CASE("a cycle (input defined later) is an error", "[graphs][network]") {
  CHECK_THAT(
      error_of("cycle.yaml"),
      Contains("cycle.yaml:13:5: layer 'fc1' (linear): input 'fc2' is defined after this layer"));
}

TEST_CASE("a shape mismatch names the layer and the shapes", "[graphs][network]") {
  CHECK_THAT(error_of("shape_mismatch.yaml"),
             Contains("shape_mismatch.yaml:16:5: layer 'bad' (add)") && Contains("[8, 32]") &&
                 Contains("[8, 10]"));
}

TEST_CASE("an undeclared size in a shape is located", "[graphs][network]") {
  CHECK_THAT(error_of("undeclared_size.yaml"),
             Contains("undeclared_size.yaml:9:") && Contains("undeclared size 'widht'"));
}

TEST_CASE("malformed YAML is located", "[graphs][network]") {
  CHECK_THAT(error_of("malformed.yaml"), Contains("malformed.yaml:") && Contains("malformed YAML"));
}

TEST_CASE("an unknown zoo model lists the zoo", "[graphs][network]") {
  CHECK_THROWS_WITH(load_zoo_network("alexnt"), Contains("did you mean 'alexnet'"));
}
