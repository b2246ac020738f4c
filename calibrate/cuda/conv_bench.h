// cuDNN convolution sweep: forward, backward-data and backward-filter on ResNet-50 layers at
// several batch sizes, each with the algorithm cuDNN's own search picks (the legacy
// cudnnFind*AlgorithmEx API, which runs every algorithm, as PyTorch does with
// torch.backends.cudnn.benchmark = True), then timed here.
//
// Precisions: fp32 (NCHW, CUDNN_FMA_MATH: no TF32), tf32 (NCHW, CUDNN_DEFAULT_MATH, which lets
// cuDNN use TF32 tensor cores), fp16 and bf16 (NHWC, CUDNN_TENSOR_OP_MATH, fp32 compute).
//
// Rows: bench conv_fwd | conv_bwd_data | conv_bwd_filter, op_class conv, shape
// "n=;c=;h=;w=;k=;r=;s=;pad=;stride=;algo=;layout=;math=", flops 2*N*K*P*Q*C*R*S (direct
// convolution, whatever the algorithm), bytes (N*C*H*W + K*C*R*S + N*K*P*Q) * element size
// (each direction reads two of the three tensors and writes the third).
//
// Built only with cuDNN (AMDAHL_HAVE_CUDNN); without it the group reports itself unavailable.
#pragma once

#include "bench_config.h"
#include "reporter.h"

namespace amdahl::cudabench {

// True when this build has cuDNN.
bool conv_bench_available();

void run_conv_bench(const BenchConfig& config, Reporter& reporter);

}  // namespace amdahl::cudabench
