// Conversions between the storage types of precision.h and the fp32 the kernels compute in
// (framework kernels on 16-bit tensors also do their arithmetic in fp32).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace amdahl::cudabench {

__device__ __forceinline__ float to_float(float value) { return value; }
__device__ __forceinline__ float to_float(__half value) { return __half2float(value); }
__device__ __forceinline__ float to_float(__nv_bfloat16 value) { return __bfloat162float(value); }

template <typename T>
__device__ __forceinline__ T from_float(float value);
template <>
__device__ __forceinline__ float from_float<float>(float value) {
  return value;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float value) {
  return __float2half(value);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float value) {
  return __float2bfloat16(value);
}

// kWidth elements of T in one 16-byte aligned word, so that a load or store of a Pack is a
// single 128-bit memory instruction.
template <typename T>
struct alignas(16) Pack {
  static constexpr int kWidth = 16 / static_cast<int>(sizeof(T));
  T value[kWidth];
};

}  // namespace amdahl::cudabench
