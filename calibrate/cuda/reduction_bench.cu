#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "element_convert.cuh"
#include "precision.h"
#include "random_fill.h"
#include "reduction_bench.h"

namespace amdahl::cudabench {
namespace {

constexpr std::size_t kMinBytes = std::size_t{4} << 10;
constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
constexpr int kBlock = 512;
constexpr int kWarp = 32;
constexpr int kBlocksPerSm = 4;

__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}

// The sum over the block, valid in thread 0. Every thread of the block must call it.
__device__ float block_sum(float value) {
  __shared__ float warp_sums[kBlock / kWarp];
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  value = warp_sum(value);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  value = static_cast<int>(threadIdx.x) < kBlock / kWarp ? warp_sums[lane] : 0.0f;
  if (warp == 0) value = warp_sum(value);
  __syncthreads();  // warp_sums may be reused by the next call
  return value;
}

// *out = sum of in[0..n). Each block sums a grid-strided share into partials[blockIdx.x];
// the last block to finish (counted in *blocks_done, which starts and ends at zero) sums the
// partials. One launch, no host round trip (the "threadFenceReduction" pattern of the CUDA
// samples).
template <typename T>
__global__ void __launch_bounds__(kBlock)
    reduce_sum_kernel(const T* __restrict__ in, std::size_t n, float* partials,
                      unsigned int* blocks_done, float* out) {
  using P = Pack<T>;
  const std::size_t packs = n / P::kWidth;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const P* in_packs = reinterpret_cast<const P*>(in);
  float sum = 0.0f;
  for (std::size_t i = first; i < packs; i += stride) {
    const P x = in_packs[i];
#pragma unroll
    for (int j = 0; j < P::kWidth; ++j) sum += to_float(x.value[j]);
  }
  for (std::size_t i = packs * P::kWidth + first; i < n; i += stride) sum += to_float(in[i]);
  sum = block_sum(sum);

  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();
    is_last_block = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;
  float total = 0.0f;
  for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x) total += __ldcg(&partials[i]);
  total = block_sum(total);
  if (threadIdx.x == 0) {
    *out = total;
    *blocks_done = 0;
  }
}

struct ReductionScratch {
  explicit ReductionScratch(std::size_t max_blocks)
      : partials(max_blocks * sizeof(float)),
        blocks_done(sizeof(unsigned int)),
        out(sizeof(float)) {}
  DeviceBuffer partials;
  DeviceBuffer blocks_done;
  DeviceBuffer out;
};

template <typename T>
void launch_reduce_sum(const BenchConfig& config, const void* in, std::size_t n,
                       const ReductionScratch& scratch) {
  const std::size_t packs = std::max<std::size_t>(n / Pack<T>::kWidth, 1);
  const std::size_t blocks = std::min<std::size_t>(
      (packs + kBlock - 1) / kBlock, static_cast<std::size_t>(config.sm_count) * kBlocksPerSm);
  reduce_sum_kernel<T><<<static_cast<unsigned>(blocks), kBlock, 0, config.stream>>>(
      static_cast<const T*>(in), n, scratch.partials.as<float>(),
      scratch.blocks_done.as<unsigned int>(), scratch.out.as<float>());
  AMDAHL_CUDA_CHECK(cudaGetLastError());
}

void launch_for_type(DataType type, const BenchConfig& config, const void* in, std::size_t n,
                     const ReductionScratch& scratch) {
  switch (type) {
    case DataType::kFloat32:
      launch_reduce_sum<float>(config, in, n, scratch);
      break;
    case DataType::kFloat16:
      launch_reduce_sum<__half>(config, in, n, scratch);
      break;
    case DataType::kBFloat16:
      launch_reduce_sum<__nv_bfloat16>(config, in, n, scratch);
      break;
  }
}

}  // namespace

void run_reduction_bench(const BenchConfig& config, Reporter& reporter) {
  const std::size_t free_bytes = free_device_memory();
  const std::size_t limit = free_bytes - free_bytes / 10;
  std::vector<std::size_t> sizes;
  for (std::size_t size : size_sweep(kMinBytes, kMaxBytes, config.quick)) {
    if (size <= limit) {
      sizes.push_back(size);
    } else {
      reporter.skip("reduce_sum input of " + std::to_string(size) + " bytes",
                    "does not fit in " + std::to_string(free_bytes) + " free bytes");
    }
  }
  if (sizes.empty()) return;
  const DeviceBuffer in(sizes.back());
  const ReductionScratch scratch(static_cast<std::size_t>(config.sm_count) * kBlocksPerSm);
  AMDAHL_CUDA_CHECK(
      cudaMemsetAsync(scratch.blocks_done.data(), 0, scratch.blocks_done.bytes(), config.stream));

  const DataType types[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16};
  std::uint32_t seed = 300;
  for (DataType type : types) {
    fill_uniform(in, type, seed++, config.stream);
    AMDAHL_CUDA_CHECK(cudaStreamSynchronize(config.stream));
    for (std::size_t size : sizes) {
      if (config.deadline.passed()) {
        reporter.skip(std::string("reduce_sum ") + precision_name(precision_of(type)),
                      "time budget of " +
                          std::to_string(static_cast<int>(config.deadline.seconds())) +
                          " s used up");
        break;
      }
      const std::size_t n = size / size_of(type);
      const Timing timing = time_on_stream(config.stream, config.timing, [&] {
        launch_for_type(type, config, in.data(), n, scratch);
      });
      Measurement row;
      row.bench = "reduce_sum";
      row.op_class = "reduction";
      row.precision = precision_name(precision_of(type));
      row.shape = ShapeString().add("n", n).str();
      row.flops = n;
      row.bytes = size + sizeof(float);
      row.time_s = timing.median_seconds;
      row.reps = timing.reps;
      reporter.record(row);
    }
  }
}

}  // namespace amdahl::cudabench
