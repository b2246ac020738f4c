// LSTM, GRU and vanilla RNN lowering: FLOPs per step derived here from the gate equations,
// the cuDNN structure (one input GEMM per layer, per-step recurrent GEMM + pointwise kernel),
// parameter counts as PyTorch counts them, and the backward GEMMs.

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "test_network.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {
constexpr double kT = 5, kN = 4, kI = 8, kH = 16;

LoweredNetwork recurrent(const std::string& kind, ParamMap params, Mode mode) {
  params.emplace("hidden_size", std::int64_t{16});
  BoundNetwork net;
  net.name = kind;
  net.inputs.push_back({"x", TensorInfo{{5, 4, 8}, DType::kF32}});
  net.inputs.push_back({"target", TensorInfo{{5, 4, 16}, DType::kF32}});
  net.layers.push_back(test::with_defaults(
      test::layer("proj", "linear", {"x"}, {{"out_features", std::int64_t{8}}})));
  net.layers.push_back(test::with_defaults(test::layer("rnn", kind, {"proj"}, params)));
  net.layers.push_back(test::with_defaults(test::layer("loss", "mse", {"rnn", "target"}, {})));
  return lower(net, {.mode = mode});
}

std::map<std::string, Operator> ops_by_name(const LoweredNetwork& net) {
  std::map<std::string, Operator> out;
  for (OpId id = 0; id < net.graph.size(); ++id) out[net.graph.op(id).name] = net.graph.op(id);
  return out;
}

int count_layer_ops(const LoweredNetwork& net, const std::string& layer, Phase phase) {
  int n = 0;
  for (OpId id = 0; id < net.graph.size(); ++id)
    n += net.graph.op(id).layer == layer && net.graph.op(id).phase == phase;
  return n;
}
}  // namespace

TEST_CASE("LSTM forward FLOPs per step follow the gate equations", "[graphs][recurrent]") {
  const auto ops = ops_by_name(recurrent("lstm", {}, Mode::kInfer));
  // Input projection of all T steps at once: [T*N, I] x [I, 4H].
  CHECK(ops.at("rnn.l0.xproj").flops == Approx(2 * kT * kN * kI * 4 * kH));
  CHECK(ops.at("rnn.l0.xproj").gemm.m == 20);
  CHECK(ops.at("rnn.l0.xproj").gemm.n == 64);
  // Per step: h_{t-1} [N, H] x [H, 4H].
  CHECK(ops.at("rnn.l0.t3.hproj").flops == Approx(2 * kN * kH * 4 * kH));
  // Pointwise per unit: i, f, g, o each = Wx + Uh + b_ih + b_hh (3 adds) -> 12;
  // sigmoid(i, f, o) 3 x 4 = 12; tanh(g) 4; c = f*c + i*g 3; h = o * tanh(c) 4 + 1 = 5.
  const double per_unit = 12 + 12 + 4 + 3 + 5;
  CHECK(ops.at("rnn.l0.t3.cell").flops == Approx(kN * kH * per_unit));
  // Parameters as PyTorch counts them: 4H x I + 4H x H + 2 x 4H.
  CHECK(recurrent("lstm", {}, Mode::kInfer).parameters == 8 * 8 + 8 + 64 * 8 + 64 * 16 + 2 * 64);
}

TEST_CASE("GRU forward FLOPs per step follow the gate equations", "[graphs][recurrent]") {
  const auto ops = ops_by_name(recurrent("gru", {}, Mode::kInfer));
  CHECK(ops.at("rnn.l0.xproj").flops == Approx(2 * kT * kN * kI * 3 * kH));
  CHECK(ops.at("rnn.l0.t0.hproj").flops == Approx(2 * kN * kH * 3 * kH));
  // r, z = sigmoid(Wx + b_i + Uh + b_h): 2 x 3 adds + 2 x 4; n = tanh(Wx + b_in + r * (Uh +
  // b_hn)): 2 adds + 1 add + 1 multiply + 4; h = (1 - z) * n + z * h: 4.
  const double per_unit = 6 + 8 + 4 + 4 + 4;
  CHECK(ops.at("rnn.l0.t0.cell").flops == Approx(kN * kH * per_unit));
}

TEST_CASE("a TensorFlow-style single bias changes the pointwise count and parameters",
          "[graphs][recurrent]") {
  const auto net = recurrent("lstm", {{"bias_vectors", std::int64_t{1}}}, Mode::kInfer);
  const auto ops = ops_by_name(net);
  CHECK(ops.at("rnn.l0.t0.cell").flops == Approx(kN * kH * (4 * 2 + 24)));
  CHECK(net.parameters == 8 * 8 + 8 + 64 * 8 + 64 * 16 + 64);
}

TEST_CASE("stacked bidirectional LSTM: per-layer input GEMM, per-step ops per direction",
          "[graphs][recurrent]") {
  const auto net =
      recurrent("lstm", {{"num_layers", std::int64_t{2}}, {"bidirectional", true}}, Mode::kInfer);
  // Per layer: 1 input GEMM + T steps x 2 directions x (recurrent GEMM + pointwise).
  CHECK(count_layer_ops(net, "rnn", Phase::kForward) == 2 * (1 + 5 * 2 * 2));
  const auto ops = ops_by_name(net);
  // Layer 1 reads both directions of layer 0: input width 2H.
  CHECK(ops.at("rnn.l1.xproj").flops == Approx(2 * kT * kN * (2 * kH) * (2 * 4 * kH)));
  CHECK(ops.at("rnn.l0r.t4.hproj").flops == Approx(2 * kN * kH * 4 * kH));
  // Layer 0: 2 x (4H x I + 4H x H + 8H); layer 1: 2 x (4H x 2H + 4H x H + 8H).
  const double p0 = 2 * (64 * 8 + 64 * 16 + 128), p1 = 2 * (64 * 32 + 64 * 16 + 128);
  CHECK(static_cast<double>(net.parameters) == Approx(8 * 8 + 8 + p0 + p1));
}

TEST_CASE("LSTM backward: weight gradients over all steps, recurrent data GEMMs per step",
          "[graphs][recurrent]") {
  const auto ops = ops_by_name(recurrent("lstm", {}, Mode::kTrain));
  CHECK(ops.at("rnn.l0.bwd_w_ih").flops == Approx(ops.at("rnn.l0.xproj").flops));
  CHECK(ops.at("rnn.l0.xproj_bwd_data").flops == Approx(ops.at("rnn.l0.xproj").flops));
  CHECK(ops.at("rnn.l0.bwd_w_hh").flops == Approx(kT * ops.at("rnn.l0.t0.hproj").flops));
  CHECK(ops.at("rnn.l0.t4.hproj_bwd").flops == Approx(ops.at("rnn.l0.t4.hproj").flops));
  // No recurrent data gradient before the first step (h0 is not an input here).
  CHECK(ops.count("rnn.l0.t0.hproj_bwd") == 0);
  CHECK(ops.at("rnn.l0.t0.cell_bwd").flops == Approx(kN * kH * 27));
}

TEST_CASE("vanilla RNN activation sets the pointwise count", "[graphs][recurrent]") {
  const auto ops =
      ops_by_name(recurrent("rnn", {{"nonlinearity", std::string("clipped_relu")}}, Mode::kInfer));
  // h = min(max(Wx + b_ih + Uh + b_hh, 0), 20): 3 adds + 2.
  CHECK(ops.at("rnn.l0.t0.cell").flops == Approx(kN * kH * 5));
}
