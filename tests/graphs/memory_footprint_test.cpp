// The training footprint of a small MLP equals a hand count.

#include "graphs/memory_footprint.h"

#include <catch2/catch.hpp>

#include "graphs/lower.h"
#include "test_network.h"

using namespace amdahl::graphs;

namespace {
// x [8, 16] -> fc1 (16 -> 32) -> relu -> fc2 (32 -> 4) -> softmax cross-entropy; momentum.
// With relu_in_place, the relu writes over fc1's output (PyTorch's ReLU(inplace=True)).
BoundNetwork mlp(bool relu_in_place = false) {
  BoundNetwork net;
  net.name = "mlp";
  net.optimizer = OptimizerKind::kMomentum;
  net.inputs.push_back({"x", TensorInfo{{8, 16}, DType::kF32}});
  net.inputs.push_back({"labels", TensorInfo{{8}, DType::kI64}});
  auto add = [&](Layer l) { net.layers.push_back(test::with_defaults(std::move(l))); };
  add(test::layer("fc1", "linear", {"x"}, {{"out_features", std::int64_t{32}}}));
  add(test::layer("relu", "relu", {"fc1"}, {{"inplace", relu_in_place}}));
  add(test::layer("fc2", "linear", {"relu"}, {{"out_features", std::int64_t{4}}}));
  add(test::layer("loss", "softmax_cross_entropy", {"fc2", "labels"}, {}));
  return net;
}
}  // namespace

TEST_CASE("training footprint of a small MLP equals a hand count", "[graphs][memory]") {
  const MemoryFootprint m = lower(mlp(), {.mode = Mode::kTrain}).memory;
  const double params = (16 * 32 + 32) + (32 * 4 + 4);  // 676
  CHECK(m.weights_bytes == Approx(4 * params));
  CHECK(m.gradients_bytes == Approx(4 * params));
  CHECK(m.optimizer_state_bytes == Approx(4 * params));  // one momentum buffer
  // Kept for backward: x 8*16*4 = 512, labels 8*8 = 64, fc1 8*32*4 = 1024, relu 1024,
  // fc2 8*4*4 = 128, the loss's softmax 128 + its 4-byte value.
  const double activations = 512 + 64 + 1024 + 1024 + 128 + 128 + 4;
  CHECK(m.activations_bytes == Approx(activations));
  CHECK(m.workspace_bytes == Approx(1024));  // the largest GEMM output, fc1's
  CHECK(m.peak_bytes == Approx(3 * 4 * params + activations + 1024));
}

TEST_CASE("inference keeps weights and one op's live set only", "[graphs][memory]") {
  const MemoryFootprint m = lower(mlp(), {.mode = Mode::kInfer}).memory;
  CHECK(m.gradients_bytes == 0);
  CHECK(m.optimizer_state_bytes == 0);
  // The largest live set: relu reads fc1's [8, 32] and writes [8, 32]: 2 x 1024 bytes.
  CHECK(m.activations_bytes == Approx(2048));
}

TEST_CASE("an in-place layer's output takes no memory of its own", "[graphs][memory]") {
  // The relu's [8, 32] output (1024 bytes) lives in fc1's storage.
  const MemoryFootprint train = lower(mlp(), {.mode = Mode::kTrain}).memory;
  const MemoryFootprint train_in_place = lower(mlp(true), {.mode = Mode::kTrain}).memory;
  CHECK(train.activations_bytes - train_in_place.activations_bytes == Approx(1024));
  // Inference: the relu's live set is fc1's output alone, so fc2's (its 1024-byte input and
  // 128-byte output) and fc1's (512 + 1024) are the largest: 1536.
  CHECK(lower(mlp(true), {.mode = Mode::kInfer}).memory.activations_bytes == Approx(1536));
}
