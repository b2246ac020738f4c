// Numeric precisions the benchmarks run in, and the storage types behind them.
//
// Names match the `precision` column of amdahl measurements v1: fp32 (IEEE fp32 arithmetic,
// no TF32), tf32 (fp32 storage, TF32 tensor-core math), fp16 and bf16 (16-bit storage, fp32
// accumulation, as framework autocast runs GEMM and convolution).
#pragma once

#include <cstddef>

namespace amdahl::cudabench {

enum class Precision { kFp32, kTf32, kFp16, kBf16 };

enum class DataType { kFloat32, kFloat16, kBFloat16 };

constexpr const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
  }
  return "unknown";
}

constexpr DataType storage_type(Precision precision) {
  switch (precision) {
    case Precision::kFp16:
      return DataType::kFloat16;
    case Precision::kBf16:
      return DataType::kBFloat16;
    case Precision::kFp32:
    case Precision::kTf32:
      break;
  }
  return DataType::kFloat32;
}

// Bytes of one element.
constexpr std::size_t size_of(DataType type) { return type == DataType::kFloat32 ? 4 : 2; }

// The precision column for a memory-bound kernel on elements of this type.
constexpr Precision precision_of(DataType type) {
  switch (type) {
    case DataType::kFloat16:
      return Precision::kFp16;
    case DataType::kBFloat16:
      return Precision::kBf16;
    case DataType::kFloat32:
      break;
  }
  return Precision::kFp32;
}

}  // namespace amdahl::cudabench
