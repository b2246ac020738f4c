#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstddef>

#include "cuda_check.h"
#include "element_convert.cuh"
#include "random_fill.h"

namespace amdahl::cudabench {
namespace {

constexpr int kFillBlock = 256;
constexpr std::size_t kMaxFillBlocks = 65536;

// A stateless integer hash (the 32-bit finalizer of MurmurHash3) of index and seed: every
// element gets an independent value without per-thread generator state.
__device__ __forceinline__ std::uint32_t hash(std::uint64_t index, std::uint32_t seed) {
  std::uint32_t h =
      static_cast<std::uint32_t>(index) ^ static_cast<std::uint32_t>(index >> 32) * 0x9e3779b9u;
  h ^= seed;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

template <typename T>
__global__ void fill_uniform_kernel(T* data, std::size_t count, std::uint32_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    // The top 24 bits as a fraction in [0, 1), mapped to [-1, 1).
    const float unit = static_cast<float>(hash(i, seed) >> 8) * (1.0f / 16777216.0f);
    data[i] = from_float<T>(2.0f * unit - 1.0f);
  }
}

template <typename T>
void launch_fill(void* data, std::size_t count, std::uint32_t seed, cudaStream_t stream) {
  if (count == 0) return;
  const std::size_t blocks = std::min((count + kFillBlock - 1) / kFillBlock, kMaxFillBlocks);
  fill_uniform_kernel<T><<<static_cast<unsigned>(blocks), kFillBlock, 0, stream>>>(
      static_cast<T*>(data), count, seed);
  AMDAHL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void fill_uniform(const DeviceBuffer& buffer, DataType type, std::uint32_t seed,
                  cudaStream_t stream) {
  const std::size_t count = buffer.bytes() / size_of(type);
  switch (type) {
    case DataType::kFloat32:
      launch_fill<float>(buffer.data(), count, seed, stream);
      break;
    case DataType::kFloat16:
      launch_fill<__half>(buffer.data(), count, seed, stream);
      break;
    case DataType::kBFloat16:
      launch_fill<__nv_bfloat16>(buffer.data(), count, seed, stream);
      break;
  }
}

}  // namespace amdahl::cudabench
