// The autocast table (graphs/autocast.h): one row per registered layer kind, and the rows
// that PyTorch's op lists pin down.

#include "graphs/autocast.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "graphs/layer_kind.h"
#include "graphs/network.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;

TEST_CASE("every registered layer kind has exactly one autocast rule", "[graphs][autocast]") {
  std::set<std::string> rows;
  for (const AutocastRule& r : autocast_rules()) {
    INFO(r.kind);
    CHECK(rows.insert(std::string(r.kind)).second);
    CHECK(layer_registry().find(std::string(r.kind)) != nullptr);  // no row for a stale kind
    CHECK_FALSE(r.pytorch.empty());
  }
  for (const auto& [name, kind] : layer_registry().kinds()) {
    INFO(name);
    CHECK(rows.count(name) == 1);
    CHECK_NOTHROW(autocast_rule(name));
  }
  CHECK(rows.size() == layer_registry().kinds().size());
}

TEST_CASE("autocast rules follow PyTorch's lists", "[graphs][autocast]") {
  using P = AutocastPolicy;
  // CUDA lower_precision_fp list.
  for (const char* kind :
       {"conv2d", "conv_transpose2d", "linear", "matmul", "lstm", "gru", "rnn", "attention"}) {
    INFO(kind);
    CHECK(autocast_rule(kind).policy == P::kLowerPrecision);
  }
  // CUDA fp32 and fp32_set_opt_dtype lists, and the losses built on them.
  for (const char* kind :
       {"layer_norm", "softmax", "softmax_cross_entropy", "mse", "td_huber", "ctc", "reduce_sum",
        "reduce_prod", "exp", "log", "pow_scalar", "softplus", "reciprocal"}) {
    INFO(kind);
    CHECK(autocast_rule(kind).policy == P::kFp32);
  }
  // On no list: batch norm (cuDNN takes 16-bit input with fp32 scale and shift), pooling,
  // activations, elementwise arithmetic, embedding.
  for (const char* kind : {"batchnorm2d", "instance_norm", "maxpool2d", "avgpool2d", "relu", "gelu",
                           "add", "mul", "embedding", "reduce_mean", "flatten"}) {
    INFO(kind);
    CHECK(autocast_rule(kind).policy == P::kFollow);
  }
  CHECK(autocast_rule("cast").policy == P::kExplicit);
  // Where PyTorch 1.13's CPU lists differ (read off torch on the CPU).
  CHECK(autocast_rule("softmax").cpu == P::kFollow);
  CHECK(autocast_rule("layer_norm").cpu == P::kFollow);
  CHECK(autocast_rule("lstm").cpu == P::kFollow);
  CHECK(autocast_rule("conv_transpose2d").cpu == P::kFp32);
}

TEST_CASE("a kind without an autocast rule is an internal error naming it", "[graphs][autocast]") {
  CHECK_THROWS_AS(autocast_rule("no_such_kind"), InternalError);
  CHECK_THROWS_WITH(autocast_rule("no_such_kind"),
                    Catch::Contains("no_such_kind") && Catch::Contains("graphs/autocast.cpp"));
}

TEST_CASE("the harness network uses kinds whose CPU and CUDA autocast agree",
          "[graphs][autocast]") {
  // validate/harness/autocast_casts.py checks this network against PyTorch's CPU autocast;
  // the check stands for CUDA only where the two policies agree.
  const Network net = load_network(std::string(AMDAHL_FIXTURES) + "/graphs/autocast_convnet.yaml");
  const BoundNetwork bound = bind_sizes(net, {});
  for (const Layer& layer : bound.layers) {
    INFO(layer.name << " " << layer.kind);
    CHECK(autocast_rule(layer.kind).cpu == autocast_rule(layer.kind).policy);
  }
}
