#include "model/placement.h"

#include <catch2/catch.hpp>

#include "model/prediction.h"
#include "test_device.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {

// input copy -> embedding -> gemm
graphs::LoweredNetwork embedding_then_gemm() {
  graphs::LoweredNetwork net;
  net.name = "emb";
  auto& g = net.graph;
  const auto in = g.add(test::op(OpClass::kTransfer, 0, 1e6));
  const auto emb = g.add(test::op(OpClass::kEmbedding, 0, 10e6));
  const auto mm = g.add(test::op(OpClass::kGemm, 1e9, 0));
  g.depend(in, emb, 1e6);
  g.depend(emb, mm, 10e6);
  return net;
}

}  // namespace

TEST_CASE("parse_placement: whole-step targets and class maps", "[model][placement]") {
  CHECK(parse_placement("host").all == "host");
  const PlacementSpec s = parse_placement("embedding=cpu0, softmax=host");
  REQUIRE(s.by_class.size() == 2);
  CHECK(s.by_class[0].first == OpClass::kEmbedding);
  CHECK(s.by_class[0].second == "cpu0");
  CHECK(placement_text(s) == "embedding=cpu0,softmax=host");
  CHECK_THROWS_WITH(parse_placement("embeding=host"), Catch::Contains("did you mean 'embedding'"));
  CHECK_THROWS_AS(parse_placement("gemm="), UserError);
}

TEST_CASE("place: unknown targets list the valid ones", "[model][placement]") {
  const auto sys = test::two_device_system();
  const auto net = embedding_then_gemm();
  CHECK_THROWS_WITH(place(net.graph, sys, "", parse_placement("embedding=gpu7")),
                    Catch::Contains("valid: accelerator, host, cpu, gpu0, cpu0"));
}

TEST_CASE("all on the accelerator: the input is copied, then two kernels", "[model][placement]") {
  const auto sys = test::two_device_system();
  const auto net = embedding_then_gemm();
  const Prediction p = predict(net, sys, {});
  // copy 1 MB at 10 GB/s = 100 us; embedding 10 MB at 100 GB/s = 100 us; gemm 1 ms.
  CHECK(p.step_time_s == Approx(100e-6 + 100e-6 + 1e-3));
  CHECK(p.device == "gpu0");
}

TEST_CASE("all on the host: no copies, host rates", "[model][placement]") {
  const auto sys = test::two_device_system();
  const auto net = embedding_then_gemm();
  PredictOptions o;
  o.placement = parse_placement("host");
  const Prediction p = predict(net, sys, o);
  // embedding 100 us (same bandwidth); gemm 1 GFLOP at 10 GFLOP/s = 100 ms.
  CHECK(p.step_time_s == Approx(100e-6 + 0.1));
  CHECK(p.device == "cpu0");
  CHECK(p.schedule.copies.empty());
}

TEST_CASE("embedding on the host: its output crosses the link", "[model][placement]") {
  const auto sys = test::two_device_system();
  const auto net = embedding_then_gemm();
  PredictOptions o;
  o.placement = parse_placement("embedding=host");
  const Prediction p = predict(net, sys, o);
  // The input copy costs nothing (its only consumer runs on the host); embedding 100 us on
  // the host; its 10 MB output copied h2d in 1 ms; gemm 1 ms.
  REQUIRE(p.schedule.copies.size() == 1);
  CHECK(p.schedule.copies[0].to_device);
  CHECK(p.step_time_s == Approx(100e-6 + 1e-3 + 1e-3));
  CHECK(p.by_class[OpClass::kTransfer] == Approx(1e-3));
}
