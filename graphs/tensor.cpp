#include "graphs/tensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <utility>

#include "util/error.h"

namespace amdahl::graphs {
namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int bytes;
};
constexpr std::array<DTypeInfo, 8> kDTypes{{
    {DType::kF32, "fp32", 4},
    {DType::kF16, "fp16", 2},
    {DType::kBf16, "bf16", 2},
    {DType::kF64, "fp64", 8},
    {DType::kI64, "int64", 8},
    {DType::kI32, "int32", 4},
    {DType::kI8, "int8", 1},
    {DType::kBool, "bool", 1},
}};
}  // namespace

std::string_view dtype_name(DType t) { return kDTypes[static_cast<int>(t)].name; }
int dtype_bytes(DType t) { return kDTypes[static_cast<int>(t)].bytes; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& d : kDTypes)
    if (d.name == name) return d.type;
  return std::nullopt;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (const auto& d : kDTypes) out.emplace_back(d.name);
  return out;
}

std::int64_t elements(const Shape& s) {
  std::int64_t n = 1;
  for (const auto d : s)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      throw UserError(fmt::format("a tensor of shape {} has {} elements: sizes too large?",
                                  shape_str(s), d < 0 ? "a negative count of" : "more than 2^63"));
  return n;
}

std::string shape_str(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

}  // namespace amdahl::graphs
