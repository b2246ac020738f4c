// The host runtime (hw::RuntimeSpec, model/host_runtime.h): schema errors located at the key,
// the accessors' fallbacks, the host time of each op of a small lowered network, and the
// host/device overlap of whole steps through predict(), each against a value computed by hand
// from the fixture's numbers (tests/fixtures/hw/host_runtime_system.yaml, the network
// tests/fixtures/graphs/host_runtime_mlp.yaml).

#include "model/host_runtime.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/assumption_text.h"
#include "graphs/network.h"
#include "graphs/zoo.h"
#include "hw/system_loader.h"
#include "model/prediction.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::model;

using Catch::Contains;

namespace {

// Sums of a few dozen doubles: only rounding separates the model from the formulas.
constexpr double kRel = 1e-12;

constexpr double kUs = 1e-6;

// tests/fixtures/hw/host_runtime_system.yaml, runtime block.
constexpr double kDispatch = 11 * kUs;  // dispatch_per_op (transfer, data_movement: no entry)
constexpr double kGemmHost = 40 * kUs;
constexpr double kGemmBackward = 30 * kUs;
constexpr double kEltHost = 20 * kUs;
constexpr double kEltBackward = 15 * kUs;
constexpr double kSoftmaxHost = 50 * kUs;
constexpr double kSoftmaxBackward = 45 * kUs;
constexpr int kSoftmaxKernels = 2;
constexpr double kReductionHost = 25 * kUs;  // no `backward`: the backward op costs `host`
constexpr double kBackwardNode = 7 * kUs;
constexpr double kAccumulateGrad = 3 * kUs;
constexpr double kZeroGrad = 2 * kUs;  // zero_grad_per_param
constexpr double kOptStep = 60 * kUs;
constexpr double kOptPerParam = 9 * kUs;
constexpr double kSync = 5 * kUs;

// tests/fixtures/hw/host_runtime_device.yaml: roofline fractions of 1, no latency terms.
constexpr double kPeak = 1e12;        // FLOP/s, fp32 and bf16
constexpr double kBandwidth = 100e9;  // B/s
constexpr double kLaunch = 2 * kUs;   // per kernel

// tests/fixtures/hw/host_runtime_minimal.yaml
constexpr double kMinimalDispatch = 8 * kUs;
constexpr double kDefaultSync = 10 * kUs;  // the schema's default sync_latency

// host_runtime_mlp: fc1 and fc2 have a weight and a bias each.
constexpr int kTensors = 4;
constexpr int kTensorsPerLinear = 2;

std::string hw_fixture(const std::string& name) {
  return std::string(AMDAHL_FIXTURES) + "/hw/" + name;
}

hw::SystemSpec load(const std::string& name) { return hw::load_system(hw_fixture(name)); }

struct NetOptions {
  graphs::Mode mode = graphs::Mode::kTrain;
  Precision precision = Precision::kFp32;
  bool fused_optimizer = false;
  std::int64_t batch = 4;
  std::int64_t hidden = 8;
};

graphs::LoweredNetwork mlp(const NetOptions& o) {
  const graphs::Network net =
      graphs::load_network(std::string(AMDAHL_FIXTURES) + "/graphs/host_runtime_mlp.yaml");
  graphs::LoweringOptions lo;
  lo.mode = o.mode;
  lo.precision = o.precision;
  lo.fused_optimizer = o.fused_optimizer;
  return graphs::lower(graphs::bind_sizes(net, {{"batch", o.batch}, {"hidden", o.hidden}}), lo);
}

graphs::OpId op_id(const graphs::LoweredNetwork& net, std::string_view name) {
  for (graphs::OpId id = 0; id < net.graph.size(); ++id)
    if (net.graph.op(id).name == name) return id;
  FAIL("no op named " << name);
  return graphs::kNoOp;
}

std::vector<bool> all_on_device(const graphs::LoweredNetwork& net) {
  return std::vector<bool>(net.graph.size(), true);
}

PredictOptions predict_options(graphs::Mode mode, std::int64_t batch) {
  PredictOptions o;
  o.mode = mode;
  o.batch = batch;
  return o;
}

// The roofline on the round device: the larger of compute and memory time (fractions of 1, no
// cache or tile terms) plus one launch per kernel.
double device_time(const graphs::Operator& op, int kernels = 1) {
  return std::max(op.flops / kPeak, (op.bytes_read + op.bytes_written) / kBandwidth) +
         kLaunch * kernels;
}

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

// Whether an assumption, in words, holds `text`.
bool contains_line(const std::vector<Assumption>& assumptions, std::string_view text) {
  const std::vector<std::string> lines = cli::assumption_lines(assumptions);
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Schema

TEST_CASE("runtime schema: each mistake is located, names its key and lists the valid ones",
          "[host_runtime][hw][schema]") {
  const std::string file = "system_bad_host_runtime.yaml";
  std::string message;
  std::size_t count = 0;
  try {
    hw::load_system(hw_fixture(file));
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    message = e.what();
    count = e.items().size();
  }
  // Every mistake of the file in one error (the loader reports them together).
  CHECK(count == 6);
  const std::string classes =
      "valid: gemm, conv, rnn, attention, elementwise, normalization, reduction, softmax, "
      "embedding, pooling, data_movement, transfer, host, communication";
  // An op family that is not an op class: no close name ('conv' is 7 edits away), the classes
  // listed, `optimizer` not among them (the optimizer has its own block).
  CHECK_THAT(message, Contains(file + ":12:5: runtime.ops.convolution: unknown key; " + classes +
                               " (got 'convolution')"));
  CHECK_THAT(message, Contains(file + ":15:5: runtime.ops.optimizer: unknown key; " + classes +
                               " (got 'optimizer')"));
  CHECK_THAT(message,
             Contains(file + ":13:18: runtime.ops.gemm.host: must not be negative (got '-5 us')"));
  CHECK_THAT(message, Contains(file + ":14:25: runtime.ops.elementwise.host: expected a time") &&
                          Contains("(got a plain number '5')"));
  CHECK_THAT(message,
             Contains(file + ":17:5: runtime.engine.backward: unknown key; did you mean "
                             "'backward_node'? valid: backward_node, accumulate_grad, "
                             "zero_grad_per_param, autocast_cast, graph_replay, autograd_record, "
                             "module_call (got 'backward')"));
  CHECK_THAT(message, Contains(file + ":18:21: runtime.optimizer.impl: unknown value; valid: "
                                      "loop, foreach, fused (got 'adamw')"));
}

// ---------------------------------------------------------------------------------------------
// Loader semantics: absent values resolve through the accessors

TEST_CASE("a runtime of the required keys only resolves every cost through its fallback",
          "[host_runtime][hw]") {
  hw::SystemSpec s = load("host_runtime_minimal.yaml");
  hw::RuntimeSpec& rt = s.runtime;
  CHECK(rt.dispatch_per_op_s == Approx(kMinimalDispatch).epsilon(kRel));
  for (int i = 0; i < kOpClassCount; ++i) {
    const auto c = static_cast<OpClass>(i);
    CAPTURE(op_class_name(c));
    CHECK_FALSE(rt.op_given(c));
    CHECK(rt.op_host_s(c, false) == rt.dispatch_per_op_s);
    CHECK(rt.op_host_s(c, true) == rt.dispatch_per_op_s);
    CHECK(rt.op_kernels(c) == 1);
  }
  for (const hw::EngineCostSpec& e : hw::engine_cost_specs()) CHECK_FALSE(rt.cost_given(e.cost));
  CHECK(rt.cost(hw::EngineCost::kBackwardNode) == 0);
  CHECK(rt.cost(hw::EngineCost::kAccumulateGrad) == 0);
  CHECK(rt.cost(hw::EngineCost::kZeroGradPerParam) == 0);
  CHECK(rt.cost(hw::EngineCost::kAutocastCast) == rt.dispatch_per_op_s);  // data_movement's
  CHECK(rt.cost(hw::EngineCost::kGraphReplay) == rt.dispatch_per_op_s);
  CHECK(rt.cost(hw::EngineCost::kAutogradRecord) == 0);
  CHECK(rt.cost(hw::EngineCost::kModuleCall) == 0);
  // The optimizer block absent: a loop whose update calls cost one dispatch each, no step.
  CHECK(rt.optimizer.impl == hw::OptimizerImpl::kLoop);
  CHECK_FALSE(rt.optimizer.step_s);
  CHECK_FALSE(rt.optimizer.per_param_s);
  CHECK(rt.optimizer.kernels == 1);
  CHECK(rt.optimizer_step_s() == 0);
  CHECK(rt.optimizer_per_param_s() == rt.dispatch_per_op_s);
  // Schema defaults, recorded as assumptions.
  CHECK(rt.sync_latency_s == Approx(kDefaultSync).epsilon(kRel));
  CHECK(rt.sync == hw::SyncPoint::kEndOfStep);
  CHECK_FALSE(rt.graph_capture);
  CHECK_FALSE(rt.compile);
  CHECK(rt.pinned_inputs);
  CHECK(contains_line(rt.assumptions, "sync_latency = 10 us"));

  SECTION("a what-if on dispatch_per_op moves everything that falls back on it") {
    rt.dispatch_per_op_s = 20 * kUs;
    CHECK(rt.op_host_s(OpClass::kGemm, false) == 20 * kUs);
    CHECK(rt.op_host_s(OpClass::kConv, true) == 20 * kUs);
    CHECK(rt.cost(hw::EngineCost::kAutocastCast) == 20 * kUs);
    CHECK(rt.cost(hw::EngineCost::kGraphReplay) == 20 * kUs);
    CHECK(rt.optimizer_per_param_s() == 20 * kUs);
    CHECK(rt.optimizer_step_s() == 0);
    CHECK(rt.cost(hw::EngineCost::kBackwardNode) == 0);
  }
  SECTION("foreach and fused: one dispatch per step, nothing per tensor") {
    for (const hw::OptimizerImpl impl : {hw::OptimizerImpl::kForeach, hw::OptimizerImpl::kFused}) {
      rt.optimizer.impl = impl;
      CAPTURE(hw::optimizer_impl_name(impl));
      CHECK(rt.optimizer_step_s() == rt.dispatch_per_op_s);
      CHECK(rt.optimizer_per_param_s() == 0);
    }
  }
}

TEST_CASE("a runtime's given values are read, and each absent one falls back on its own",
          "[host_runtime][hw]") {
  hw::SystemSpec s = load("host_runtime_system.yaml");
  hw::RuntimeSpec& rt = s.runtime;
  CHECK(rt.name == "rt-fixture");
  CHECK(rt.dispatch_per_op_s == Approx(kDispatch).epsilon(kRel));
  CHECK(rt.op_host_s(OpClass::kGemm, false) == Approx(kGemmHost).epsilon(kRel));
  CHECK(rt.op_host_s(OpClass::kGemm, true) == Approx(kGemmBackward).epsilon(kRel));
  CHECK(rt.op_kernels(OpClass::kGemm) == 1);  // the schema's default
  CHECK(rt.op_kernels(OpClass::kSoftmax) == kSoftmaxKernels);
  // No `backward`: the backward op costs the forward call's host time.
  CHECK(rt.op_host_s(OpClass::kReduction, true) == Approx(kReductionHost).epsilon(kRel));
  CHECK(rt.op_given(OpClass::kReduction));
  CHECK(rt.ops[static_cast<std::size_t>(OpClass::kReduction)]->source == "fixture");
  // No entry: dispatch_per_op.
  CHECK_FALSE(rt.op_given(OpClass::kTransfer));
  CHECK(rt.op_host_s(OpClass::kTransfer, false) == rt.dispatch_per_op_s);

  CHECK(rt.cost(hw::EngineCost::kBackwardNode) == Approx(kBackwardNode).epsilon(kRel));
  CHECK(rt.cost(hw::EngineCost::kAccumulateGrad) == Approx(kAccumulateGrad).epsilon(kRel));
  CHECK(rt.cost(hw::EngineCost::kZeroGradPerParam) == Approx(kZeroGrad).epsilon(kRel));
  CHECK(rt.cost_given(hw::EngineCost::kBackwardNode));
  CHECK(rt.engine_sources[static_cast<std::size_t>(hw::EngineCost::kBackwardNode)] == "fixture");
  CHECK_FALSE(rt.cost_given(hw::EngineCost::kGraphReplay));
  CHECK(rt.cost(hw::EngineCost::kGraphReplay) == rt.dispatch_per_op_s);
  CHECK(rt.sync_latency_s == Approx(kSync).epsilon(kRel));

  SECTION("autocast_cast absent: the data_movement class's host time, itself a fallback") {
    CHECK_FALSE(rt.cost_given(hw::EngineCost::kAutocastCast));
    CHECK(rt.cost(hw::EngineCost::kAutocastCast) == rt.dispatch_per_op_s);
    rt.ops[static_cast<std::size_t>(OpClass::kDataMovement)] =
        hw::OpHostCost{.host_s = 13 * kUs, .backward_s = 17 * kUs};
    CHECK(rt.cost(hw::EngineCost::kAutocastCast) == 13 * kUs);  // the forward call's
    rt.engine[static_cast<std::size_t>(hw::EngineCost::kAutocastCast)] = 4 * kUs;
    CHECK(rt.cost(hw::EngineCost::kAutocastCast) == 4 * kUs);
  }
  SECTION("given optimizer costs do not depend on the implementation") {
    CHECK(rt.optimizer.impl == hw::OptimizerImpl::kLoop);
    CHECK(rt.optimizer.source == "fixture");
    for (const hw::OptimizerImpl impl :
         {hw::OptimizerImpl::kLoop, hw::OptimizerImpl::kForeach, hw::OptimizerImpl::kFused}) {
      rt.optimizer.impl = impl;
      CHECK(rt.optimizer_step_s() == Approx(kOptStep).epsilon(kRel));
      CHECK(rt.optimizer_per_param_s() == Approx(kOptPerParam).epsilon(kRel));
    }
    // Only step given, on a loop: per_param falls back to dispatch_per_op.
    rt.optimizer.impl = hw::OptimizerImpl::kLoop;
    rt.optimizer.per_param_s.reset();
    CHECK(rt.optimizer_per_param_s() == rt.dispatch_per_op_s);
    CHECK(rt.optimizer_step_s() == Approx(kOptStep).epsilon(kRel));
  }
}

// ---------------------------------------------------------------------------------------------
// host_runtime() on the lowered network

TEST_CASE("eager training step: per-op host times, backward nodes, loop optimizer, zero_grad",
          "[host_runtime]") {
  const hw::SystemSpec s = load("host_runtime_system.yaml");
  const graphs::LoweredNetwork net = mlp({});
  const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
  REQUIRE(net.weights.size() == kTensors);
  REQUIRE(net.graph.size() == 19);

  // The backward pass runs loss, fc2, sig, relu, fc1: each layer's first backward op is its
  // autograd node (+ backward_node), and the nodes of fc1 and fc2 accumulate 2 tensors each.
  const double node = kBackwardNode;
  const double linear_node = kBackwardNode + kTensorsPerLinear * kAccumulateGrad;
  const std::vector<std::pair<std::string_view, double>> expected{
      {"input.features.h2d", kDispatch},  // transfer: no ops entry
      {"input.labels.h2d", kDispatch},
      {"fc1.fwd", kGemmHost},
      {"relu.fwd", kEltHost},
      {"sig.fwd", kEltHost},
      {"fc2.fwd", kGemmHost},
      {"loss.fwd", kSoftmaxHost},
      {"loss.bwd", kSoftmaxBackward + node},  // loss: no parameters
      {"fc2.bwd_data", kGemmBackward + linear_node},
      {"fc2.bwd_weight", kGemmBackward},
      {"fc2.bwd_bias", kReductionHost},  // reduction: backward = host
      {"sig.bwd", kEltBackward + node},
      {"relu.bwd", kEltBackward + node},
      {"fc1.bwd_weight", kGemmBackward + linear_node},  // fc1 has no data gradient
      {"fc1.bwd_bias", kReductionHost},
      // loop: one call per tensor, the step's own host time on the first
      {"fc1.weight.update", kOptStep + kOptPerParam},
      {"fc1.bias.update", kOptPerParam},
      {"fc2.weight.update", kOptPerParam},
      {"fc2.bias.update", kOptPerParam},
  };
  double total = 0;
  for (const auto& [name, issue] : expected) {
    CAPTURE(name);
    const graphs::OpId id = op_id(net, name);
    CHECK(h.issue_s[id] == Approx(issue).epsilon(kRel));
    total += issue;
  }
  // = 2 x 11 + 2 x 40 + 2 x 20 + 50 + (45 + 7) + (30 + 13) + 30 + 25 + 2 x (15 + 7)
  //   + (30 + 13) + 25 + (60 + 9) + 3 x 9 = 550 us
  CHECK(total == Approx(550 * kUs).epsilon(kRel));
  CHECK(sum(h.issue_s) == Approx(total).epsilon(kRel));
  // zero_grad at the step's start, once per parameter tensor.
  CHECK(h.step_start_s == Approx(kTensors * kZeroGrad).epsilon(kRel));

  // Kernels per op: the softmax entry's 2 on both loss ops, 1 elsewhere; no fusion eagerly.
  for (graphs::OpId id = 0; id < net.graph.size(); ++id) {
    CAPTURE(net.graph.op(id).name);
    CHECK(h.kernels[id] == (net.graph.op(id).op_class == OpClass::kSoftmax ? kSoftmaxKernels : 1));
  }
  CHECK(h.fused_into.empty());
  // Only the transfer class went without an entry; every engine cost used was given.
  REQUIRE(h.assumptions.size() == 1);
  CHECK_THAT(cli::assumption_text(h.assumptions[0]),
             Contains("runtime rt-fixture: no host cost given for op classes "
                      "transfer; dispatch_per_op (11 us) applies"));
}

TEST_CASE("inference: forward host times only, no step-start work", "[host_runtime]") {
  const hw::SystemSpec s = load("host_runtime_system.yaml");
  const graphs::LoweredNetwork net = mlp({.mode = graphs::Mode::kInfer});
  const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
  REQUIRE(net.graph.size() == 6);
  // 2 transfers + fc1 + relu + sig + fc2 = 2 x 11 + 40 + 20 + 20 + 40 = 142 us
  CHECK(sum(h.issue_s) == Approx(2 * kDispatch + 2 * kGemmHost + 2 * kEltHost).epsilon(kRel));
  CHECK(h.step_start_s == 0);
}

TEST_CASE("foreach and fused optimizers: one update op costs step + per_param x tensors",
          "[host_runtime]") {
  hw::SystemSpec s = load("host_runtime_system.yaml");
  // As the CLI lowers for a runtime whose optimizer is not a loop: one update op per step.
  const graphs::LoweredNetwork net = mlp({.fused_optimizer = true});
  const graphs::OpId update = op_id(net, "optimizer.update");
  for (const hw::OptimizerImpl impl : {hw::OptimizerImpl::kForeach, hw::OptimizerImpl::kFused}) {
    CAPTURE(hw::optimizer_impl_name(impl));
    s.runtime.optimizer.impl = impl;
    s.runtime.optimizer.kernels = 9;
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    // 60 + 9 x 4 = 96 us
    CHECK(h.issue_s[update] == Approx(kOptStep + kOptPerParam * kTensors).epsilon(kRel));
    CHECK(h.kernels[update] == 9);
    // The loop's four updates cost the same, 60 + 4 x 9 us: the step is again 550 us.
    CHECK(sum(h.issue_s) == Approx(550 * kUs).epsilon(kRel));
  }
  SECTION("absent step and per_param: one dispatch per step") {
    s.runtime.optimizer.impl = hw::OptimizerImpl::kForeach;
    s.runtime.optimizer.step_s.reset();
    s.runtime.optimizer.per_param_s.reset();
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    CHECK(h.issue_s[update] == Approx(kDispatch).epsilon(kRel));
  }
}

TEST_CASE("loop optimizer with fallbacks: dispatch per tensor, no step", "[host_runtime]") {
  hw::SystemSpec s = load("host_runtime_minimal.yaml");
  const graphs::LoweredNetwork net = mlp({});
  const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
  for (const char* name :
       {"fc1.weight.update", "fc1.bias.update", "fc2.weight.update", "fc2.bias.update"}) {
    CAPTURE(name);
    CHECK(h.issue_s[op_id(net, name)] == Approx(kMinimalDispatch).epsilon(kRel));
  }
  // Every op one dispatch (19 ops); engine costs all 0; zero_grad 0.
  CHECK(sum(h.issue_s) == Approx(19 * kMinimalDispatch).epsilon(kRel));
  CHECK(h.step_start_s == 0);
  // The engine costs used and not given are named with their fallbacks; a runtime with no
  // `ops` entry at all is not told class by class.
  REQUIRE(h.assumptions.size() == 1);
  CHECK_THAT(cli::assumption_text(h.assumptions[0]),
             Contains("runtime rt-minimal: no host cost given for "
                      "backward_node (0), accumulate_grad (0), "
                      "zero_grad_per_param (0)"));
}

TEST_CASE("graph capture: no per-op host time, the step starts with one graph replay",
          "[host_runtime]") {
  hw::SystemSpec s = load("host_runtime_system.yaml");
  s.runtime.graph_capture = true;
  const graphs::LoweredNetwork net = mlp({});
  {
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    for (graphs::OpId id = 0; id < net.graph.size(); ++id) CHECK(h.issue_s[id] == 0);
    // graph_replay absent: dispatch_per_op, and said so (zero_grad is inside the graph).
    CHECK(h.step_start_s == Approx(kDispatch).epsilon(kRel));
    CHECK(contains_line(h.assumptions, "graph_replay (dispatch_per_op)"));
    CHECK_FALSE(contains_line(h.assumptions, "zero_grad"));
    CHECK_FALSE(contains_line(h.assumptions, "op classes"));
    // The kernels are still launched (from the graph).
    CHECK(h.kernels[op_id(net, "loss.fwd")] == kSoftmaxKernels);
  }
  s.runtime.engine[static_cast<std::size_t>(hw::EngineCost::kGraphReplay)] = 30 * kUs;
  const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
  CHECK(h.step_start_s == Approx(30 * kUs).epsilon(kRel));
  CHECK(h.assumptions.empty());
}

TEST_CASE("compile fuses an elementwise op into its only elementwise producer", "[host_runtime]") {
  hw::SystemSpec s = load("host_runtime_system.yaml");
  s.runtime.compile = true;

  SECTION("inference: sig.fwd joins relu.fwd's kernel") {
    const graphs::LoweredNetwork net = mlp({.mode = graphs::Mode::kInfer});
    const graphs::OpId relu = op_id(net, "relu.fwd");
    const graphs::OpId sig = op_id(net, "sig.fwd");
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    REQUIRE(h.fused_into.size() == net.graph.size());
    for (graphs::OpId id = 0; id < net.graph.size(); ++id) {
      CAPTURE(net.graph.op(id).name);
      CHECK(h.fused_into[id] == (id == sig ? relu : graphs::kNoOp));
      CHECK(h.kernels[id] == (id == sig ? 0 : 1));
    }
    CHECK(h.issue_s[sig] == 0);
    // relu.fwd itself follows a GEMM: issued and launched as usual.
    CHECK(h.issue_s[relu] == Approx(kEltHost).epsilon(kRel));
    // 2 transfers + 2 GEMMs + relu; sig costs nothing.
    CHECK(sum(h.issue_s) == Approx(2 * kDispatch + 2 * kGemmHost + kEltHost).epsilon(kRel));

    // Fusion happens on the device only.
    for (const graphs::OpId off : {relu, sig}) {
      std::vector<bool> on_device = all_on_device(net);
      on_device[off] = false;
      const HostRuntime moved = host_runtime(net, s.runtime, on_device);
      CHECK(moved.fused_into[sig] == graphs::kNoOp);
      CHECK(moved.issue_s[sig] == Approx(kEltHost).epsilon(kRel));
      CHECK(moved.kernels[sig] == 1);
    }
  }
  SECTION("training: relu.fwd's output is also read by relu.bwd, so sig.fwd is not fused") {
    const graphs::LoweredNetwork net = mlp({});
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    const graphs::OpId sig = op_id(net, "sig.fwd");
    CHECK(h.fused_into[sig] == graphs::kNoOp);
    CHECK(h.issue_s[sig] == Approx(kEltHost).epsilon(kRel));
    CHECK(h.kernels[sig] == 1);
    // A GEMM is never fused, whatever feeds it.
    CHECK(h.fused_into[op_id(net, "fc2.fwd")] == graphs::kNoOp);
  }
}

TEST_CASE("autocast's casts cost engine.autocast_cast and in backward each is an autograd node",
          "[host_runtime]") {
  hw::SystemSpec s = load("host_runtime_system.yaml");
  const graphs::LoweredNetwork net = mlp({.precision = Precision::kBf16});
  auto is_cast = [](const graphs::Operator& op) {
    return op.kind == "cast" || op.kind == "weight_cast" || op.kind == "grad_cast";
  };
  std::size_t casts = 0;
  for (graphs::OpId id = 0; id < net.graph.size(); ++id) casts += is_cast(net.graph.op(id));
  // features -> bf16, fc2 -> fp32 (forward and backward), 4 weight casts, 4 gradient casts.
  REQUIRE(casts == 11);

  for (const double cast : {kDispatch, 4 * kUs}) {
    // First absent (the data_movement class's host time, here dispatch_per_op), then given.
    if (cast != kDispatch)
      s.runtime.engine[static_cast<std::size_t>(hw::EngineCost::kAutocastCast)] = cast;
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    // A cast in the backward pass (PyTorch's ToCopyBackward0 casting the gradient back) is a
    // node of its own; forward casts record nothing here (the fixture's autograd_record is 0).
    for (graphs::OpId id = 0; id < net.graph.size(); ++id)
      if (is_cast(net.graph.op(id))) {
        const graphs::Operator& op = net.graph.op(id);
        CAPTURE(op.name);
        const bool backward =
            op.phase == Phase::kBackwardData || op.phase == Phase::kBackwardWeight;
        CHECK(h.issue_s[id] == Approx(cast + (backward ? kBackwardNode : 0)).epsilon(kRel));
      }
    // fc2.to_fp32.bwd runs between loss.bwd and fc2.bwd_data: fc2's node is still charged.
    CHECK(h.issue_s[op_id(net, "loss.bwd")] ==
          Approx(kSoftmaxBackward + kBackwardNode).epsilon(kRel));
    CHECK(
        h.issue_s[op_id(net, "fc2.bwd_data")] ==
        Approx(kGemmBackward + kBackwardNode + kTensorsPerLinear * kAccumulateGrad).epsilon(kRel));
    CHECK(contains_line(h.assumptions, "autocast_cast (the data_movement class's host time)") ==
          (cast == kDispatch));
  }
}

// ---------------------------------------------------------------------------------------------
// Host/device overlap through predict()

TEST_CASE("host-bound step: zero_grad + every issue + the last op's device time + sync",
          "[host_runtime][prediction]") {
  const hw::SystemSpec s = load("host_runtime_system.yaml");
  const graphs::LoweredNetwork net = mlp({});  // batch 4, width 8: kernels of ~2 us
  const Prediction p = predict(net, s, predict_options(graphs::Mode::kTrain, 4));
  const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));

