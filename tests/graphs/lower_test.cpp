#include "graphs/lower.h"

#include <catch2/catch.hpp>

#include "graphs/optimizer.h"
#include "test_network.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {
// x -> fc1 -> relu -> fc2 -> add(relu, fc2) -> fc3 -> loss: relu's output feeds two layers.
BoundNetwork residual_mlp(OptimizerKind opt) {
  BoundNetwork net;
  net.name = "res";
  net.optimizer = opt;
  net.inputs.push_back({"x", TensorInfo{{4, 16}, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{4}, DType::kI64}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer("fc1", "linear", {"x"}, {{"out_features", std::int64_t{16}}}));
  add(test::layer("relu", "relu", {"fc1"}, {}));
  add(test::layer("fc2", "linear", {"relu"}, {{"out_features", std::int64_t{16}}}));
  add(test::layer("sum", "add", {"relu", "fc2"}, {}));
  add(test::layer("fc3", "linear", {"sum"}, {{"out_features", std::int64_t{3}}}));
  add(test::layer("loss", "softmax_cross_entropy", {"fc3", "labels"}, {}));
  return net;
}

std::vector<std::string> names(const LoweredNetwork& n) {
  std::vector<std::string> out;
  for (OpId id = 0; id < n.graph.size(); ++id) out.push_back(n.graph.op(id).name);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

TEST_CASE("a tensor feeding two layers gets its gradients summed", "[graphs][lower]") {
  const auto lowered = lower(residual_mlp(OptimizerKind::kSgd), {.mode = Mode::kTrain});
  const auto ops = names(lowered);
  CHECK(has(ops, "relu.grad_sum"));
  // Ops are in program order: every edge goes forward.
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    for (OpId p : lowered.graph.predecessors(id)) CHECK(p < id);
}

TEST_CASE("optimizer emits one update per weight tensor, or one fused op", "[graphs][lower]") {
  const auto per_tensor = lower(residual_mlp(OptimizerKind::kAdam), {.mode = Mode::kTrain});
  int updates = 0;
  double update_bytes = 0;
  for (OpId id = 0; id < per_tensor.graph.size(); ++id)
    if (per_tensor.graph.op(id).phase == Phase::kUpdate) {
      ++updates;
      update_bytes += per_tensor.graph.op(id).bytes();
    }
  CHECK(updates == 6);  // 3 layers x (weight, bias)
  // Adam reads w, g, m, v and writes w, m, v: 7 fp32 values per parameter.
  CHECK(update_bytes == Approx(7.0 * 4 * static_cast<double>(per_tensor.parameters)));

  const auto fused =
      lower(residual_mlp(OptimizerKind::kAdam), {.mode = Mode::kTrain, .fused_optimizer = true});
  int fused_updates = 0;
  for (OpId id = 0; id < fused.graph.size(); ++id)
    if (fused.graph.op(id).phase == Phase::kUpdate) ++fused_updates;
  CHECK(fused_updates == 1);
}

TEST_CASE("inference drops the loss, backward and optimizer", "[graphs][lower]") {
  const auto lowered = lower(residual_mlp(OptimizerKind::kSgd), {.mode = Mode::kInfer});
  for (OpId id = 0; id < lowered.graph.size(); ++id) {
    CHECK(lowered.graph.op(id).phase != Phase::kBackwardData);
    CHECK(lowered.graph.op(id).phase != Phase::kUpdate);
    CHECK(lowered.graph.op(id).kind != "softmax_cross_entropy");
  }
}

TEST_CASE("batch norm in inference is one elementwise scale-shift pass", "[graphs][lower]") {
  BoundNetwork net;
  net.name = "bn";
  net.inputs.push_back({"x", TensorInfo{{8, 16, 10, 10}, DType::kF32}});
  net.layers.push_back(test::with_defaults(test::layer("bn", "batchnorm2d", {"x"}, {})));
  const double x = 8.0 * 16 * 10 * 10;
  const auto op = [&](Mode mode) {
    const LoweredNetwork n = lower(net, {.mode = mode});
    for (OpId id = 0; id < n.graph.size(); ++id)
      if (n.graph.op(id).name == "bn.fwd") return n.graph.op(id);
    FAIL("no bn.fwd");
    return Operator{};
  };
  // Inference: one pass with the running statistics, 2 FLOPs per element.
  const Operator infer = op(Mode::kInfer);
  CHECK(infer.op_class == OpClass::kElementwise);
  CHECK(infer.flops == 2 * x);
  CHECK(infer.bytes() == 4 * 2 * x);
  CHECK(infer.kind == "batchnorm2d");
}

TEST_CASE("each network input is copied to the device first", "[graphs][lower]") {
  const auto lowered = lower(residual_mlp(OptimizerKind::kSgd), {.mode = Mode::kInfer});
  CHECK(lowered.graph.op(0).op_class == OpClass::kTransfer);
  CHECK(lowered.graph.op(0).bytes_written == Approx(4 * 16 * 4));
  CHECK(lowered.input_bytes == Approx(4 * 16 * 4 + 4 * 8));
}

TEST_CASE("training without a loss layer is an error", "[graphs][lower]") {
  BoundNetwork net = residual_mlp(OptimizerKind::kSgd);
  net.layers.pop_back();
  CHECK_THROWS_WITH(lower(net, {.mode = Mode::kTrain}),
                    Catch::Contains("no loss layer") && Catch::Contains("softmax_cross_entropy"));
}

TEST_CASE("shape mismatch names the layer", "[graphs][lower]") {
  BoundNetwork net = residual_mlp(OptimizerKind::kSgd);
  net.layers[2].params["out_features"] = std::int64_t{8};  // fc2 no longer matches relu
  CHECK_THROWS_WITH(lower(net, {.mode = Mode::kInfer}),
                    Catch::Contains("layer 'sum' (add)") && Catch::Contains("same shape"));
}

TEST_CASE("an in-place layer's input may not be read after it", "[graphs][lower]") {
  // residual_mlp's sum = relu + fc2, written over relu's output, its last reader: allowed.
  BoundNetwork net = residual_mlp(OptimizerKind::kSgd);
  net.layers[3].params["inplace"] = true;
  const LoweredNetwork ok = lower(net, {.mode = Mode::kTrain});
  bool marked = false;
  for (OpId id = 0; id < ok.graph.size(); ++id)
    marked = marked || (ok.graph.op(id).name == "sum.fwd" && ok.graph.op(id).in_place);
  CHECK(marked);
  // A layer after the sum that reads relu would read the overwritten values: an error.
  net.layers.insert(net.layers.begin() + 4,
                    test::with_defaults(test::layer("late", "linear", {"relu"},
                                                    {{"out_features", std::int64_t{16}}})));
  CHECK_THROWS_WITH(
      lower(net, {.mode = Mode::kTrain}),
      Catch::Contains("layer 'late' (linear)") &&
          Catch::Contains("input 'relu' was overwritten by the in-place layer 'sum'"));
}
