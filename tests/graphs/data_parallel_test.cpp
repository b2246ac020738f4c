// Data-parallel lowering (graphs::DataParallel, lower.h): PyTorch DDP's gradient buckets,
// launched in order during the backward pass, and the updates waiting for their bucket.

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "graphs/lowering_plan.h"
#include "test_network.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {

// x[4,16] -> fc1 -> relu -> fc2 -> fc3 -> loss. Weights in order (elements): fc1.weight 256,
// fc1.bias 16, fc2.weight 256, fc2.bias 16, fc3.weight 48, fc3.bias 3.
BoundNetwork mlp() {
  BoundNetwork net;
  net.name = "mlp";
  net.inputs.push_back({"x", TensorInfo{{4, 16}, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{4}, DType::kI64}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer("fc1", "linear", {"x"}, {{"out_features", std::int64_t{16}}}));
  add(test::layer("relu", "relu", {"fc1"}, {}));
  add(test::layer("fc2", "linear", {"relu"}, {{"out_features", std::int64_t{16}}}));
  add(test::layer("fc3", "linear", {"fc2"}, {{"out_features", std::int64_t{3}}}));
  add(test::layer("loss", "softmax_cross_entropy", {"fc3", "labels"}, {}));
  return net;
}

std::vector<OpId> ops_of_kind(const LoweredNetwork& n, const std::string& kind) {
  std::vector<OpId> out;
  for (OpId id = 0; id < n.graph.size(); ++id)
    if (n.graph.op(id).kind == kind) out.push_back(id);
  return out;
}

OpId op_named(const LoweredNetwork& n, const std::string& name) {
  for (OpId id = 0; id < n.graph.size(); ++id)
    if (n.graph.op(id).name == name) return id;
  FAIL("no op " << name);
  return kNoOp;
}

// Tiny caps make three buckets of the MLP (bytes = 4 x elements): the first closes after
// fc3.bias (12 B >= 1 B); the second holds fc3.weight 192 + fc2.bias 64 + fc2.weight 1024 =
// 1280 B >= 1100 B; the last fc1.bias 64 + fc1.weight 1024 = 1088 B.
LoweringOptions ddp(int replicas) {
  LoweringOptions o;
  o.data_parallel.replicas = replicas;
  o.data_parallel.first_bucket_bytes = 1;
  o.data_parallel.bucket_cap_bytes = 1100;
  return o;
}

}  // namespace

TEST_CASE("gradient buckets: reverse weight order, closed once they reach their cap",
          "[graphs][data_parallel]") {
  DataParallel dp;
  dp.first_bucket_bytes = 800;
  dp.bucket_cap_bytes = 2000;
  // Bytes 400, 800, 1200, 1600: {1600} reaches 800; {1200, 800} reaches 2000; {400} is left.
  const auto b = gradient_buckets({100, 200, 300, 400}, dp);
  REQUIRE(b.size() == 3);
  CHECK(b[0] == std::vector<std::size_t>{3});
  CHECK(b[1] == std::vector<std::size_t>{2, 1});
  CHECK(b[2] == std::vector<std::size_t>{0});
  // PyTorch's defaults: a 25 MiB model is one 1 MiB bucket, then the rest in one.
  const auto d = gradient_buckets({3 << 20, 1 << 18}, DataParallel{});
  CHECK(d == std::vector<std::vector<std::size_t>>{{1}, {0}});
}

TEST_CASE("data parallel: one all-reduce per bucket, launched during the backward pass",
          "[graphs][data_parallel]") {
  const LoweredNetwork one = lower(mlp(), ddp(1));
  CHECK(one.replicas == 1);
  CHECK(one.buckets.empty());
  CHECK(ops_of_kind(one, "all_reduce").empty());

  const LoweredNetwork n = lower(mlp(), ddp(4));
  CHECK(n.replicas == 4);
  // The same ops as one replica, plus the all-reduces.
  CHECK(n.graph.size() == one.graph.size() + 3);
  const auto ar = ops_of_kind(n, "all_reduce");
  REQUIRE(ar.size() == 3);
  REQUIRE(n.buckets.size() == 3);
  const std::vector<std::vector<std::size_t>> want{{5}, {4, 3, 2}, {1, 0}};
  const std::vector<double> bytes{12, 1280, 1088};
  for (std::size_t b = 0; b < 3; ++b) {
    INFO("bucket " << b);
    CHECK(n.buckets[b].weights == want[b]);
    CHECK(n.buckets[b].bytes == bytes[b]);
    CHECK(n.buckets[b].op == ar[b]);
    const Operator& op = n.graph.op(ar[b]);
    CHECK(op.op_class == OpClass::kCommunication);
    CHECK(op.phase == Phase::kBackwardWeight);
    CHECK(op.bytes_read == bytes[b]);
    CHECK(op.bytes_written == bytes[b]);
    CHECK(op.flops == 0);
    // It waits for the gradient of each of its weights.
    CHECK(n.graph.predecessors(ar[b]).size() == want[b].size());
  }
  // Bucket 0 (fc3.bias) is launched as soon as fc3's backward is issued, before fc2's.
  const auto fc2_backward = [&] {
    for (OpId id = 0; id < n.graph.size(); ++id)
      if (n.graph.op(id).layer == "fc2" && n.graph.op(id).phase != Phase::kForward) return id;
    return kNoOp;
  }();
  CHECK(ar[0] < fc2_backward);
  CHECK(ar[2] > fc2_backward);
  // Each update waits for its bucket's all-reduce, not for the raw gradient.
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t j : want[b]) {
      const WeightTensor& w = n.weights[j];
      const OpId update = op_named(n, w.layer + "." + w.name + ".update");
      CHECK(n.graph.predecessors(update) == std::vector<OpId>{ar[b]});
    }
}

