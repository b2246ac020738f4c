// conv2d FLOPs and bytes equal their formulas: forward 2*N*K*P*Q*(C/g)*R*S (+ N*K*P*Q for the
// bias), both backward ops the same MACs, so backward = 2x forward (without bias).

#include <catch2/catch.hpp>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "test_network.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {
LoweredNetwork conv_net(ParamMap params, Shape input, Mode mode, bool conv_bias_kernel = false) {
  BoundNetwork net;
  net.name = "conv";
  net.inputs.push_back({"x", TensorInfo{input, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{input[0]}, DType::kI64}});
  net.layers.push_back(test::with_defaults(test::layer("c", "conv2d", {"x"}, std::move(params))));
  net.layers.push_back(test::with_defaults(test::layer("f", "flatten", {"c"}, {})));
  net.layers.push_back(
      test::with_defaults(test::layer("loss", "softmax_cross_entropy", {"f", "labels"}, {})));
  return lower(net, {.mode = mode, .conv_bias_kernel = conv_bias_kernel});
}

// x -> c1 -> c2 -> flatten -> loss, lowered for training: c2 has both backward ops (c1, the
// first layer, has no data gradient).
LoweredNetwork two_convs(Shape input, ParamMap c1, ParamMap c2) {
  BoundNetwork net;
  net.name = "two_convs";
  net.inputs.push_back({"x", TensorInfo{input, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{input[0]}, DType::kI64}});
  net.layers.push_back(test::with_defaults(test::layer("c1", "conv2d", {"x"}, std::move(c1))));
  net.layers.push_back(test::with_defaults(test::layer("c2", "conv2d", {"c1"}, std::move(c2))));
  net.layers.push_back(test::with_defaults(test::layer("f", "flatten", {"c2"}, {})));
  net.layers.push_back(
      test::with_defaults(test::layer("loss", "softmax_cross_entropy", {"f", "labels"}, {})));
  return lower(net, {.mode = Mode::kTrain});
}

const Operator* find(const LoweredNetwork& net, const std::string& name) {
  for (OpId id = 0; id < net.graph.size(); ++id)
    if (net.graph.op(id).name == name) return &net.graph.op(id);
  return nullptr;
}
}  // namespace

TEST_CASE("conv2d forward FLOPs and bytes equal the direct-convolution formula", "[graphs][conv]") {
  // N=2, C=3, H=W=8, K=4, R=S=3, stride 1, pad 1 -> P=Q=8.
  const auto net =
      conv_net({{"out_channels", std::int64_t{4}}, {"kernel", IntList{3}}, {"padding", IntList{1}}},
               {2, 3, 8, 8}, Mode::kInfer);
  const Operator* fwd = find(net, "c.fwd");
  REQUIRE(fwd);
  const double n = 2, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, p = 8, q = 8;
  CHECK(fwd->flops == Approx(2 * n * k * p * q * c * r * s + n * k * p * q));
  CHECK(fwd->bytes_read == Approx(4 * (n * c * h * w + k * c * r * s + k)));
  CHECK(fwd->bytes_written == Approx(4 * n * k * p * q));
  CHECK(fwd->output_shape == Shape{2, 4, 8, 8});
  // Implicit GEMM: m = N*P*Q, n = K, k = C*R*S.
  CHECK(fwd->gemm.m == 128);
  CHECK(fwd->gemm.n == 4);
  CHECK(fwd->gemm.k == 27);
  CHECK(net.parameters == 4 * 3 * 3 * 3 + 4);
}

TEST_CASE("conv2d output size follows stride, padding, dilation and TF SAME/VALID",
          "[graphs][conv]") {
  auto out = [](ParamMap params, Shape in) {
    return conv_net(std::move(params), in, Mode::kInfer).graph.op(2).output_shape;
  };
  // floor((224 + 2*3 - 7) / 2) + 1 = 112
  CHECK(out({{"out_channels", std::int64_t{64}},
             {"kernel", IntList{7}},
             {"stride", IntList{2}},
             {"padding", IntList{3}}},
            {1, 3, 224, 224}) == Shape{1, 64, 112, 112});
  // SAME: ceil(224 / 4) = 56 (Fathom AlexNet conv1)
  CHECK(out({{"out_channels", std::int64_t{64}},
             {"kernel", IntList{11}},
             {"stride", IntList{4}},
             {"padding_mode", std::string("same")}},
            {1, 3, 224, 224}) == Shape{1, 64, 56, 56});
  // dilation 2 makes a 3x3 kernel span 5: (10 - 5) / 1 + 1 = 6
  CHECK(out({{"out_channels", std::int64_t{1}}, {"kernel", IntList{3}}, {"dilation", IntList{2}}},
            {1, 1, 10, 10}) == Shape{1, 1, 6, 6});
}

