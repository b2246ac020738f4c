#include "util/precision.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "util/error.h"
#include "util/suggest.h"

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

const std::vector<Precision>& workload_precisions() {
  static const std::vector<Precision> kWorkload{Precision::kFp32, Precision::kTf32,
                                                Precision::kFp16, Precision::kBf16};
  return kWorkload;
}

std::vector<std::string> workload_precision_names() {
  std::vector<std::string> out;
  for (Precision p : workload_precisions()) out.emplace_back(precision_name(p));
  return out;
}

std::string workload_precision_error(std::string_view text) {
  const auto p = parse_precision(text);
  const auto& valid = workload_precisions();
  if (p && std::find(valid.begin(), valid.end(), *p) != valid.end()) return {};
  return fmt::format("unknown precision '{}'; {} (the precisions a step is costed at)",
                     excerpt(text), suggestion(text, workload_precision_names()));
}

Precision parse_workload_precision(std::string_view text, std::string_view what) {
  const std::string error = workload_precision_error(text);
  if (!error.empty()) throw UserError(fmt::format("{}: {}", what, error));
  return *parse_precision(text);
}

}  // namespace amdahl