  // The condition for the host to bind: every kernel ends before the host issues the next op
  // (the shortest issue is a loop update's 9 us; the longest kernel a softmax's 2 launches).
  double longest = 0;
  for (graphs::OpId id = 0; id < net.graph.size(); ++id) {
    const graphs::Operator& op = net.graph.op(id);
    if (op.op_class == OpClass::kTransfer) {
      CHECK(p.costs[id].time_s == 0);  // no link in the system: the copies cost nothing
      continue;
    }
    const int kernels = op.op_class == OpClass::kSoftmax ? kSoftmaxKernels : 1;
    CAPTURE(op.name);
    CHECK(p.costs[id].time_s == Approx(device_time(op, kernels)).epsilon(kRel));
    longest = std::max(longest, p.costs[id].time_s);
  }
  REQUIRE(longest < kOptPerParam);

  // The device idles between ops; the step ends with the last update's kernel, then the sync:
  //   4 x 2 us + 550 us + t(fc2.bias.update) + 5 us
  const graphs::OpId last = op_id(net, "fc2.bias.update");
  REQUIRE(last == net.graph.size() - 1);
  const double host = kTensors * kZeroGrad + 550 * kUs;
  const double last_op = device_time(net.graph.op(last));
  CHECK(p.step_time_s == Approx(host + last_op + kSync).epsilon(kRel));
  // Cross-check: the same host part as host_runtime gives it.
  CHECK(h.step_start_s + sum(h.issue_s) == Approx(host).epsilon(kRel));
  // The critical path: host dispatch up to the last issue, the last kernel, the sync.
  CHECK(p.by_bound[model::Bound::kDispatch] == Approx(host + kSync).epsilon(kRel));
  CHECK(p.by_bound[model::Bound::kLatency] == Approx(last_op).epsilon(kRel));
  CHECK(p.by_bound.named().size() == 2);
  CHECK(p.schedule.ops[last].issue_s == Approx(host).epsilon(kRel));
}