TEST_CASE("grouped convolution divides the MACs by the groups", "[graphs][conv]") {
  const auto net = conv_net({{"out_channels", std::int64_t{32}},
                             {"kernel", IntList{3}},
                             {"padding", IntList{1}},
                             {"groups", std::int64_t{32}},
                             {"bias", false}},
                            {1, 32, 16, 16}, Mode::kInfer);
  // depthwise: 2 * N * K * P * Q * (C/g = 1) * R * S
  CHECK(net.graph.op(2).flops == Approx(2.0 * 32 * 16 * 16 * 9));
}

TEST_CASE("conv2d backward is twice the forward FLOPs (data + weight gradients)",
          "[graphs][conv]") {
  // The conv is the first layer, so no data gradient is emitted; a second conv has one.
  const ParamMap p{{"out_channels", std::int64_t{4}},
                   {"kernel", IntList{3}},
                   {"padding", IntList{1}},
                   {"bias", false}};
  const auto lowered = two_convs({2, 3, 8, 8}, p, p);
  const Operator* fwd = find(lowered, "c2.fwd");
  const Operator* dx = find(lowered, "c2.bwd_data");
  const Operator* dw = find(lowered, "c2.bwd_weight");
  REQUIRE((fwd && dx && dw));
  CHECK(dx->flops + dw->flops == Approx(2 * fwd->flops));
  CHECK(find(lowered, "c1.bwd_data") == nullptr);  // no gradient for the network input
  CHECK(find(lowered, "c1.bwd_weight") != nullptr);
}

TEST_CASE("a 1x1 stride-2 convolution reads a quarter of its input, its data gradient writes all",
          "[graphs][conv]") {
  // ResNet's projection shortcut: N=2, C=8, H=W=8, K=16, 1x1 stride 2 -> P=Q=4; the windows
  // touch rows and columns 0, 2, 4, 6 (graphs/conv_traffic.h: min(8, 4 x 1) = 4 of 8).
  const auto lowered = two_convs({2, 8, 8, 8},
                                 {{"out_channels", std::int64_t{8}},
                                  {"kernel", IntList{3}},
                                  {"padding", IntList{1}},
                                  {"bias", false}},
                                 {{"out_channels", std::int64_t{16}},
                                  {"kernel", IntList{1}},
                                  {"stride", IntList{2}},
                                  {"bias", false}});
  const Operator* fwd = find(lowered, "c2.fwd");
  const Operator* dx = find(lowered, "c2.bwd_data");
  const Operator* dw = find(lowered, "c2.bwd_weight");
  REQUIRE((fwd && dx && dw));
  const double x_read = 2.0 * 8 * 4 * 4, x_all = 2.0 * 8 * 8 * 8, weights = 16.0 * 8;
  const double y = 2.0 * 16 * 4 * 4;
  CHECK(fwd->bytes_read == Approx(4 * (x_read + weights)));
  CHECK(dw->bytes_read == Approx(4 * (y + x_read)));
  CHECK(dx->bytes_written == Approx(4 * x_all));
  // A 3x3 stride-1 layer reads all of its input.
  const Operator* c1 = find(lowered, "c1.fwd");
  REQUIRE(c1);
  CHECK(c1->bytes_read == Approx(4 * (x_all + 8.0 * 8 * 9)));
}

TEST_CASE("with a bias kernel the bias is an in-place broadcast add after the convolution",
          "[graphs][conv]") {
  // The same N=2, C=3, H=W=8, K=4, 3x3 pad 1 convolution, its bias added as eager frameworks
  // add it on a GPU (LoweringOptions::conv_bias_kernel).
  const auto net =
      conv_net({{"out_channels", std::int64_t{4}}, {"kernel", IntList{3}}, {"padding", IntList{1}}},
               {2, 3, 8, 8}, Mode::kInfer, true);
  const double n = 2, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, p = 8, q = 8;
  const Operator* fwd = find(net, "c.fwd");
  const Operator* bias = find(net, "c.bias");
  REQUIRE(fwd);
  REQUIRE(bias);
  CHECK(fwd->flops == Approx(2 * n * k * p * q * c * r * s));
  CHECK(fwd->bytes_read == Approx(4 * (n * c * h * w + k * c * r * s)));
  CHECK(bias->op_class == OpClass::kElementwise);
  CHECK(bias->flops == Approx(n * k * p * q));
  CHECK(bias->bytes_read == Approx(4 * (n * k * p * q + k)));
  CHECK(bias->bytes_written == Approx(4 * n * k * p * q));
  CHECK(bias->in_place);
  // Without a bias there is nothing to add.
  const auto plain = conv_net({{"out_channels", std::int64_t{4}},
                               {"kernel", IntList{3}},
                               {"padding", IntList{1}},
                               {"bias", false}},
                              {2, 3, 8, 8}, Mode::kInfer, true);
  CHECK_FALSE(find(plain, "c.bias"));
}
