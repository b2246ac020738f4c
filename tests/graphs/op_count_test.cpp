// Counting before allocating (docs/reliability.md): the op count a kind declares
// (LayerKind::op_count) is the number of ops its rules make, so lowering and re-lowering can
// check the op limit before a 10^8-step RNN is built op by op; binding counts the layers of
// blocks and repeats before making one; and `tied_to` must name a weight that exists and fits.

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "graphs/network.h"
#include "graphs/point_lowering.h"
#include "graphs/zoo.h"
#include "scratch_dir.h"
#include "test_network.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;
using amdahl::test::scratch_file;
using Catch::Contains;

namespace {

// The ops of `layer` in the forward pass and in the backward pass.
OpCount made(const LoweredNetwork& net, const std::string& layer) {
  OpCount c;
  for (OpId id = 0; id < net.graph.size(); ++id) {
    const Operator& op = net.graph.op(id);
    if (op.layer != layer) continue;
    if (op.phase == Phase::kForward) c.forward += 1;
    if (op.phase == Phase::kBackwardData || op.phase == Phase::kBackwardWeight) c.backward += 1;
  }
  return c;
}

std::string write_network(const std::string& name, const std::string& text) {
  const auto path = scratch_file("op_count_" + name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a recurrent kind's declared op count is the ops its rules make", "[graphs][ops]") {
  for (const std::string kind : {"lstm", "gru", "rnn"})
    for (const bool bidirectional : {false, true})
      for (const std::int64_t layers : {1, 3})
        for (const bool x_needs_grad : {false, true})
          for (const bool with_h0 : {false, true}) {
            INFO(kind << " bidirectional " << bidirectional << " layers " << layers
                      << " x needs grad " << x_needs_grad << " h0 " << with_h0);
            const std::int64_t d = bidirectional ? 2 : 1;
            BoundNetwork net;
            net.name = kind;
            net.inputs.push_back({"x", TensorInfo{{5, 4, 8}, DType::kF32}});
            net.inputs.push_back({"target", TensorInfo{{5, 4, 16 * d}, DType::kF32}});
            std::vector<std::string> inputs{"x"};
            if (x_needs_grad) {
              net.layers.push_back(graphs::test::with_defaults(graphs::test::layer(
                  "proj", "linear", {"x"}, {{"out_features", std::int64_t{8}}})));
              inputs = {"proj"};
            }
            if (with_h0) {  // an initial state that needs a gradient: made by a layer
              net.inputs.push_back({"h", TensorInfo{{layers * d, 4, 16}, DType::kF32}});
              net.layers.push_back(
                  graphs::test::with_defaults(graphs::test::layer("h0", "relu", {"h"}, {})));
              net.layers.back().params["inplace"] = false;
              net.layers.push_back(graphs::test::with_defaults(graphs::test::layer(
                  "h0w", "linear", {"h0"}, {{"out_features", std::int64_t{16}}})));
              inputs.push_back("h0w");
            }
            net.layers.push_back(graphs::test::with_defaults(
                graphs::test::layer("rnn", kind, inputs,
                                    {{"hidden_size", std::int64_t{16}},
                                     {"num_layers", layers},
                                     {"bidirectional", bidirectional}})));
            net.layers.push_back(graphs::test::with_defaults(
                graphs::test::layer("loss", "mse", {"rnn", "target"}, {})));
            std::vector<TensorInfo> shapes{TensorInfo{{5, 4, 8}, DType::kF32}};
            std::vector<bool> needs{x_needs_grad};
            if (with_h0) {
              shapes.push_back(TensorInfo{{layers * d, 4, 16}, DType::kF32});
              needs.push_back(true);
            }
            const OpCount declared = layer_registry().get(kind).op_count(
                net.layers[net.layers.size() - 2], shapes, needs);
            const OpCount train = made(lower(net, {.mode = Mode::kTrain}), "rnn");
            CHECK(declared.forward == train.forward);
            CHECK(declared.backward == train.backward);
            CHECK(declared.forward == made(lower(net, {.mode = Mode::kInfer}), "rnn").forward);
          }
}

TEST_CASE("the attention decoder's declared op count is the ops its rules make", "[graphs][ops]") {
  const Network seq2seq = load_zoo_network("seq2seq");
  const BoundNetwork bound = bind_sizes(
      seq2seq, {{"enc_len", 3}, {"dec_len", 4}, {"batch", 2}, {"layers", 2}, {"vocab", 50}});
  const LayerKind& kind = layer_registry().get("attention_decoder");
  const Layer* decoder = nullptr;
  for (const Layer& l : bound.layers)
    if (l.name == "decoder") decoder = &l;
  REQUIRE(decoder);
  // x [dec_len, N, H], enc [enc_len, N, H], h and c [layers, N, H]; all need a gradient.
  const std::vector<TensorInfo> in{{{4, 2, 256}}, {{3, 2, 256}}, {{2, 2, 256}}, {{2, 2, 256}}};
  const OpCount declared = kind.op_count(*decoder, in, {true, true, true, true});
  const OpCount train = made(lower(bound, {.mode = Mode::kTrain}), "decoder");
  CHECK(declared.forward == train.forward);
  CHECK(declared.backward == train.backward);
}

TEST_CASE("a sequence past the op limit is refused before its ops are made", "[graphs][ops]") {
  // seq2seq's 3-layer encoder over 10^8 steps: 3 (1 + 2 x 10^8) ops. Before the count it grew
  // to 7-10 GB; now the error comes before the first op of the layer.
  const Network seq2seq = load_zoo_network("seq2seq");
  const std::string expected =
      "layer 'encoder' (lstm): its forward pass makes 600000003 ops at these sizes (input "
      "[100000000, 64, 256]), after the 4 ops before it: more than the limit of 2000000 ops";
  CHECK_THAT(error_of([&] {
               lower(bind_sizes(seq2seq, {{"enc_len", 100000000}}), {.mode = Mode::kTrain});
             }),
             Contains(expected));
  // A sweep re-evaluating its first point's ops compares the count before the rules run, and
  // lowering afresh reports the limit.
  PointLowering points(std::make_shared<const Network>(seq2seq), {.mode = Mode::kTrain});
  points.at({{"enc_len", 40}});
  CHECK_THAT(error_of([&] { points.at({{"enc_len", 100000000}}); }), Contains(expected));
  // The limit is --max-ops's: the default encoder is 3 (1 + 2 x 40) ops.
  set_max_ops(200);
  CHECK_THAT(
      error_of([&] { lower(bind_sizes(seq2seq, {}), {.mode = Mode::kInfer}); }),
      Contains("its forward pass makes 243 ops") && Contains("more than the limit of 200 ops"));
  set_max_ops(kDefaultMaxOps);
}

TEST_CASE("binding counts the layers of blocks and repeats before making one", "[graphs][ranges]") {
  // GPT-2's decoder block has 10 layers: 10^6 of them are 10^7 layers.
  CHECK_THAT(error_of([] {
               bind_sizes(load_zoo_network("gpt2-small"), {{"layers", 1000000}});
             }),
             Contains("layer 'h': block decoder_layer (repeat 'layers') expands to 10000000 "
                      "layers: the network would have more than 2000000 layers"));
  // Blocks of ten blocks of ... of one disabled layer, 12 deep: no layer is made, but the
  // expansion would evaluate 2.1 x 10^11 declarations.
  std::string text =
      "name: nested\ndescription: n\nsource: n\nsizes:\n  batch: {default: 1, description: b}\n"
      "inputs:\n  - {name: x, shape: [batch, 4], dtype: fp32}\nblocks:\n"
      "  b0:\n    layers:\n      - {name: off, kind: relu, enabled: 0}\n";
  for (int k = 1; k < 12; ++k) {
    text += "  b" + std::to_string(k) + ":\n    layers:\n";
    for (int i = 0; i < 10; ++i)
      text += "      - {name: u" + std::to_string(i) + ", block: b" + std::to_string(k - 1) + "}\n";
  }
  text += "layers:\n  - {name: top, block: b11}\n";
  const Network nested = load_network(write_network("nested", text));
  CHECK_THAT(error_of([&] { bind_sizes(nested, {}); }),
             Contains("layer 'top': its blocks and repeats expand into 211111111111 layer "
                      "declarations"));
}

namespace {

// An embedding and a linear head tied to it (GPT-2's LM head), with `head` replacing the
// head's line.
std::string tied_network(const std::string& head) {
  return write_network(
      std::to_string(std::hash<std::string>{}(head)),
      "name: tied\ndescription: t\nsource: t\n"
      "sizes:\n  batch: {default: 4, description: b}\n  out: {default: 100, description: o}\n"
      "inputs:\n  - {name: tokens, shape: [batch, 16], dtype: int64}\n"
      "  - {name: labels, shape: [batch, 16], dtype: int64}\n"
      "layers:\n"
      "  - {name: wte, kind: embedding, input: tokens, num_embeddings: 100, embedding_dim: 32}\n"
      "  - {name: act, kind: relu}\n" +
          head + "\n  - {name: loss, kind: softmax_cross_entropy, inputs: [head, labels]}\n");
}

std::string tie_error(const std::string& head, const Bindings& sizes = {}) {
  return error_of(
      [&] { lower(bind_sizes(load_network(tied_network(head)), sizes), {.mode = Mode::kTrain}); });
}

}  // namespace

TEST_CASE("a tied layer uses its owner's weight, which is counted once", "[graphs][tied]") {
  const LoweredNetwork net = lower(
      bind_sizes(load_network(tied_network("  - {name: head, kind: linear, out_features: out, "
                                           "bias: false, tied_to: wte}")),
                 {}),
      {.mode = Mode::kTrain});
  CHECK(net.parameters == 100 * 32);  // the table alone
}

TEST_CASE("tied_to naming no weight that fits is a located error", "[graphs][tied]") {
  const std::string head = "  - {name: head, kind: linear, out_features: out, bias: false, ";
  CHECK_THAT(tie_error(head + "tied_to: wtx}"),
             Contains(":13:5: layer 'head' (linear): tied_to 'wtx': no layer of that name; did "
                      "you mean 'wte'"));
  CHECK_THAT(tie_error(head + "tied_to: head}"),
             Contains("layer 'head' (linear): tied_to 'head' names the layer itself"));
  CHECK_THAT(tie_error(head + "tied_to: act}"),
             Contains("tied_to 'act': layer 'act' (relu) has no weight to share"));
  // head -> head2 -> head: neither owns the weight.
  CHECK_THAT(tie_error(head + "tied_to: head2}\n  - {name: head2, kind: linear, input: act, "
                              "out_features: out, bias: false, tied_to: head}"),
             Contains("layer 'head' (linear): tied_to forms a cycle (head -> head2 -> head)"));
  // The table is [100, 32]; a head of 50 outputs needs [50, 32].
  CHECK_THAT(tie_error(head + "tied_to: wte}", {{"out", 50}}),
             Contains("layer 'head' (linear): tied_to 'wte': its weight is [100, 32]; this layer "
                      "needs [50, 32]"));
  // A chain ends at the layer that owns the weight.
  CHECK(tie_error(head + "tied_to: head2}\n  - {name: head2, kind: linear, input: act, "
                         "out_features: out, bias: false, tied_to: wte}") == "no error");
}

TEST_CASE("a tie's shape is checked at every point of a sweep", "[graphs][tied]") {
  const auto net = std::make_shared<const Network>(load_network(tied_network(
      "  - {name: head, kind: linear, out_features: out, bias: false, tied_to: wte}")));
  PointLowering points(net, {.mode = Mode::kTrain});
  CHECK(points.at({{"out", 100}}).parameters == 3200);
  CHECK_THAT(error_of([&] {
               points.at({{"out", 50}});
             }),
             Contains("tied_to 'wte': its weight is [100, 32]; this layer needs [50, 32]"));
}
