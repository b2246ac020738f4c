// ONNX import on small models built in memory: symbolic dims bound by --batch / --set, a
// shape subgraph (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) folded to a constant,
// MatMul + Add fused into one linear, and every bad input a one-line UserError.

#include "graphs/onnx/onnx_import.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "graphs/lower.h"
#include "onnx_model_builder.h"
#include "scratch_dir.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;
using namespace amdahl::graphs::test;
using Catch::Matchers::Contains;

using amdahl::test::scratch_file;

namespace {

// x [batch, seq, 64] -> MatMul W [64, 32] + b [32] -> Reshape to [batch, seq*32] computed
// from Shape(x) -> Relu.
ModelBuilder mlp_with_shape_subgraph() {
  ModelBuilder m;
  m.input("x", {"batch", "seq", "64"});
  m.initializer("W", {64, 32});
  m.initializer("b", {32});
  m.initializer("zero", {}, {0});
  m.initializer("minus_one", {1}, {-1});
  m.node("MatMul", {"x", "W"}, {"xw"}, "fc_matmul");
  m.node("Add", {"xw", "b"}, {"y"}, "fc_add");
  m.node("Shape", {"x"}, {"shape"});
  set_int(m.node("Gather", {"shape", "zero"}, {"n"}), "axis", 0);
  m.initializer("axes0", {1}, {0});
  m.node("Unsqueeze", {"n", "axes0"}, {"n1"});
  set_int(m.node("Concat", {"n1", "minus_one"}, {"target"}), "axis", 0);
  m.node("Reshape", {"y", "target"}, {"flat"});
  m.node("Relu", {"flat"}, {"out"});
  m.output("out");
  return m;
}

}  // namespace

TEST_CASE("symbolic dims are bound and a shape subgraph folds to a constant", "[onnx]") {
  const std::string path = mlp_with_shape_subgraph().save("amdahl_onnx_mlp.onnx");
  const BoundNetwork net = graphs::onnx::import_onnx(path, {{"batch", 8}, {"seq", 10}});
  REQUIRE(net.inputs.size() == 2);  // x and the appended labels
  CHECK(net.inputs[0].tensor.shape == Shape{8, 10, 64});
  CHECK(net.sizes.at("batch") == 8);
  // MatMul + Add became one linear with a bias; Reshape a view; Relu; the loss.
  REQUIRE(net.layers.size() == 4);
  CHECK(net.layers[0].kind == "linear");
  CHECK(net.layers[0].get_bool("bias"));
  CHECK(net.layers[1].kind == "reshape");
  CHECK(net.layers[1].get_int_list("shape") == IntList{8, 320});
  CHECK(net.layers[3].kind == "softmax_cross_entropy");
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kTrain});
  CHECK(lowered.parameters == 64 * 32 + 32);
  double fc = 0;
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    if (lowered.graph.op(id).kind == "linear" && lowered.graph.op(id).phase == Phase::kForward)
      fc = lowered.graph.op(id).flops;
  // linear's formula: 2*M*in*out + M*out, M = 8*10 rows.
  CHECK(fc == Approx(2.0 * 80 * 64 * 32 + 80 * 32));
}

TEST_CASE("the batch option binds a first dim with another name", "[onnx]") {
  ModelBuilder m;
  m.input("x", {"batch_size", "16"});
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_onnx_bs.onnx"), {{"batch", 5}});
  CHECK(net.inputs[0].tensor.shape == Shape{5, 16});
  CHECK(net.sizes.at("batch") == 5);
}