TEST_CASE("device-bound step: the first op's issue + every kernel back to back + sync",
          "[host_runtime][prediction]") {
  const hw::SystemSpec s = load("host_runtime_system.yaml");
  constexpr std::int64_t kBatch = 1024, kHidden = 1024;
  const graphs::LoweredNetwork net = mlp({.batch = kBatch, .hidden = kHidden});
  const Prediction p = predict(net, s, predict_options(graphs::Mode::kTrain, kBatch));

  // fc1.fwd: 2 x 1024^3 + 1024^2 FLOPs (GEMM and bias) at 1 TFLOP/s = 2.148 ms, compute-bound
  // (its 12.6 MB take 126 us), plus one launch.
  const graphs::OpId fc1 = op_id(net, "fc1.fwd");
  const double fc1_flops = 2.0 * kBatch * kHidden * kHidden + 1.0 * kBatch * kHidden;
  CHECK(net.graph.op(fc1).flops == fc1_flops);
  CHECK(p.costs[fc1].time_s == Approx(fc1_flops / kPeak + kLaunch).epsilon(kRel));

  // The host issues the whole step (558 us) before fc1.fwd ends (2.15 ms after it starts):
  // the device, once started, never waits. It starts when the host has zeroed the gradients,
  // issued the two input copies (no link: they take no time) and fc1.fwd.
  double device = 0;
  for (graphs::OpId id = 0; id < net.graph.size(); ++id)
    if (p.resources[id] == Resource::kCompute) device += p.costs[id].time_s;
  const double first_issue = kTensors * kZeroGrad + 2 * kDispatch + kGemmHost;  // 70 us
  const graphs::OpId last = op_id(net, "fc2.bias.update");
  REQUIRE(last == net.graph.size() - 1);
  REQUIRE(p.schedule.ops[last].issue_s < p.schedule.ops[fc1].end_s);
  CHECK(p.step_time_s == Approx(first_issue + device + kSync).epsilon(kRel));
  CHECK(p.schedule.ops[fc1].start_s == Approx(first_issue).epsilon(kRel));
  // The critical path: the first issue and the sync are host time, every kernel is on it.
  CHECK(p.by_bound[model::Bound::kDispatch] == Approx(first_issue + kSync).epsilon(kRel));
}

