#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "gemm_bench.h"
#include "precision.h"
#include "random_fill.h"

namespace amdahl::cudabench {
namespace {

struct GemmShape {
  int m = 0;
  int n = 0;
  int k = 0;
  bool transpose_a = false;
  bool transpose_b = false;
};

// Three families, each with enough distinct shapes that a fitter can hold out every fifth:
// square (tile and wave quantization at the large end, launch-bound at the small end),
// skinny (one small dimension: outer-product-like small k, matrix-vector-like small n), and
// DeepBench training GEMMs (baidu-research/DeepBench gemm_problems.h, training set; the list
// is in shared/data/deepbench/deepbench_kernels_gemm.csv): indices 0-77, 86-92 and the small
// 128/129/148/149, leaving out the k=500000 and n=48000 problems (gigabytes per operand).
std::vector<GemmShape> gemm_shapes(bool quick) {
  std::vector<GemmShape> shapes;
  const auto add = [&shapes](int m, int n, int k, bool ta = false, bool tb = false) {
    shapes.push_back(GemmShape{m, n, k, ta, tb});
  };
  constexpr bool kN = false;
  constexpr bool kT = true;
  if (quick) {
    for (int size : {256, 1024, 2048, 4096, 8192}) add(size, size, size);
    add(4096, 4096, 64);
    add(8192, 4, 8192);
    add(1760, 16, 1760);
    add(2560, 128, 2560, kT, kN);
    add(4096, 7000, 4096);
    add(7680, 64, 2560, kT, kN);
    add(5124, 9124, 2048);
    add(3072, 7435, 1024, kN, kT);
    return shapes;
  }
  for (int size :
       {128, 256, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192}) {
    add(size, size, size);
  }
  for (int k : {16, 32, 64, 128, 256, 512, 1024}) add(4096, 4096, k);
  for (int n : {1, 2, 4, 8, 256, 512}) add(8192, n, 8192);

  for (bool ta : {kN, kT}) {
    for (int m : {1760, 2048, 2560, 4096}) {
      for (int n : {16, 32, 64, 128, 7000}) add(m, n, m, ta, kN);
    }
  }
  for (int m : {1760, 2048, 2560, 4096}) add(m, 7133, m, kN, kT);
  for (bool ta : {kN, kT}) {
    for (int k : {1760, 2048, 2560, 4096}) {
      add(5124, 9124, k, ta, kN);
      add(35, 8457, k, ta, kN);
    }
  }
  for (bool ta : {kN, kT}) {
    for (int n : {16, 32, 64, 128}) add(7680, n, 2560, ta, kN);
  }
  for (bool ta : {kN, kT}) {
    for (int n : {16, 32, 64, 128}) add(3072, n, 1024, ta, kN);
  }
  add(3072, 7435, 1024, kN, kT);
  add(7680, 5481, 2560, kN, kT);
  add(1024, 700, 512, kN, kN);
  add(1024, 700, 512, kT, kN);
  add(7680, 24000, 2560);
  add(6144, 24000, 2048);
  add(4608, 24000, 1536);
  add(8448, 24000, 2816);
  add(3072, 24000, 1024);
  add(512, 16, 512);
  add(1024, 16, 512);
  add(512, 32, 512);
  add(1024, 32, 512);
  return shapes;
}

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(Precision precision) {
  switch (precision) {
    case Precision::kTf32:
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case Precision::kFp16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case Precision::kBf16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case Precision::kFp32:
      break;
  }
  return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
}

class CublasHandle {
 public:
  CublasHandle() { AMDAHL_CUBLAS_CHECK(cublasCreate(&handle_)); }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

std::string shape_text(const GemmShape& shape) {
  return ShapeString()
      .add("m", shape.m)
      .add("n", shape.n)
      .add("k", shape.k)
      .add("ta", shape.transpose_a ? "T" : "N")
      .add("tb", shape.transpose_b ? "T" : "N")
      .str();
}

}  // namespace

void run_gemm_bench(const BenchConfig& config, Reporter& reporter) {
  const std::vector<GemmShape> shapes = gemm_shapes(config.quick);
  std::size_t max_a = 0;
  std::size_t max_b = 0;
  std::size_t max_c = 0;
  for (const GemmShape& s : shapes) {
    max_a = std::max(max_a, static_cast<std::size_t>(s.m) * s.k);
    max_b = std::max(max_b, static_cast<std::size_t>(s.k) * s.n);
    max_c = std::max(max_c, static_cast<std::size_t>(s.m) * s.n);
  }
  // Buffers sized for fp32; the 16-bit runs use their first half.
  DeviceBuffer a(max_a * sizeof(float));
  DeviceBuffer b(max_b * sizeof(float));
  DeviceBuffer c(max_c * sizeof(float));

  CublasHandle handle;
  AMDAHL_CUBLAS_CHECK(cublasSetStream(handle.get(), config.stream));
  // Default math: with CUBLAS_COMPUTE_32F this is true fp32; TF32 comes only from the
  // explicit CUBLAS_COMPUTE_32F_FAST_TF32.
  AMDAHL_CUBLAS_CHECK(cublasSetMathMode(handle.get(), CUBLAS_DEFAULT_MATH));

  const Precision precisions[] = {Precision::kFp32, Precision::kTf32, Precision::kFp16,
                                  Precision::kBf16};
  std::uint32_t seed = 1;
  for (Precision precision : precisions) {
    const DataType type = storage_type(precision);
    const GemmTypes types = gemm_types(precision);
    const std::uint64_t element_bytes = size_of(type);
    fill_uniform(a, type, seed++, config.stream);
    fill_uniform(b, type, seed++, config.stream);
    AMDAHL_CUDA_CHECK(cudaStreamSynchronize(config.stream));

    for (std::size_t index = 0; index < shapes.size(); ++index) {
      const GemmShape& s = shapes[index];
      if (config.deadline.passed()) {
        reporter.skip(std::string("gemm ") + precision_name(precision) + ": " +
                          std::to_string(shapes.size() - index) + " shapes",
                      "time budget of " +
                          std::to_string(static_cast<int>(config.deadline.seconds())) +
                          " s used up");
        break;
      }
      const int lda = s.transpose_a ? s.k : s.m;
      const int ldb = s.transpose_b ? s.n : s.k;
      const float alpha = 1.0f;
      const float beta = 0.0f;
      const auto enqueue = [&] {
        AMDAHL_CUBLAS_CHECK(cublasGemmEx(handle.get(), s.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                         s.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N, s.m, s.n, s.k,
                                         &alpha, a.data(), types.data, lda, b.data(), types.data,
                                         ldb, &beta, c.data(), types.data, s.m, types.compute,
                                         CUBLAS_GEMM_DEFAULT));
      };
      Timing timing;
      try {
        timing = time_on_stream(config.stream, config.timing, enqueue);
      } catch (const LibraryError& error) {
        AMDAHL_CUDA_CHECK(cudaStreamSynchronize(config.stream));
        reporter.skip(std::string("gemm ") + precision_name(precision) + " " + shape_text(s),
                      error.what());
        continue;
      }
      const std::uint64_t m = static_cast<std::uint64_t>(s.m);
      const std::uint64_t n = static_cast<std::uint64_t>(s.n);
      const std::uint64_t k = static_cast<std::uint64_t>(s.k);
      Measurement row;
      row.bench = "gemm";
      row.op_class = "gemm";
      row.precision = precision_name(precision);
      row.shape = shape_text(s);
      row.flops = 2 * m * n * k;
      row.bytes = (m * k + k * n + m * n) * element_bytes;
      row.time_s = timing.median_seconds;
      row.reps = timing.reps;
      reporter.record(row);
    }
  }
}

}  // namespace amdahl::cudabench
