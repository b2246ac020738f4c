// cuBLAS GEMM sweep: cublasGemmEx in fp32 (CUBLAS_COMPUTE_32F, no TF32), tf32
// (CUBLAS_COMPUTE_32F_FAST_TF32), fp16 and bf16 (16-bit A, B and C, fp32 accumulation), on
// square, skinny and DeepBench-like shapes.
//
// Rows: bench gemm, op_class gemm, shape "m=;n=;k=;ta=;tb=" (column-major, as cuBLAS and
// DeepBench state them), flops 2*m*n*k, bytes (m*k + k*n + m*n) * element size (beta = 0,
// so C is only written).
#pragma once

#include "bench_config.h"
#include "reporter.h"

namespace amdahl::cudabench {

void run_gemm_bench(const BenchConfig& config, Reporter& reporter);

}  // namespace amdahl::cudabench