TEST_CASE("graph capture end to end: one replay, then every kernel back to back",
          "[host_runtime][prediction]") {
  hw::SystemSpec s = load("host_runtime_system.yaml");
  s.runtime.graph_capture = true;
  s.runtime.engine[static_cast<std::size_t>(hw::EngineCost::kGraphReplay)] = 30 * kUs;
  const graphs::LoweredNetwork net = mlp({});  // the host-bound network of the eager test
  const Prediction p = predict(net, s, predict_options(graphs::Mode::kTrain, 4));
  // Every op but the two input copies (no link: free) on the stream, each its roofline time
  // plus a launch per kernel (the softmax entry's 2 on the loss ops): 19 launches of 2 us and
  // a few ns of work each.
  double device = 0;
  for (graphs::OpId id = 0; id < net.graph.size(); ++id) {
    const graphs::Operator& op = net.graph.op(id);
    if (op.op_class == OpClass::kTransfer) continue;
    device += device_time(op, op.op_class == OpClass::kSoftmax ? kSoftmaxKernels : 1);
  }
  CHECK(device == Approx(19 * kLaunch).epsilon(0.01));
  // 30 us of replay, then the kernels back to back, then the sync.
  CHECK(p.step_time_s == Approx(30 * kUs + device + kSync).epsilon(kRel));
}

