// linear FLOPs and bytes equal their formulas: forward 2*M*in*out + M*out (bias).

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "test_network.h"

using namespace amdahl::graphs;

TEST_CASE("linear forward and backward FLOPs and bytes", "[graphs][linear]") {
  const double m = 32, in = 100, out = 10;
  BoundNetwork net;
  net.name = "mlp";
  net.inputs.push_back({"x", TensorInfo{{32, 100}, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{32}, DType::kI64}});
  net.layers.push_back(test::with_defaults(
      test::layer("h", "linear", {"x"}, {{"out_features", std::int64_t{100}}})));
  net.layers.push_back(test::with_defaults(
      test::layer("fc", "linear", {"h"}, {{"out_features", std::int64_t{10}}})));
  net.layers.push_back(
      test::with_defaults(test::layer("loss", "softmax_cross_entropy", {"fc", "labels"}, {})));
  const auto lowered = lower(net, {.mode = Mode::kTrain});
  std::map<std::string, Operator> ops;
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    ops[lowered.graph.op(id).name] = lowered.graph.op(id);
  const Operator& fwd = ops.at("fc.fwd");
  CHECK(fwd.flops == Approx(2 * m * in * out + m * out));
  CHECK(fwd.bytes_read == Approx(4 * (m * in + in * out + out)));
  CHECK(fwd.bytes_written == Approx(4 * m * out));
  CHECK(fwd.gemm.m == 32);
  CHECK(fwd.gemm.n == 10);
  CHECK(fwd.gemm.k == 100);
  CHECK(ops.at("fc.bwd_data").flops + ops.at("fc.bwd_weight").flops ==
        Approx(2 * 2 * m * in * out));
  CHECK(ops.at("fc.bwd_bias").flops == Approx(m * out));
  // parameters: 100*100 + 100 + 100*10 + 10
  CHECK(lowered.parameters == 11110);
}

TEST_CASE("matmul broadcasts batch dims and counts 2*batch*M*N*K", "[graphs][linear]") {
  BoundNetwork net;
  net.name = "mm";
  net.inputs.push_back({"a", TensorInfo{{8, 12, 64, 32}, DType::kF32}});
  net.inputs.push_back({"b", TensorInfo{{1, 32, 16}, DType::kF32}});
  net.layers.push_back(test::with_defaults(test::layer("mm", "matmul", {"a", "b"}, {})));
  const auto lowered = lower(net, {.mode = Mode::kInfer});
  const Operator& op = lowered.graph.op(2);
  CHECK(op.output_shape == Shape{8, 12, 64, 16});
  CHECK(op.flops == Approx(2.0 * 8 * 12 * 64 * 16 * 32));
}