TEST_CASE(
    "data parallel, TensorFlow's variable updates: one exchange per variable, launched "
    "as its gradient completes",
    "[graphs][data_parallel]") {
  const auto [exchange, kind] =
      GENERATE(std::make_pair(GradientExchange::kAllReduce, std::string("all_reduce")),
               std::make_pair(GradientExchange::kParameterServer, std::string("parameter_server")));
  LoweringOptions o = ddp(4);  // the caps do not apply: one bucket per variable
  o.data_parallel.exchange = exchange;
  const LoweredNetwork n = lower(mlp(), o);
  const LoweredNetwork one = lower(mlp(), ddp(1));
  CHECK(n.exchange == exchange);
  const auto ex = ops_of_kind(n, kind);
  REQUIRE(ex.size() == n.weights.size());
  REQUIRE(n.buckets.size() == n.weights.size());
  CHECK(n.graph.size() == one.graph.size() + n.weights.size());
  for (std::size_t b = 0; b < n.buckets.size(); ++b) {
    const std::size_t j = n.weights.size() - 1 - b;  // reverse weight order
    const WeightTensor& w = n.weights[j];
    INFO(w.layer << "." << w.name);
    CHECK(n.buckets[b].weights == std::vector<std::size_t>{j});
    CHECK(n.buckets[b].bytes == 4.0 * static_cast<double>(w.elements));
    const OpId op = n.buckets[b].op;
    CHECK(n.graph.op(op).name == w.layer + "." + w.name + "." + kind);
    CHECK(n.graph.op(op).op_class == OpClass::kCommunication);
    CHECK(n.graph.op(op).bytes_written == n.buckets[b].bytes);
    // Its one input is the variable's gradient, and it follows its layer's backward ops with
    // only other exchanges between: launched as soon as the gradient is complete (once the
    // layer's backward, which computes it, is issued).
    const auto preds = n.graph.predecessors(op);
    REQUIRE(preds.size() == 1);
    for (OpId between = preds.front() + 1; between < op; ++between)
      CHECK((n.graph.op(between).op_class == OpClass::kCommunication ||
             n.graph.op(between).layer == w.layer));
    // The update reads the exchanged gradient.
    CHECK(n.graph.predecessors(op_named(n, w.layer + "." + w.name + ".update")) ==
          std::vector<OpId>{op});
  }
}

TEST_CASE("data parallel with accumulation: buckets all-reduce the summed gradients once",
          "[graphs][data_parallel]") {
  LoweringOptions o = ddp(2);
  o.accumulation_steps = 3;
  const LoweredNetwork n = lower(mlp(), o);
  const auto ar = ops_of_kind(n, "all_reduce");
  REQUIRE(ar.size() == 3);
  // After the last micro-batch's backward, reading the running sums (grad_accumulate ops).
  for (const OpId a : ar)
    for (const OpId p : n.graph.predecessors(a)) {
      CHECK(n.graph.op(p).kind == "grad_accumulate");
      CHECK(n.graph.op(p).name.rfind("mb2.", 0) == 0);
    }
}

TEST_CASE("data parallel: inference has nothing to all-reduce, and replicas < 1 is an error",
          "[graphs][data_parallel]") {
  LoweringOptions o = ddp(8);
  o.mode = Mode::kInfer;
  const LoweredNetwork n = lower(mlp(), o);
  CHECK(n.buckets.empty());
  CHECK(ops_of_kind(n, "all_reduce").empty());
  CHECK_THROWS_WITH(lower(mlp(), ddp(0)),
                    Catch::Contains("data-parallel replicas must be at least 1"));
}