TEST_CASE("each kernel beyond an op's first adds the device's launch latency",
          "[host_runtime][prediction]") {
  const hw::SystemSpec base = load("host_runtime_system.yaml");
  hw::SystemSpec more = base;
  more.runtime.ops[static_cast<std::size_t>(OpClass::kGemm)]->kernels = 3;
  more.runtime.optimizer.kernels = 4;
  const graphs::LoweredNetwork net = mlp({});
  const PredictOptions o = predict_options(graphs::Mode::kTrain, 4);
  const CostedStep a = cost_step(net, base, o);
  const CostedStep b = cost_step(net, more, o);
  for (graphs::OpId id = 0; id < net.graph.size(); ++id) {
    const graphs::Operator& op = net.graph.op(id);
    CAPTURE(op.name);
    // gemm: 3 kernels, 2 more launches; updates: 4 kernels, 3 more; the rest unchanged.
    const int extra = op.op_class == OpClass::kGemm        ? 2
                      : op.op_class == OpClass::kOptimizer ? 3
                                                           : 0;
    CHECK(b.input.costs[id].time_s - a.input.costs[id].time_s ==
          Approx(extra * kLaunch).margin(kRel * kLaunch));
    CHECK(b.input.costs[id].latency_s - a.input.costs[id].latency_s ==
          Approx(extra * kLaunch).margin(kRel * kLaunch));
    // The host's time to issue the op does not change.
    CHECK(b.input.issue_s[id] == a.input.issue_s[id]);
  }
  // The fixture's own softmax entry (kernels: 2): one launch more than a plain roofline op.
  const graphs::OpId loss = op_id(net, "loss.fwd");
  CHECK(a.input.costs[loss].time_s ==
        Approx(device_time(net.graph.op(loss), kSoftmaxKernels)).epsilon(kRel));
  CHECK(a.input.costs[loss].latency_s == Approx(kSoftmaxKernels * kLaunch).epsilon(kRel));
}