TEST_CASE("bad ONNX input is a one-line error", "[onnx]") {
  auto error_of = [](const std::string& path, const Bindings& sizes) {
    try {
      graphs::onnx::import_onnx(path, sizes);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  SECTION("not ONNX") {
    const auto path = scratch_file("not_onnx.onnx");
    std::ofstream(path) << "name: resnet\nlayers: []\n";
    CHECK_THAT(error_of(path, {}), Contains("not an ONNX model"));
  }
  SECTION("truncated") {
    std::string bytes;
    mlp_with_shape_subgraph().model.SerializeToString(&bytes);
    const auto path = scratch_file("truncated.onnx");
    std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    CHECK_THAT(error_of(path, {{"batch", 1}, {"seq", 1}}), Contains("not an ONNX model"));
  }
  SECTION("unsupported op names the op, the node and the supported ops") {
    ModelBuilder m;
    m.input("x", {"4", "4"});
    m.node("NonMaxSuppression", {"x"}, {"y"}, "nms_1");
    m.output("y");
    const std::string e = error_of(m.save("amdahl_unsupported.onnx"), {});
    CHECK_THAT(e, Contains("unsupported op 'NonMaxSuppression'"));
    CHECK_THAT(e, Contains("node 'nms_1'"));
    CHECK_THAT(e, Contains("Conv, "));
    CHECK(e.find('\n') == std::string::npos);
  }
  SECTION("unbound symbolic dim names it and the option") {
    const std::string path = mlp_with_shape_subgraph().save("amdahl_unbound.onnx");
    CHECK_THAT(error_of(path, {{"batch", 2}}),
               Contains("symbolic size 'seq'") && Contains("--set seq=VALUE"));
    CHECK_THAT(error_of(path, {{"seq", 2}}), Contains("'batch'") && Contains("--batch"));
  }
  SECTION("unknown size") {
    const std::string path = mlp_with_shape_subgraph().save("amdahl_unknown_size.onnx");
    CHECK_THAT(error_of(path, {{"batch", 2}, {"seq", 3}, {"hidden", 4}}),
               Contains("no symbolic size 'hidden'"));
  }
  SECTION("opset outside 9..17") {
    for (int opset : {7, 18}) {
      ModelBuilder m(opset);
      m.input("x", {"4"});
      m.node("Relu", {"x"}, {"y"});
      m.output("y");
      CHECK_THAT(error_of(m.save("amdahl_opset.onnx"), {}),
                 Contains(fmt::format("opset {} is outside the supported range 9 to 17", opset)));
    }
  }
}

TEST_CASE("asymmetric pads become a pad layer before a symmetric conv", "[onnx]") {
  ModelBuilder m(11);
  m.input("x", {"1", "3", "8", "8"});
  m.initializer("W", {4, 3, 3, 3});
  auto* conv = m.node("Conv", {"x", "W"}, {"y"});
  set_ints(conv, "pads", {0, 0, 1, 1});
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_pads.onnx"), {});
  REQUIRE(net.layers.size() == 3);
  CHECK(net.layers[0].kind == "pad");
  CHECK(net.layers[1].kind == "conv2d");
  CHECK_FALSE(net.layers[1].get_bool("bias"));
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  // A 9x9 padded input gives 7x7: conv FLOPs 2*N*K*P*Q*C*R*S.
  for (OpId id = 0; id < lowered.graph.size(); ++id)
    if (lowered.graph.op(id).kind == "conv2d") {
      CHECK(lowered.graph.op(id).output_shape == Shape{1, 4, 7, 7});
      CHECK(lowered.graph.op(id).flops == Approx(2.0 * 4 * 7 * 7 * 3 * 3 * 3));
    }
}

TEST_CASE("ConvTranspose maps onto conv_transpose2d with the transposed geometry", "[onnx]") {
  ModelBuilder m(13);
  m.input("x", {"2", "8", "5", "5"});
  m.initializer("W", {8, 4, 3, 3});  // [C, K/g, R, S], g = 2: K = 8
  m.initializer("B", {8});
  auto* n = m.node("ConvTranspose", {"x", "W", "B"}, {"y"});
  set_ints(n, "strides", {2, 2});
  set_ints(n, "pads", {1, 1, 1, 1});
  set_ints(n, "output_padding", {1, 1});
  set_ints(n, "kernel_shape", {3, 3});
  set_int(n, "group", 2);
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_convt.onnx"), {});
  REQUIRE(net.layers.size() == 2);  // and the loss appended for training
  CHECK(net.layers[0].kind == "conv_transpose2d");
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  const Operator& op = forward_op(lowered, "conv_transpose2d");
  // out = (in-1)*stride - 2*pad + dilation*(k-1) + output_padding + 1 = 8 - 2 + 2 + 1 + 1.
  CHECK(op.output_shape == Shape{2, 8, 10, 10});
  // 2*N*C*H*W*(K/g)*R*S plus one add per output for the bias.
  CHECK(op.flops == Approx(2.0 * 2 * 8 * 5 * 5 * 4 * 3 * 3 + 2 * 8 * 10 * 10));
  CHECK(op.gemm.m * op.gemm.n * op.gemm.k * op.gemm.batch == 2 * 5 * 5 * 4 * 3 * 3 * 4 * 2);
  // Weight C*(K/g)*R*S plus bias K.
  CHECK(lowered.parameters == 8 * 4 * 3 * 3 + 8);

  // Training: dW is a correlation with the forward's MACs.
  const LoweredNetwork train = lower(net, {.mode = Mode::kTrain});
  double bwd_weight = 0;
  for (OpId id = 0; id < train.graph.size(); ++id) {
    const Operator& o = train.graph.op(id);
    if (o.kind != "conv_transpose2d") continue;
    if (o.phase == Phase::kBackwardWeight && o.op_class == OpClass::kConv) bwd_weight += o.flops;
  }
  CHECK(bwd_weight == Approx(2.0 * 2 * 8 * 5 * 5 * 4 * 3 * 3));
}

TEST_CASE("InstanceNormalization maps onto instance_norm", "[onnx]") {
  ModelBuilder m(13);
  m.input("x", {"2", "3", "4", "4"});
  m.initializer("scale", {3});
  m.initializer("bias", {3});
  m.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"});
  m.output("y");
  const BoundNetwork net = graphs::onnx::import_onnx(m.save("amdahl_inorm.onnx"), {});
  REQUIRE(net.layers.size() == 2);  // and the loss appended for training
  CHECK(net.layers[0].kind == "instance_norm");
  const LoweredNetwork lowered = lower(net, {.mode = Mode::kInfer});
  const Operator& op = forward_op(lowered, "instance_norm");
  CHECK(op.output_shape == Shape{2, 3, 4, 4});
  // Per-instance statistics even in inference: batch norm's training cost, 7 FLOPs/element.
  CHECK(op.flops == Approx(7.0 * 2 * 3 * 4 * 4));
  CHECK(lowered.parameters == 2 * 3);
}
