// The generic op families ONNX ops map onto (graphs/ops/unary.cpp, binary.cpp, reduce.cpp,
// movement.cpp): shapes and FLOP/byte counts equal their stated rules.

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "test_network.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {

std::map<std::string, Operator> ops_of(const LoweredNetwork& net) {
  std::map<std::string, Operator> ops;
  for (OpId id = 0; id < net.graph.size(); ++id) ops[net.graph.op(id).name] = net.graph.op(id);
  return ops;
}

BoundNetwork one_layer(const std::string& kind, ParamMap params, std::vector<TensorInfo> inputs,
                       bool loss = false) {
  BoundNetwork net;
  net.name = kind;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    net.inputs.push_back({names.back(), inputs[i]});
  }
  net.layers.push_back(test::with_defaults(test::layer("l", kind, names, std::move(params))));
  if (loss) {
    net.layers.push_back(test::with_defaults(
        test::layer("w", "linear", {"l"}, {{"out_features", std::int64_t{4}}})));
    net.inputs.push_back({"labels", TensorInfo{{8}, DType::kI64}});
    net.layers.push_back(
        test::with_defaults(test::layer("loss", "softmax_cross_entropy", {"w", "labels"}, {})));
  }
  return net;
}

}  // namespace

TEST_CASE("unary ops count their per-element FLOPs", "[graphs][unary]") {
  const double n = 8 * 16;
  const auto ops =
      ops_of(lower(one_layer("erf", {}, {TensorInfo{{8, 16}}}), {.mode = Mode::kInfer}));
  CHECK(ops.at("l.fwd").flops == Approx(1 * n));  // erf: one elementary function
  CHECK(ops.at("l.fwd").bytes_read == Approx(4 * n));
  CHECK(ops.at("l.fwd").bytes_written == Approx(4 * n));
  const auto sp =
      ops_of(lower(one_layer("softplus", {}, {TensorInfo{{8, 16}}}), {.mode = Mode::kInfer}));
  CHECK(sp.at("l.fwd").flops == Approx(3 * n));  // exp, add, log
}

TEST_CASE("binary ops broadcast and count a trainable constant as a weight", "[graphs][binary]") {
  // x [8, 16] * scale [16] (learned): 1 FLOP per output element.
  const BoundNetwork net = one_layer("mul", {{"constant_shape", IntList{16}}, {"trainable", true}},
                                     {TensorInfo{{8, 16}}}, true);
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kTrain});
  const auto ops = ops_of(lowered);
  CHECK(ops.at("l.fwd").output_shape == Shape{8, 16});
  CHECK(ops.at("l.fwd").flops == Approx(8 * 16));
  CHECK(lowered.parameters == 16 + 16 * 4 + 4);
  // d(scale) = sum over the batch of dy * x: 1 multiply + 1 add per output element.
  CHECK(ops.at("l.bwd_b").phase == Phase::kBackwardWeight);
  CHECK(ops.at("l.bwd_b").flops == Approx(2 * 8 * 16));
  CHECK(ops.at("l.bwd_b").output_shape == Shape{16});
}

TEST_CASE("reductions count one FLOP per input element", "[graphs][reduce]") {
  const auto ops =
      ops_of(lower(one_layer("reduce_mean", {{"axes", IntList{-1}}, {"keepdims", false}},
                             {TensorInfo{{8, 16, 32}}}),
                   {.mode = Mode::kInfer}));
  CHECK(ops.at("l.fwd").output_shape == Shape{8, 16});
  CHECK(ops.at("l.fwd").flops == Approx(8 * 16 * 32 + 8 * 16));  // sums, then a divide each
}

TEST_CASE("movement ops copy their output and follow ONNX shape rules", "[graphs][movement]") {
  // Slice [0:10:2] of dim 1 and the last 3 of dim 2 of [4, 12, 8] -> [4, 5, 3].
  const auto ops = ops_of(lower(one_layer("slice",
                                          {{"starts", IntList{0, -3}},
                                           {"ends", IntList{10, INT64_MAX}},
                                           {"axes", IntList{1, 2}},
                                           {"steps", IntList{2, 1}}},
                                          {TensorInfo{{4, 12, 8}}}),
                                {.mode = Mode::kInfer}));
  CHECK(ops.at("l.fwd").output_shape == Shape{4, 5, 3});
  CHECK(ops.at("l.fwd").flops == 0);
  CHECK(ops.at("l.fwd").bytes_written == Approx(4.0 * 4 * 5 * 3));
  const auto pad = ops_of(lower(
      one_layer("pad", {{"pads", IntList{0, 0, 1, 1, 0, 0, 1, 2}}}, {TensorInfo{{1, 3, 8, 8}}}),
      {.mode = Mode::kInfer}));
  CHECK(pad.at("l.fwd").output_shape == Shape{1, 3, 10, 11});
}