TEST_CASE("compiled end to end: the fused op has no launch and does not re-read its input",
          "[host_runtime][prediction]") {
  hw::SystemSpec s = load("host_runtime_system.yaml");
  const graphs::LoweredNetwork net = mlp({.mode = graphs::Mode::kInfer});
  const PredictOptions o = predict_options(graphs::Mode::kInfer, 4);
  const graphs::OpId relu = op_id(net, "relu.fwd");
  const graphs::OpId sig = op_id(net, "sig.fwd");
  const graphs::OpId fc2 = op_id(net, "fc2.fwd");
  const Prediction eager = predict(net, s, o);
  s.runtime.compile = true;
  const Prediction compiled = predict(net, s, o);

  const graphs::Operator& op = net.graph.op(sig);
  const double intermediate = net.graph.edge_bytes(relu, sig);
  REQUIRE(intermediate > 0);
  // Eager: its own launch and the whole read. Compiled: the read of relu's output is gone,
  // and no launch.
  CHECK(eager.costs[sig].time_s == Approx(device_time(op)).epsilon(kRel));
  const double fused =
      std::max(op.flops / kPeak, (op.bytes_read - intermediate + op.bytes_written) / kBandwidth);
  CHECK(compiled.costs[sig].time_s == Approx(fused).epsilon(kRel));
  CHECK(compiled.costs[sig].latency_s == 0);
  CHECK(compiled.costs[sig].bound != Bound::kLatency);
  // relu keeps its cost.
  CHECK(compiled.costs[relu].time_s == eager.costs[relu].time_s);

  // Host-bound (tiny kernels): the step loses sig's issue, 20 us. Eager:
  //   2 x 11 + 40 + 20 + 20 + 40 us, then fc2's kernel and the sync.
  const double host = 2 * kDispatch + 2 * kGemmHost + 2 * kEltHost;
  const double tail = device_time(net.graph.op(fc2)) + kSync;
  CHECK(eager.step_time_s == Approx(host + tail).epsilon(kRel));
  CHECK(compiled.step_time_s == Approx(host - kEltHost + tail).epsilon(kRel));
}

