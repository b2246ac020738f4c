#include <cstdint>

#include "cuda_check.h"
#include "device_buffer.h"
#include "gpu_warmup.h"

namespace amdahl::cudabench {
namespace {

constexpr int kWarmupBlock = 256;
constexpr int kWarmupBlocksPerSm = 4;

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t time;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(time));
  return time;
}

// Fused multiply-adds until the global timer passes `until_ns`; sink keeps the arithmetic
// from being optimized away (it is written only when the impossible happens).
__global__ void busy_kernel(std::uint64_t until_ns, float* sink) {
  float value = static_cast<float>(threadIdx.x);
  while (global_timer_ns() < until_ns) {
#pragma unroll 16
    for (int i = 0; i < 256; ++i) value = fmaf(value, 0.999999f, 1e-6f);
  }
  if (value == -1.0f) *sink = value;
}

__global__ void read_timer_kernel(std::uint64_t* now) { *now = global_timer_ns(); }

}  // namespace

void warm_up_gpu(cudaStream_t stream, int sm_count, double seconds) {
  const DeviceBuffer now(sizeof(std::uint64_t));
  const DeviceBuffer sink(sizeof(float));
  read_timer_kernel<<<1, 1, 0, stream>>>(now.as<std::uint64_t>());
  AMDAHL_CUDA_CHECK(cudaGetLastError());
  std::uint64_t start_ns = 0;
  AMDAHL_CUDA_CHECK(
      cudaMemcpyAsync(&start_ns, now.data(), sizeof(start_ns), cudaMemcpyDeviceToHost, stream));
  AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::uint64_t until_ns = start_ns + static_cast<std::uint64_t>(seconds * 1e9);
  busy_kernel<<<sm_count * kWarmupBlocksPerSm, kWarmupBlock, 0, stream>>>(until_ns,
                                                                          sink.as<float>());
  AMDAHL_CUDA_CHECK(cudaGetLastError());
  AMDAHL_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace amdahl::cudabench
