#include "util/op_class.h"

#include <array>

namespace amdahl {
namespace {
constexpr std::array<std::string_view, kOpClassCount> kClassNames{
    "gemm",          "conv",      "rnn",       "attention", "elementwise",
    "normalization", "reduction", "softmax",   "embedding", "pooling",
    "data_movement", "transfer",  "optimizer", "host",      "communication"};
constexpr std::array<std::string_view, kPhaseCount> kPhaseNames{
    "forward", "backward_data", "backward_weight", "update", "host"};
}  // namespace

std::string_view op_class_name(OpClass c) { return kClassNames[static_cast<int>(c)]; }
std::string_view phase_name(Phase p) { return kPhaseNames[static_cast<int>(p)]; }

std::optional<OpClass> parse_op_class(std::string_view name) {
  for (int i = 0; i < kOpClassCount; ++i)
    if (kClassNames[i] == name) return static_cast<OpClass>(i);
  return std::nullopt;
}

std::vector<std::string> op_class_names() {
  return std::vector<std::string>(kClassNames.begin(), kClassNames.end());
}

}  // namespace amdahl
