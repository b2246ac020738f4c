#include "util/precision.h"

#include <algorithm>
#include <array>
#include <utility>

namespace amdahl {
namespace {
constexpr std::array<std::pair<Precision, std::string_view>, 6> kNames{{
    {Precision::kFp64, "fp64"},
    {Precision::kFp32, "fp32"},
    {Precision::kTf32, "tf32"},
    {Precision::kFp16, "fp16"},
    {Precision::kBf16, "bf16"},
    {Precision::kInt8, "int8"},
}};
}  // namespace

std::string_view precision_name(Precision p) {
  for (const auto& [value, name] : kNames)
    if (value == p) return name;
  return "?";
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (const auto& [value, n] : kNames)
    if (n == name) return value;
  return std::nullopt;
}

const std::vector<Precision>& tensor_core_precisions() {
  static const std::vector<Precision> kTensor{Precision::kTf32, Precision::kFp16, Precision::kBf16};
  return kTensor;
}

bool is_tensor_core_precision(Precision p) {
  const auto& tensor = tensor_core_precisions();
  return std::find(tensor.begin(), tensor.end(), p) != tensor.end();
}

std::string precision_suffix(Precision p) {
  return is_tensor_core_precision(p) ? "." + std::string(precision_name(p)) : std::string();
}

std::vector<std::string> precision_names() {
  std::vector<std::string> out;
  for (const auto& [value, name] : kNames) out.emplace_back(name);
  return out;
}

}  // namespace amdahl
