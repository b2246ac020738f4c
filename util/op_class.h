#pragma once
// Operator classes and phases: the vocabulary the op graph (graphs/) and the device's efficiency
// entries (hw/) share (docs/architecture.md "Concepts").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdahl {

enum class OpClass : std::uint8_t {
  kGemm,
  kConv,
  kRnn,
  kAttention,
  kElementwise,
  kNormalization,
  kReduction,
  kSoftmax,
  kEmbedding,
  kPooling,
  kDataMovement,
  kTransfer,
  kOptimizer,
  kHost,
  kCommunication,  // collectives between devices (data-parallel gradient all-reduce)
};
inline constexpr int kOpClassCount = 15;

enum class Phase : std::uint8_t { kForward, kBackwardData, kBackwardWeight, kUpdate, kHost };
inline constexpr int kPhaseCount = 5;

// Names as used in files, tables and JSON: "gemm", "data_movement", "backward_data", ...
std::string_view op_class_name(OpClass c);
std::string_view phase_name(Phase p);
std::optional<OpClass> parse_op_class(std::string_view name);
std::vector<std::string> op_class_names();

// The classes whose ops are matrix products (GEMMs, convolutions as implicit GEMMs, RNN and
// attention GEMMs): they run on tensor cores and matrix engines, carry GEMM dimensions, have
// efficiency entries per tensor-core precision and keep their activations for the backward pass.
constexpr bool is_matrix_class(OpClass c) {
  return c == OpClass::kGemm || c == OpClass::kConv || c == OpClass::kRnn ||
         c == OpClass::kAttention;
}

}  // namespace amdahl