// ---------------------------------------------------------------------------------------------
// The host path by mode: module_call and autograd_record in training only

TEST_CASE(
    "a training step adds module_call per layer call and autograd_record per recorded "
    "layer, inference neither",
    "[host_runtime]") {
  constexpr double kModule = 5 * kUs;
  constexpr double kRecord = 4 * kUs;
  hw::SystemSpec s = load("host_runtime_system.yaml");
  s.runtime.engine[static_cast<std::size_t>(hw::EngineCost::kModuleCall)] = kModule;
  s.runtime.engine[static_cast<std::size_t>(hw::EngineCost::kAutogradRecord)] = kRecord;

  SECTION("inference (eval + no_grad): the ops' host values alone") {
    const graphs::LoweredNetwork net = mlp({.mode = graphs::Mode::kInfer});
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    CHECK(h.issue_s[op_id(net, "fc1.fwd")] == Approx(kGemmHost).epsilon(kRel));
    CHECK(h.issue_s[op_id(net, "relu.fwd")] == Approx(kEltHost).epsilon(kRel));
    // 142 us, as the inference test above: neither cost applies
    CHECK(sum(h.issue_s) == Approx(142 * kUs).epsilon(kRel));
  }
  SECTION("training: each layer's call, and its recording for every layer with a gradient") {
    const graphs::LoweredNetwork net = mlp({});
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    CHECK(h.issue_s[op_id(net, "relu.fwd")] == Approx(kEltHost + kModule + kRecord).epsilon(kRel));
    CHECK(h.issue_s[op_id(net, "loss.fwd")] ==
          Approx(kSoftmaxHost + kModule + kRecord).epsilon(kRel));
    // Backward ops and updates unchanged.
    CHECK(h.issue_s[op_id(net, "relu.bwd")] == Approx(kEltBackward + kBackwardNode).epsilon(kRel));
    // 550 us without them (the training test above) + 5 layers (fc1, relu, sig, fc2, loss)
    // x (5 + 4) = 595 us
    CHECK(sum(h.issue_s) == Approx(550 * kUs + 5 * (kModule + kRecord)).epsilon(kRel));
    // The same forward op costs kModule + kRecord more in training than in inference.
    const graphs::LoweredNetwork infer = mlp({.mode = graphs::Mode::kInfer});
    const HostRuntime hi = host_runtime(infer, s.runtime, all_on_device(infer));
    for (const char* name : {"fc1.fwd", "relu.fwd", "sig.fwd", "fc2.fwd"}) {
      CAPTURE(name);
      CHECK(h.issue_s[op_id(net, name)] - hi.issue_s[op_id(infer, name)] ==
            Approx(kModule + kRecord).epsilon(1e-9));
    }
  }
  SECTION("bf16 training: recorded forward casts add the recording, not the module call") {
    const graphs::LoweredNetwork net = mlp({.precision = Precision::kBf16});
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    const double cast = s.runtime.cost(hw::EngineCost::kAutocastCast);  // dispatch_per_op
    // The input's cast: the features need no gradient, so autograd records nothing.
    CHECK(h.issue_s[op_id(net, "features.to_bf16.fwd")] == Approx(cast).epsilon(kRel));
    // A weight cast (the weight requires a gradient) and fc2's output cast are recorded.
    CHECK(h.issue_s[op_id(net, "fc1.weight.weight_cast")] == Approx(cast + kRecord).epsilon(kRel));
    CHECK(h.issue_s[op_id(net, "fc2.to_fp32.fwd")] == Approx(cast + kRecord).epsilon(kRel));
    // fc1's call follows its weight casts: the module call and recording land on fc1.fwd.
    CHECK(h.issue_s[op_id(net, "fc1.fwd")] == Approx(kGemmHost + kModule + kRecord).epsilon(kRel));
  }
  SECTION("a runtime with op entries but no module_call or autograd_record is told") {
    s.runtime.engine[static_cast<std::size_t>(hw::EngineCost::kModuleCall)].reset();
    s.runtime.engine[static_cast<std::size_t>(hw::EngineCost::kAutogradRecord)].reset();
    const graphs::LoweredNetwork net = mlp({});
    const HostRuntime h = host_runtime(net, s.runtime, all_on_device(net));
    CHECK(contains_line(h.assumptions, "autograd_record (0), module_call (0)"));
    // One without op entries folds both into dispatch_per_op and is not told.
    const hw::SystemSpec minimal = load("host_runtime_minimal.yaml");
    const HostRuntime hm = host_runtime(net, minimal.runtime, all_on_device(net));
    CHECK_FALSE(contains_line(hm.assumptions, "module_call"));
  }
}

