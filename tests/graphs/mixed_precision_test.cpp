// Mixed precision (fp16 / bf16 autocast), TF32 and gradient accumulation in lowering
// (graphs/lower.h). Expected values are hand counts on small networks: B = 4 rows, fp32 =
// 4 bytes, fp16 = 2 bytes.

#include <catch2/catch.hpp>

#include "graphs/autocast.h"
#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "graphs/network.h"
#include "graphs/optimizer.h"
#include "test_network.h"
#include "util/error.h"

using namespace amdahl;
using namespace amdahl::graphs;

namespace {
constexpr double kF32 = 4;
constexpr double kF16 = 2;

// x [4, 16] -> fc1 (16 -> 8) -> relu -> fc2 (8 -> 3) -> softmax cross-entropy.
// Parameters: fc1 16*8 + 8 = 136, fc2 8*3 + 3 = 27; 163 in all.
BoundNetwork mlp() {
  BoundNetwork net;
  net.name = "mlp";
  net.optimizer = OptimizerKind::kSgd;
  net.inputs.push_back({"x", TensorInfo{{4, 16}, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{4}, DType::kI64}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer("fc1", "linear", {"x"}, {{"out_features", std::int64_t{8}}}));
  add(test::layer("relu", "relu", {"fc1"}, {}));
  add(test::layer("fc2", "linear", {"relu"}, {{"out_features", std::int64_t{3}}}));
  add(test::layer("loss", "softmax_cross_entropy", {"fc2", "labels"}, {}));
  return net;
}

// x -> fc1 -> layer_norm -> relu -> fc2 -> loss: the dtype changes four times forward.
BoundNetwork normed_mlp() {
  BoundNetwork net;
  net.name = "normed";
  net.optimizer = OptimizerKind::kSgd;
  net.inputs.push_back({"x", TensorInfo{{4, 16}, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{4}, DType::kI64}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer("fc1", "linear", {"x"}, {{"out_features", std::int64_t{8}}}));
  add(test::layer("ln", "layer_norm", {"fc1"}, {}));
  add(test::layer("relu", "relu", {"ln"}, {}));
  add(test::layer("fc2", "linear", {"relu"}, {{"out_features", std::int64_t{3}}}));
  add(test::layer("loss", "softmax_cross_entropy", {"fc2", "labels"}, {}));
  return net;
}

const Operator& op_named(const LoweredNetwork& n, const std::string& name) {
  for (OpId id = 0; id < n.graph.size(); ++id)
    if (n.graph.op(id).name == name) return n.graph.op(id);
  FAIL("no op named " << name);
  return n.graph.op(0);
}

int count(const LoweredNetwork& n, const std::string& kind, Phase phase) {
  int c = 0;
  for (OpId id = 0; id < n.graph.size(); ++id)
    c += n.graph.op(id).kind == kind && n.graph.op(id).phase == phase;
  return c;
}

int count_kind(const LoweredNetwork& n, const std::string& kind) {
  int c = 0;
  for (OpId id = 0; id < n.graph.size(); ++id) c += n.graph.op(id).kind == kind;
  return c;
}

double total_flops(const LoweredNetwork& n) {
  double f = 0;
  for (OpId id = 0; id < n.graph.size(); ++id) f += n.graph.op(id).flops;
  return f;
}
}  // namespace

TEST_CASE("fp16 halves the bytes of a convolution and a linear layer, FLOPs unchanged",
          "[graphs][mixed_precision]") {
  BoundNetwork net;
  net.name = "conv";
  net.inputs.push_back({"x", TensorInfo{{2, 3, 8, 8}, DType::kF32}});
  net.layers.push_back(test::with_defaults(test::layer(
      "conv", "conv2d", {"x"}, {{"out_channels", std::int64_t{4}}, {"kernel", std::int64_t{3}}})));
  net.layers.push_back(test::with_defaults(
      test::layer("fc", "linear", {"conv"}, {{"out_features", std::int64_t{5}}})));
  for (const Precision half : {Precision::kFp16, Precision::kBf16}) {
    const auto fp32 = lower(net, {.mode = Mode::kInfer});
    const auto mp = lower(net, {.mode = Mode::kInfer, .precision = half});
    for (const char* name : {"conv.fwd", "fc.fwd"}) {
      INFO(name << " " << precision_name(half));
      const Operator& a = op_named(fp32, name);
      const Operator& b = op_named(mp, name);
      CHECK(b.flops == a.flops);
      CHECK(b.bytes_written == a.bytes_written / 2);
      CHECK(b.bytes_read == a.bytes_read / 2);  // 16-bit input and 16-bit weight copy
      CHECK(b.precision == half);
      CHECK(dtype_bytes(b.dtype) == 2);
    }
    // Inference, conv -> fc: one activation cast (x to 16 bits) and the 2 + 2 weight casts;
    // fc's output stays 16-bit (no fp32 consumer).
    CHECK(count_kind(mp, "cast") == 1);
    CHECK(count_kind(mp, "weight_cast") == 4);
  }
}

TEST_CASE("casts appear exactly where the dtype changes", "[graphs][mixed_precision]") {
  SECTION("mlp: fp32 input -> 16-bit GEMMs and relu -> fp32 loss") {
    // Forward: x -> fp16 before fc1; relu follows its fp16 input; fc2's output -> fp32 for
    // the loss: 2 casts. Backward: the loss gradient is cast back to fp16 (fc2.to_fp32's
    // backward); x needs no gradient, so x.to_fp16 has none: 1 cast. Weight casts: 2 per
    // linear layer (weight, bias) forward, and as many gradient casts.
    const auto n = lower(mlp(), {.mode = Mode::kTrain, .precision = Precision::kFp16});
    CHECK(count(n, "cast", Phase::kForward) == 2);
    CHECK(count(n, "cast", Phase::kBackwardData) == 1);
    CHECK(count_kind(n, "weight_cast") == 4);
    CHECK(count(n, "grad_cast", Phase::kBackwardWeight) == 4);
    CHECK(op_named(n, "x.to_fp16.fwd").bytes_written == 4 * 16 * kF16);
    CHECK(op_named(n, "fc2.to_fp32.fwd").bytes_written == 4 * 3 * kF32);
    CHECK(op_named(n, "relu.fwd").dtype == DType::kF16);
    CHECK(op_named(n, "fc1.weight.weight_cast").bytes_read == 16 * 8 * kF32);
    CHECK(op_named(n, "fc1.weight.weight_cast").bytes_written == 16 * 8 * kF16);
    CHECK(op_named(n, "fc1.weight.grad_cast").bytes_read == 16 * 8 * kF16);
    CHECK(op_named(n, "fc1.weight.grad_cast").bytes_written == 16 * 8 * kF32);
    // The update reads fp32 (master weight and fp32 gradient), as in fp32 training.
    const auto fp32 = lower(mlp(), {.mode = Mode::kTrain});
    CHECK(op_named(n, "fc1.weight.update").bytes() == op_named(fp32, "fc1.weight.update").bytes());
    CHECK(op_named(n, "fc1.weight.update").precision == Precision::kFp32);
  }
  SECTION("normed mlp: around a layer norm") {
    // Forward: x -> fp16 (fc1), fc1 -> fp32 (layer norm), relu follows fp32, relu -> fp16
    // (fc2), fc2 -> fp32 (loss): 4. Backward: every cast but x's carries a gradient: 3.
    const auto n = lower(normed_mlp(), {.mode = Mode::kTrain, .precision = Precision::kBf16});
    CHECK(count(n, "cast", Phase::kForward) == 4);
    CHECK(count(n, "cast", Phase::kBackwardData) == 3);
    CHECK(op_named(n, "relu.to_bf16.fwd").dtype == DType::kBf16);
    CHECK(op_named(n, "relu.fwd").dtype == DType::kF32);
  }
  SECTION("fp32 and tf32 insert no casts") {
    for (const Precision p : {Precision::kFp32, Precision::kTf32}) {
      const auto n = lower(normed_mlp(), {.mode = Mode::kTrain, .precision = p});
      CHECK(count_kind(n, "cast") == 0);
      CHECK(count_kind(n, "weight_cast") == 0);
      CHECK(count_kind(n, "grad_cast") == 0);
    }
  }
}

TEST_CASE("autocast's casts of the harness convnet equal PyTorch's",
          "[graphs][mixed_precision][autocast]") {
  // tests/fixtures/graphs/autocast_convnet.yaml: conv1 (no bias) -> bn1 -> relu -> max pool ->
  // conv2 (bias) -> bn2 -> relu -> conv3 (no bias) + residual -> global avg pool -> flatten ->
  // fc -> cross entropy. PyTorch 1.13, torch.autocast("cpu", torch.bfloat16), one step
  // (validate/harness/autocast_casts.py): 6 weight casts (conv1.w, conv2.w, conv2.b, conv3.w,
  // fc.w, fc.b; the batch norms read their fp32 parameters as they are), 2 activation casts
  // forward (x to bf16 for conv1, the logits to fp32 for the loss), 1 backward (the logits'
  // gradient back to bf16; x needs no gradient), 6 gradient casts. Inference: the 6 weight
  // casts and x's cast.
  const BoundNetwork net =
      bind_sizes(load_network(std::string(AMDAHL_FIXTURES) + "/graphs/autocast_convnet.yaml"), {});
  const auto train = lower(net, {.mode = Mode::kTrain, .precision = Precision::kBf16});
  CHECK(count_kind(train, "weight_cast") == 6);
  CHECK(count(train, "cast", Phase::kForward) == 2);
  CHECK(count(train, "cast", Phase::kBackwardData) == 1);
  CHECK(count_kind(train, "cast") == 3);
  CHECK(count_kind(train, "grad_cast") == 6);
  CHECK(op_named(train, "x.to_bf16.fwd").dtype == DType::kBf16);
  CHECK(op_named(train, "fc.to_fp32.fwd").dtype == DType::kF32);
  for (const char* name :
       {"bn1.fwd", "relu1.fwd", "pool1.fwd", "bn2.fwd", "residual.fwd", "gap.fwd"}) {
    INFO(name);
    CHECK(op_named(train, name).dtype == DType::kBf16);
  }
  const auto infer = lower(net, {.mode = Mode::kInfer, .precision = Precision::kBf16});
  CHECK(count_kind(infer, "weight_cast") == 6);
  CHECK(count_kind(infer, "cast") == 1);
}

TEST_CASE("batch norm follows its 16-bit input: no casts around it, its weights stay fp32",
          "[graphs][mixed_precision][autocast]") {
  // x -> conv (no bias) -> batch norm -> relu -> fc -> loss. CUDA autocast runs batch_norm on
  // no list: cuDNN takes the bf16 conv output with fp32 scale and shift.
  BoundNetwork net;
  net.name = "conv_bn";
  net.optimizer = OptimizerKind::kSgd;
  net.inputs.push_back({"x", TensorInfo{{2, 3, 8, 8}, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{2}, DType::kI64}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer(
      "conv", "conv2d", {"x"},
      {{"out_channels", std::int64_t{4}}, {"kernel", std::int64_t{3}}, {"bias", false}}));
  add(test::layer("bn", "batchnorm2d", {"conv"}, {}));
  add(test::layer("relu", "relu", {"bn"}, {}));
  add(test::layer("flat", "flatten", {"relu"}, {}));
  add(test::layer("fc", "linear", {"flat"}, {{"out_features", std::int64_t{3}}}));
  add(test::layer("loss", "softmax_cross_entropy", {"fc", "labels"}, {}));
  const auto n = lower(net, {.mode = Mode::kTrain, .precision = Precision::kBf16});
  CHECK(op_named(n, "bn.fwd").dtype == DType::kBf16);
  CHECK(op_named(n, "relu.fwd").dtype == DType::kBf16);
  // Casts: x and fc's logits forward, the logits' gradient backward; none touch bn.
  CHECK(count(n, "cast", Phase::kForward) == 2);
  CHECK(count(n, "cast", Phase::kBackwardData) == 1);
  for (OpId id = 0; id < n.graph.size(); ++id) {
    INFO(n.graph.op(id).name);
    if (n.graph.op(id).kind == "cast") CHECK(n.graph.op(id).layer.rfind("bn", 0) != 0);
    if (n.graph.op(id).layer == "bn") {
      CHECK(n.graph.op(id).kind != "weight_cast");
      CHECK(n.graph.op(id).kind != "grad_cast");
    }
  }
  // Weight casts: conv.weight, fc.weight, fc.bias; as many gradient casts.
  CHECK(count_kind(n, "weight_cast") == 3);
  CHECK(count_kind(n, "grad_cast") == 3);
}

TEST_CASE("mse loss runs in fp32: its 16-bit prediction is cast",
          "[graphs][mixed_precision][autocast]") {
  BoundNetwork net;
  net.name = "regression";
  net.optimizer = OptimizerKind::kSgd;
  net.inputs.push_back({"x", TensorInfo{{4, 16}, DType::kF32}});
  net.inputs.push_back({"y", TensorInfo{{4, 3}, DType::kF32}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer("fc", "linear", {"x"}, {{"out_features", std::int64_t{3}}}));
  add(test::layer("loss", "mse", {"fc", "y"}, {}));
  const auto n = lower(net, {.mode = Mode::kTrain, .precision = Precision::kBf16});
  // Forward: x to bf16 (fc), fc to fp32 (the loss); the fp32 target needs none.
  CHECK(count(n, "cast", Phase::kForward) == 2);
  CHECK(op_named(n, "fc.to_fp32.fwd").bytes_written == 4 * 3 * kF32);
  CHECK(op_named(n, "loss.fwd").dtype == DType::kF32);
  CHECK(op_named(n, "loss.fwd").precision == Precision::kFp32);
}

TEST_CASE("softmax casts its 16-bit input to fp32, and a following GEMM casts back",
          "[graphs][mixed_precision][autocast]") {
  // x -> fc1 -> softmax -> fc2 (inference): x to 16 bits, fc1 to fp32 (softmax), softmax back
  // to 16 bits (fc2).
  BoundNetwork net;
  net.name = "softmax";
  net.inputs.push_back({"x", TensorInfo{{4, 16}, DType::kF32}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer("fc1", "linear", {"x"}, {{"out_features", std::int64_t{8}}}));
  add(test::layer("sm", "softmax", {"fc1"}, {}));
  add(test::layer("fc2", "linear", {"sm"}, {{"out_features", std::int64_t{3}}}));
  for (const Precision half : {Precision::kFp16, Precision::kBf16}) {
    INFO(precision_name(half));
    const DType h = half == Precision::kBf16 ? DType::kBf16 : DType::kF16;
    const auto n = lower(net, {.mode = Mode::kInfer, .precision = half});
    CHECK(count_kind(n, "cast") == 3);
    CHECK(op_named(n, "sm.fwd").dtype == DType::kF32);
    CHECK(op_named(n, "fc1.to_fp32.fwd").bytes_written == 4 * 8 * kF32);
    CHECK(op_named(n, "sm.to_" + std::string(dtype_name(h)) + ".fwd").bytes_written ==
          4 * 8 * kF16);
  }
}

TEST_CASE("layers on autocast's fp32 list stay fp32 under fp16", "[graphs][mixed_precision]") {
  const auto n = lower(normed_mlp(), {.mode = Mode::kTrain, .precision = Precision::kFp16});
  for (const char* name : {"ln.fwd", "loss.fwd", "loss.bwd", "ln.bwd"}) {
    INFO(name);
    const Operator& op = op_named(n, name);
    CHECK(op.dtype == DType::kF32);
    CHECK(op.precision == Precision::kFp32);
  }
  for (OpId id = 0; id < n.graph.size(); ++id) {
    const Operator& op = n.graph.op(id);
    INFO(op.name);
    if (layer_registry().find(op.kind) && autocast_rule(op.kind).policy == AutocastPolicy::kFp32)
      CHECK(op.precision == Precision::kFp32);
  }
}

TEST_CASE("tf32 sets TF32 math on GEMM-class ops only, storage fp32", "[graphs][mixed_precision]") {
  const auto fp32 = lower(normed_mlp(), {.mode = Mode::kTrain});
  const auto tf32 = lower(normed_mlp(), {.mode = Mode::kTrain, .precision = Precision::kTf32});
  REQUIRE(fp32.graph.size() == tf32.graph.size());
  int gemms = 0;
  for (OpId id = 0; id < tf32.graph.size(); ++id) {
    const Operator& op = tf32.graph.op(id);
    INFO(op.name);
    const bool gemm = op.op_class == OpClass::kGemm || op.op_class == OpClass::kConv ||
                      op.op_class == OpClass::kRnn || op.op_class == OpClass::kAttention;
    gemms += gemm;
    CHECK(op.precision == (gemm ? Precision::kTf32 : Precision::kFp32));
    CHECK(op.dtype == fp32.graph.op(id).dtype);
    CHECK(op.bytes() == fp32.graph.op(id).bytes());
    CHECK(op.flops == fp32.graph.op(id).flops);
  }
  // fc1: fwd, bwd_weight (x needs no gradient); fc2: fwd, bwd_data, bwd_weight.
  CHECK(gemms == 5);
}

TEST_CASE("memory footprint of a small MLP under fp16 equals a hand count",
          "[graphs][mixed_precision]") {
  const auto n = lower(mlp(), {.mode = Mode::kTrain, .precision = Precision::kFp16});
  const double params = 163;
  // fp32 master weights plus the 16-bit copies: 163 x (4 + 2).
  CHECK(n.memory.weights_bytes == params * (kF32 + kF16));
  CHECK(n.memory.gradients_bytes == params * kF32);
  CHECK(n.memory.optimizer_state_bytes == 0);  // plain SGD
  // Activations: inputs on the device x (64 x 4) and labels (4 x 8); x.to_fp16 (64 x 2);
  // fc1 (32 x 2); relu (32 x 2); fc2 (12 x 2); fc2.to_fp32 (12 x 4); the loss writes its
  // fp32 probabilities and the scalar (12 x 4 + 4).
  const double activations =
      64 * kF32 + 4 * 8 + 64 * kF16 + 32 * kF16 + 32 * kF16 + 12 * kF16 + 12 * kF32 + 12 * kF32 + 4;
  CHECK(n.memory.activations_bytes == activations);
  CHECK(n.memory.workspace_bytes == 32 * kF16);  // the largest GEMM output, fc1's
  CHECK(n.memory.peak_bytes == params * (kF32 + kF16) + params * kF32 + activations + 32 * kF16);
}

TEST_CASE("gradient accumulation repeats forward and backward, updates once",
          "[graphs][accumulation]") {
  // FLOPs of the MLP, B = 4 (linear: 2*B*in*out + B*out bias; relu 1 per element each way;
  // loss 5 per logit + 1 per label forward, 2 per logit backward):
  //   forward  fc1 2*4*16*8 + 32 = 1056, relu 32, fc2 2*4*8*3 + 12 = 204, loss 60 + 4 = 64
  //   backward loss 24, fc2 data 192 + weight 192 + bias 12, relu 32, fc1 weight 1024 +
  //            bias 32 (x needs no gradient)
  //   SGD      2 per parameter: 326; accumulation adds 1 per parameter per extra micro-batch.
  const double forward = 1056 + 32 + 204 + 64;
  const double backward = 24 + 192 + 192 + 12 + 32 + 1024 + 32;
  const double update = 2 * 163;
  const auto one = lower(mlp(), {.mode = Mode::kTrain});
  CHECK(total_flops(one) == forward + backward + update);
  const auto two = lower(mlp(), {.mode = Mode::kTrain, .accumulation_steps = 2});
  CHECK(total_flops(two) == 2 * (forward + backward) + update + 163);
  const auto four = lower(mlp(), {.mode = Mode::kTrain, .accumulation_steps = 4});
  CHECK(total_flops(four) == 4 * (forward + backward) + update + 3 * 163);
  CHECK(count_kind(two, "grad_accumulate") == 4);
  CHECK(count(two, "sgd", Phase::kUpdate) == 4);
  CHECK(two.parameters == one.parameters);
  CHECK(two.accumulation_steps == 2);
  // The second micro-batch's ops are named apart; one micro-batch is live at a time.
  CHECK(op_named(two, "mb1.fc1.fwd").flops == op_named(two, "fc1.fwd").flops);
  CHECK(two.memory.peak_bytes == one.memory.peak_bytes);
  CHECK(op_named(two, "mb1.fc1.weight.grad_accumulate").bytes_read == 2 * 128 * kF32);
  for (OpId id = 0; id < two.graph.size(); ++id)
    for (OpId p : two.graph.predecessors(id)) CHECK(p < id);
  // Mixed precision casts weights and gradients in every micro-batch.
  const auto mp =
      lower(mlp(), {.mode = Mode::kTrain, .precision = Precision::kFp16, .accumulation_steps = 2});
  CHECK(count_kind(mp, "weight_cast") == 2 * 4);
  CHECK(count_kind(mp, "grad_cast") == 2 * 4);
  CHECK(mp.memory.peak_bytes ==
        lower(mlp(), {.mode = Mode::kTrain, .precision = Precision::kFp16}).memory.peak_bytes);
}

TEST_CASE("accumulation steps are validated", "[graphs][accumulation]") {
  CHECK_THROWS_AS(lower(mlp(), {.mode = Mode::kTrain, .accumulation_steps = 0}), UserError);
  CHECK_THROWS_WITH(lower(mlp(), {.mode = Mode::kInfer, .accumulation_steps = 2}),
                    Catch::Contains("training only"));
}
