#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "element_convert.cuh"
#include "elementwise_bench.h"
#include "precision.h"
#include "random_fill.h"

namespace amdahl::cudabench {
namespace {

constexpr std::size_t kMinBytes = std::size_t{4} << 10;
constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
constexpr int kBlock = 256;
// Enough resident blocks to fill every SM (2048 threads per SM on Volta..Hopper).
constexpr int kBlocksPerSm = 8;

enum class ElementwiseOp { kAdd, kRelu };

struct AddOp {
  static constexpr int kInputs = 2;
  __device__ static float apply(float a, float b) { return a + b; }
};

struct ReluOp {
  static constexpr int kInputs = 1;
  __device__ static float apply(float a, float /*unused*/) { return fmaxf(a, 0.0f); }
};

// out[i] = Op(a[i], b[i]) for i < n; one-input ops never read b (it may be null).
template <typename Op, typename T>
__global__ void elementwise_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                   T* __restrict__ out, std::size_t n) {
  using P = Pack<T>;
  const std::size_t packs = n / P::kWidth;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const P* a_packs = reinterpret_cast<const P*>(a);
  const P* b_packs = reinterpret_cast<const P*>(b);
  P* out_packs = reinterpret_cast<P*>(out);
  for (std::size_t i = first; i < packs; i += stride) {
    const P x = a_packs[i];
    const P y = Op::kInputs == 2 ? b_packs[i] : x;
    P z;
#pragma unroll
    for (int j = 0; j < P::kWidth; ++j)
      z.value[j] = from_float<T>(Op::apply(to_float(x.value[j]), to_float(y.value[j])));
    out_packs[i] = z;
  }
  for (std::size_t i = packs * P::kWidth + first; i < n; i += stride) {
    out[i] = from_float<T>(Op::apply(to_float(a[i]), to_float(Op::kInputs == 2 ? b[i] : a[i])));
  }
}

template <typename Op, typename T>
void launch_elementwise(const BenchConfig& config, const void* a, const void* b, void* out,
                        std::size_t n) {
  const std::size_t packs = std::max<std::size_t>(n / Pack<T>::kWidth, 1);
  const std::size_t blocks = std::min<std::size_t>(
      (packs + kBlock - 1) / kBlock, static_cast<std::size_t>(config.sm_count) * kBlocksPerSm);
  elementwise_kernel<Op, T><<<static_cast<unsigned>(blocks), kBlock, 0, config.stream>>>(
      static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
  AMDAHL_CUDA_CHECK(cudaGetLastError());
}

template <typename Op>
void launch_for_type(DataType type, const BenchConfig& config, const void* a, const void* b,
                     void* out, std::size_t n) {
  switch (type) {
    case DataType::kFloat32:
      launch_elementwise<Op, float>(config, a, b, out, n);
      break;
    case DataType::kFloat16:
      launch_elementwise<Op, __half>(config, a, b, out, n);
      break;
    case DataType::kBFloat16:
      launch_elementwise<Op, __nv_bfloat16>(config, a, b, out, n);
      break;
  }
}

}  // namespace

void run_elementwise_bench(const BenchConfig& config, Reporter& reporter) {
  // Three operands of the largest size must fit, with a tenth of free memory to spare.
  const std::size_t free_bytes = free_device_memory();
  const std::size_t limit = (free_bytes - free_bytes / 10) / 3;
  std::vector<std::size_t> sizes;
  for (std::size_t size : size_sweep(kMinBytes, kMaxBytes, config.quick)) {
    if (size <= limit) {
      sizes.push_back(size);
    } else {
      reporter.skip("elementwise operands of " + std::to_string(size) + " bytes",
                    "three do not fit in " + std::to_string(free_bytes) + " free bytes");
    }
  }
  if (sizes.empty()) return;
  const DeviceBuffer a(sizes.back());
  const DeviceBuffer b(sizes.back());
  const DeviceBuffer out(sizes.back());

  struct OpInfo {
    ElementwiseOp op;
    const char* bench;
    std::uint64_t operands;  // tensors read plus written
  };
  const OpInfo ops[] = {{ElementwiseOp::kAdd, "elementwise_add", 3},
                        {ElementwiseOp::kRelu, "elementwise_relu", 2}};
  const DataType types[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16};
  std::uint32_t seed = 200;

  for (const OpInfo& info : ops) {
    for (DataType type : types) {
      fill_uniform(a, type, seed++, config.stream);
      fill_uniform(b, type, seed++, config.stream);
      AMDAHL_CUDA_CHECK(cudaStreamSynchronize(config.stream));
      for (std::size_t size : sizes) {
        if (config.deadline.passed()) {
          reporter.skip(std::string(info.bench) + " " + precision_name(precision_of(type)),
                        "time budget of " +
                            std::to_string(static_cast<int>(config.deadline.seconds())) +
                            " s used up");
          break;
        }
        const std::size_t n = size / size_of(type);
        const Timing timing = time_on_stream(config.stream, config.timing, [&] {
          if (info.op == ElementwiseOp::kAdd) {
            launch_for_type<AddOp>(type, config, a.data(), b.data(), out.data(), n);
          } else {
            launch_for_type<ReluOp>(type, config, a.data(), nullptr, out.data(), n);
          }
        });
        Measurement row;
        row.bench = info.bench;
        row.op_class = "elementwise";
        row.precision = precision_name(precision_of(type));
        row.shape = ShapeString().add("n", n).str();
        row.flops = n;
        row.bytes = info.operands * size;
        row.time_s = timing.median_seconds;
        row.reps = timing.reps;
        reporter.record(row);
      }
    }
  }
}

}  // namespace amdahl::cudabench
