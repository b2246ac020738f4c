#pragma once
// Numeric precisions: of stored tensors and of the math an operator runs in.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdahl {

// Math precision of an op. kTf32 is fp32 storage with TF32 tensor-core math.
enum class Precision : std::uint8_t { kFp64, kFp32, kTf32, kFp16, kBf16, kInt8 };

std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view name);
std::vector<std::string> precision_names();

// The precisions GPUs run matrix math on tensor cores at (tf32, fp16, bf16): efficiency
// entries may be given per precision for these (model/efficiency.h).
const std::vector<Precision>& tensor_core_precisions();
bool is_tensor_core_precision(Precision p);
// The suffix of an efficiency entry at that precision (".fp16"); "" for other precisions.
std::string precision_suffix(Precision p);

}  // namespace amdahl