TEST_CASE(
    "the shipped H200 runtime: a training forward call costs the no-grad call + "
    "module_call + autograd_record",
    "[host_runtime]") {
  // deepq-pt (3 conv, 4 relu, flatten, 2 linear, the loss): the per-op host times of both
  // modes from the runtime file's values by formula.
  const hw::SystemSpec s = hw::load_system("h200");
  const hw::RuntimeSpec& rt = s.runtime;
  REQUIRE(rt.cost_given(hw::EngineCost::kModuleCall));
  REQUIRE(rt.cost_given(hw::EngineCost::kAutogradRecord));
  const double module = rt.cost(hw::EngineCost::kModuleCall);
  const double record = rt.cost(hw::EngineCost::kAutogradRecord);
  const graphs::BoundNetwork deepq = graphs::bind_sizes(graphs::load_zoo_network("deepq-pt"), {});
  const graphs::LoweredNetwork train = graphs::lower(deepq, {.mode = graphs::Mode::kTrain});
  const graphs::LoweredNetwork infer = graphs::lower(deepq, {.mode = graphs::Mode::kInfer});
  const HostRuntime ht = host_runtime(train, rt, all_on_device(train));
  const HostRuntime hi = host_runtime(infer, rt, all_on_device(infer));
  for (const auto& [name, cls] : {std::pair{"conv1.fwd", OpClass::kConv},
                                  {"relu2.fwd", OpClass::kElementwise},
                                  {"fc4.fwd", OpClass::kGemm}}) {
    CAPTURE(name);
    CHECK(hi.issue_s[op_id(infer, name)] == Approx(rt.op_host_s(cls, false)).epsilon(kRel));
    CHECK(ht.issue_s[op_id(train, name)] ==
          Approx(rt.op_host_s(cls, false) + module + record).epsilon(kRel));
  }
  // Inference: the ops' host values alone, over the whole pass.
  double forward = 0;
  for (graphs::OpId id = 0; id < infer.graph.size(); ++id)
    if (infer.graph.op(id).phase == Phase::kForward)
      forward += rt.op_host_s(infer.graph.op(id).op_class, false);
  double issued = 0;
  for (graphs::OpId id = 0; id < infer.graph.size(); ++id)
    if (infer.graph.op(id).phase == Phase::kForward) issued += hi.issue_s[id];
  CHECK(issued == Approx(forward).epsilon(kRel));
}
