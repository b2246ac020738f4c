// Attention, embedding, layer norm and data-movement kinds: FLOPs, parameters and shapes
// equal their formulas.

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "test_network.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {
std::map<std::string, Operator> ops_by_name(const LoweredNetwork& net) {
  std::map<std::string, Operator> out;
  for (OpId id = 0; id < net.graph.size(); ++id) out[net.graph.op(id).name] = net.graph.op(id);
  return out;
}

BoundNetwork one_layer(const std::string& kind, std::vector<NamedTensor> inputs, ParamMap params) {
  BoundNetwork net;
  net.name = kind;
  net.inputs = std::move(inputs);
  std::vector<std::string> names;
  for (const auto& in : net.inputs) names.push_back(in.name);
  net.layers.push_back(test::with_defaults(test::layer("l", kind, names, std::move(params))));
  return net;
}
}  // namespace

TEST_CASE("multi-head self-attention: BERT-base layer parameters and FLOPs",
          "[graphs][attention]") {
  const double n = 2, l = 128, e = 768, h = 12;
  const auto net = lower(one_layer("attention", {{"x", TensorInfo{{2, 128, 768}, DType::kF32}}},
                                   {{"heads", std::int64_t{12}}}),
                         {.mode = Mode::kInfer});
  // Q, K, V and output projections with biases: 4 E^2 + 4 E.
  CHECK(net.parameters == 4 * 768 * 768 + 4 * 768);
  const auto ops = ops_by_name(net);
  CHECK(ops.at("l.in_proj").flops == Approx(2 * n * l * e * 3 * e + n * l * 3 * e));
  // Q K^T: per head [L, d] x [d, L], d = E / h.
  CHECK(ops.at("l.scores").flops == Approx(2 * n * h * l * l * (e / h)));
  CHECK(ops.at("l.scores").gemm.batch == 24);
  CHECK(ops.at("l.scores").gemm.k == 64);
  CHECK(ops.at("l.context").flops == Approx(2 * n * h * l * l * (e / h)));
  CHECK(ops.at("l.softmax").flops == Approx(7 * n * h * l * l));
  CHECK(ops.at("l.out_proj").output_shape == Shape{2, 128, 768});
}

TEST_CASE("additive attention over encoder states (Bahdanau)", "[graphs][attention]") {
  const double n = 4, lq = 10, lk = 5, e = 256;
  const auto net =
      lower(one_layer("attention",
                      {{"q", TensorInfo{{4, 10, 1536}, DType::kF32}},
                       {"enc", TensorInfo{{4, 5, 256}, DType::kF32}}},
                      {{"score", std::string("additive")}, {"embed_dim", std::int64_t{256}}}),
            {.mode = Mode::kInfer});
  // keys W1: E x Ek (no bias), query W2: E x Eq + b, v: E.
  const double eq = 1536;
  CHECK(static_cast<double>(net.parameters) == Approx(e * e + e * eq + e + e));
  const auto ops = ops_by_name(net);
  CHECK(ops.at("l.context").flops == Approx(2 * n * lq * lk * e));
  CHECK(ops.at("l.context").output_shape == Shape{4, 10, 256});
}

TEST_CASE("embedding gathers rows and has a sparse gradient", "[graphs][embedding]") {
  BoundNetwork net =
      one_layer("embedding", {{"ids", TensorInfo{{8, 20}, DType::kI64}}},
                {{"num_embeddings", std::int64_t{1000}}, {"embedding_dim", std::int64_t{64}}});
  net.inputs.push_back({"target", TensorInfo{{8, 20, 64}, DType::kF32}});
  net.layers.push_back(test::with_defaults(test::layer("loss", "mse", {"l", "target"}, {})));
  const auto lowered = lower(net, {.mode = Mode::kTrain});
  CHECK(lowered.parameters == 1000 * 64);
  const auto ops = ops_by_name(lowered);
  CHECK(ops.at("l.fwd").output_shape == Shape{8, 20, 64});
  // The gradient touches the 160 looked-up rows, not the 1000-row table.
  CHECK(ops.at("l.bwd_weight").bytes_written == Approx(4.0 * 160 * 64));
  CHECK(ops.at("l.bwd_weight").phase == Phase::kBackwardWeight);
}

TEST_CASE("layer norm normalizes the trailing dims with a gain and bias", "[graphs][norm]") {
  const auto net =
      lower(one_layer("layer_norm", {{"x", TensorInfo{{2, 128, 768}, DType::kF32}}}, {}),
            {.mode = Mode::kInfer});
  CHECK(net.parameters == 2 * 768);
  CHECK(net.graph.op(1).flops == Approx(8.0 * 2 * 128 * 768));
}

TEST_CASE("reshape infers -1, copies 0 and is a view", "[graphs][shape]") {
  const auto net = lower(one_layer("reshape", {{"x", TensorInfo{{2, 128, 768}, DType::kF32}}},
                                   {{"shape", IntList{0, -1, 12, 64}}}),
                         {.mode = Mode::kInfer});
  CHECK(net.graph.size() == 1);  // only the input copy
  CHECK_THROWS_WITH(lower(one_layer("reshape", {{"x", TensorInfo{{2, 10}, DType::kF32}}},
                                    {{"shape", IntList{3, -1}}}),
                          {.mode = Mode::kInfer}),
                    Catch::Contains("layer 'l' (reshape)") && Catch::Contains("cannot infer -1"));
}

TEST_CASE("transpose and concat move every byte once", "[graphs][shape]") {
  const auto t = lower(one_layer("transpose", {{"x", TensorInfo{{2, 3, 4}, DType::kF32}}},
                                 {{"perm", IntList{0, 2, 1}}}),
                       {.mode = Mode::kInfer});
  CHECK(t.graph.op(1).output_shape == Shape{2, 4, 3});
  CHECK(t.graph.op(1).bytes() == Approx(2 * 4.0 * 24));
  const auto c = lower(one_layer("concat",
                                 {{"a", TensorInfo{{2, 3, 4}, DType::kF32}},
                                  {"b", TensorInfo{{2, 5, 4}, DType::kF32}}},
                                 {}),
                       {.mode = Mode::kInfer});
  CHECK(c.graph.op(2).output_shape == Shape{2, 8, 4});
  CHECK_THROWS_WITH(lower(one_layer("concat",
                                    {{"a", TensorInfo{{2, 3, 4}, DType::kF32}},
                                     {"b", TensorInfo{{2, 5, 5}, DType::kF32}}},
                                    {}),
                          {.mode = Mode::kInfer}),
                    Catch::Contains("layer 'l' (concat)") && Catch::Contains("[2, 5, 5]"));
}
