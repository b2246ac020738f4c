// An owning handle for a non-blocking CUDA stream; all benchmarks enqueue their work on one.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace amdahl::cudabench {

class CudaStream {
 public:
  CudaStream() { AMDAHL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() { cudaStreamDestroy(stream_); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace amdahl::cudabench
