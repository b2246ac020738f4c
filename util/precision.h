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
inline constexpr int kPrecisionCount = static_cast<int>(Precision::kInt8) + 1;

std::string_view precision_name(Precision p);
std::optional<Precision> parse_precision(std::string_view name);
std::vector<std::string> precision_names();

// The precisions a workload runs at: what the lowering stores its tensors in and the roofline
// costs (graphs/lower.h): fp32, tf32, fp16 and bf16. fp64 and int8 are device peaks only (the
// schema's `peak` keys): a step at them would be lowered with fp32 tensors and costed at a rate
// no such step runs at, so no command takes them.
const std::vector<Precision>& workload_precisions();
std::vector<std::string> workload_precision_names();
// `text` (exactly as written: "FP32" is not a name) as a workload precision. Throws UserError
// "`what`: " + workload_precision_error(text) otherwise. The one parser of every --precision
// option, explore's :precision= and every CSV `precision` column.
Precision parse_workload_precision(std::string_view text, std::string_view what);
// Empty when `text` is a workload precision, else "unknown precision 'int8'; valid: fp32, tf32,
// fp16, bf16 (...)" (for option validators, which add the option's name).
std::string workload_precision_error(std::string_view text);

// The precisions GPUs run matrix math on tensor cores at (tf32, fp16, bf16): efficiency
// entries may be given per precision for these (model/efficiency.h).
const std::vector<Precision>& tensor_core_precisions();
bool is_tensor_core_precision(Precision p);
// The suffix of an efficiency entry at that precision (".fp16"); "" for other precisions.
std::string precision_suffix(Precision p);

}  // namespace amdahl
