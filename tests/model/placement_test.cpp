#include "model/placement.h"

#include <catch2/catch.hpp>

#include "model/prediction.h"
#include "test_device.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::model;

namespace {

// cpu0 (10 GFLOP/s) <-> gpu0 (1 TFLOP/s) over a 10 GB/s link with 0 latency.
hw::SystemSpec two_device_system() {
  hw::SystemSpec s;
  s.name = "pair";
  hw::DeviceSpec gpu = test::round_device();
  gpu.name = "gpu0";
  hw::DeviceSpec cpu = test::round_device();
  cpu.name = "cpu0";
  cpu.kind = hw::DeviceKind::kCpu;
  cpu.peak[Precision::kFp32] = {10e9, hw::ComputeUnit::kSimd};
  s.devices = {cpu, gpu};
  hw::LinkSpec l;
  l.name = "cpu0-gpu0";
  l.from = "cpu0";
  l.to = "gpu0";
  l.bandwidth_bytes_per_s = 10e9;
  l.h2d_pinned = l.d2h_pinned = l.h2d_pageable = l.d2h_pageable = 10e9;
  l.calibrated = true;
  s.links = {l};
  s.runtime.name = "rt";
  s.runtime.sync = hw::SyncPoint::kNone;
  s.runtime.calibrated = true;
  s.default_device = "gpu0";
  return s;
}

graphs::Operator op(graphs::OpClass c, double flops, double out_bytes) {
  graphs::Operator o;
  o.name = std::string(graphs::op_class_name(c));
  o.op_class = c;
  o.flops = flops;
  o.bytes_written = out_bytes;
  return o;
}

// input copy -> embedding -> gemm
graphs::LoweredNetwork embedding_then_gemm() {
  graphs::LoweredNetwork net;
  net.name = "emb";
  auto& g = net.graph;
  const auto in = g.add(op(graphs::OpClass::kTransfer, 0, 1e6));
  const auto emb = g.add(op(graphs::OpClass::kEmbedding, 0, 10e6));
  const auto mm = g.add(op(graphs::OpClass::kGemm, 1e9, 0));
  g.depend(in, emb, 1e6);
  g.depend(emb, mm, 10e6);
  return net;
}

}  // namespace

TEST_CASE("parse_placement: whole-step targets and class maps", "[model][placement]") {
  CHECK(parse_placement("host").all == "host");
  const PlacementSpec s = parse_placement("embedding=cpu0, softmax=host");
  REQUIRE(s.by_class.size() == 2);
  CHECK(s.by_class[0].first == graphs::OpClass::kEmbedding);
  CHECK(s.by_class[0].second == "cpu0");
  CHECK(placement_text(s) == "embedding=cpu0,softmax=host");
  CHECK_THROWS_WITH(parse_placement("embeding=host"), Catch::Contains("did you mean 'embedding'"));
  CHECK_THROWS_AS(parse_placement("gemm="), UserError);
}

TEST_CASE("place: unknown targets list the valid ones", "[model][placement]") {
  const auto sys = two_device_system();
  const auto net = embedding_then_gemm();
  CHECK_THROWS_WITH(place(net.graph, sys, "", parse_placement("embedding=gpu7")),
                    Catch::Contains("valid: accelerator, host, cpu, gpu0, cpu0"));
}

TEST_CASE("all on the accelerator: the input is copied, then two kernels", "[model][placement]") {
  const auto sys = two_device_system();
  const auto net = embedding_then_gemm();
  const Prediction p = predict(net, sys, {});
  // copy 1 MB at 10 GB/s = 100 us; embedding 10 MB at 100 GB/s = 100 us; gemm 1 ms.
  CHECK(p.step_time_s == Approx(100e-6 + 100e-6 + 1e-3));
  CHECK(p.device == "gpu0");
}

TEST_CASE("all on the host: no copies, host rates", "[model][placement]") {
  const auto sys = two_device_system();
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
  const auto sys = two_device_system();
  const auto net = embedding_then_gemm();
  PredictOptions o;
  o.placement = parse_placement("embedding=host");
  const Prediction p = predict(net, sys, o);
  // The input copy costs nothing (its only consumer runs on the host); embedding 100 us on
  // the host; its 10 MB output copied h2d in 1 ms; gemm 1 ms.
  REQUIRE(p.schedule.copies.size() == 1);
  CHECK(p.schedule.copies[0].to_device);
  CHECK(p.step_time_s == Approx(100e-6 + 1e-3 + 1e-3));
  CHECK(p.by_class.at("transfer") == Approx(1e-3));
}
