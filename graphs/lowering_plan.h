#pragma once
// What lower() records for relower() (lower.h): the steps lowering took, where each op's
// and edge's numbers come from, and the numbers of the ops lowering adds itself (input
// copies, casts, gradient sums and accumulation, optimizer updates), written once for both
// passes. Internal to graphs/: lower.cpp writes a plan, relower.cpp reads it.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "graphs/layer_kind.h"
#include "graphs/lower.h"
#include "graphs/optimizer.h"

namespace amdahl::graphs {

inline constexpr double kF32Bytes = 4;

inline bool is_float(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBf16 || t == DType::kF64;
}
inline bool is_half(DType t) { return t == DType::kF16 || t == DType::kBf16; }

// Where an edge's bytes come from, so the numeric pass can recompute them.
struct BytesSource {
  enum class Kind : std::uint8_t { kTensor, kOpWritten, kOpRead, kWeightF32, kZero };
  Kind kind = Kind::kZero;
  std::size_t index = 0;  // tensor slot, op id, or index into LoweredNetwork::weights

  static BytesSource tensor(std::size_t slot) { return {Kind::kTensor, slot}; }
  static BytesSource written(OpId op) { return {Kind::kOpWritten, op}; }
  static BytesSource read(OpId op) { return {Kind::kOpRead, op}; }
  static BytesSource weight_f32(std::size_t j) { return {Kind::kWeightF32, j}; }
  static BytesSource zero() { return {Kind::kZero, 0}; }
};

// What lowering did, step by step, with every op's and edge's place in the graph, so that
// relower() can recompute the numbers alone. Layers are referred to by index (the
// network re-bound at another point has the same layers), cast layers by the copies kept
// here.
struct LoweringPlan {
  // One forward application of a layer (per micro-batch), and its backward.
  struct Record {
    std::size_t layer = 0;               // index into BoundNetwork::layers
    const Layer* synthesized = nullptr;  // a cast layer (in `casts`) instead
    const LayerKind* kind = nullptr;
    std::vector<std::size_t> input_slots, output_slots;
    std::optional<DType> run_dtype;
    bool counts_weights = false;   // micro-batch 0: its weights are LoweredNetwork::weights
    std::size_t first_weight = 0;  // their index there
    std::size_t weight_count = 0;
    std::vector<OpId> weight_casts;
    std::vector<OpId> forward_ops;
    // Backward (empty when none was emitted).
    bool has_backward = false;
    std::vector<bool> needs;
    struct BackwardOp {
      OpId id = kNoOp;
      bool chained = false;
      int grad_of_input = -1, grad_of_weight = -1;
    };
    std::vector<BackwardOp> backward_ops;
    std::size_t passed = 0;
    struct GradCast {
      OpId cast = kNoOp, grad = kNoOp;  // the grad_cast op and the 16-bit gradient it reads
      std::size_t weight = 0;
    };
    std::vector<GradCast> grad_casts;
  };
  struct Step {
    enum class Kind : std::uint8_t {
      kInput,
      kForward,
      kGradSum,
      kBackward,
      kAccumulate,
      kAllReduce,
      kUpdate
    };
    Kind kind = Kind::kInput;
    std::size_t index = 0;  // input: its index; forward, backward: record; grad_sum: slot;
                            // accumulate, update: weight (kAllWeights: the fused update);
                            // all_reduce: bucket (LoweredNetwork::buckets)
    OpId op = kNoOp;
    double count = 0;  // grad_sum: the contributions summed
  };
  static constexpr std::size_t kAllWeights = static_cast<std::size_t>(-1);
  struct Edge {
    OpId from = kNoOp, to = kNoOp;
    BytesSource source;
  };

  // A layer that uses another's weight (`tied_to`), resolved: its record, the owner's record
  // and the weight's index among the owner's (relower re-checks the shape at every point).
  struct Tie {
    std::size_t record = 0, owner = 0, weight = 0;
  };

  LoweringOptions options;
  std::size_t layer_count = 0, input_count = 0;
  std::vector<Tie> ties;
  std::deque<Layer> casts;
  std::vector<Record> records;
  std::vector<Step> steps;
  std::vector<Edge> edges;
  std::size_t slot_count = 0;
};

// The numbers of the ops lowering adds itself (not a layer kind's): one place each, used by
// the structural pass (lower.cpp) and the numeric pass (relower.cpp) alike.
void transfer_numbers(Operator& op, const TensorInfo& t);
void weight_cast_numbers(Operator& op, std::int64_t elements, DType half);
void grad_sum_numbers(Operator& op, const TensorInfo& t, double k);
void grad_cast_numbers(Operator& op, std::int64_t n, DType from);
void grad_accumulate_numbers(Operator& op, std::int64_t elements);
void update_numbers(Operator& op, OptimizerKind optimizer, double elements);
void all_reduce_numbers(Operator& op, double elements);

// The index of the weight `shared` names among `owner`'s weights (`layer` tied to `owner`,
// LayerKind::shared_weight). Throws UserError located at `layer` when `owner` has no such weight
// that can be shared (one with a stated shape) or its shape is not the one `layer` needs.
std::size_t shared_weight_index(const Layer& layer, const SharedWeight& shared, const Layer& owner,
                                const std::vector<Weight>& owner_weights);

// The network's parameter count `total` plus one weight's `elements`; throws UserError located
// at `layer` when the sum passes 2^63.
std::int64_t add_parameters(const Layer& layer, std::int64_t total, std::int64_t elements);

}  // namespace amdahl::graphs
