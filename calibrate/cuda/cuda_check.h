// Status checks for CUDA runtime, cuBLAS and cuDNN calls.
//
// Every call into a CUDA library goes through one of the AMDAHL_*_CHECK macros. A failure
// throws, with the source file and line, the call as written and the library's own name and
// message for the status, e.g.
//   gemm_bench.cu:120: cublasGemmEx(...) failed: CUBLAS_STATUS_NOT_SUPPORTED
// Nothing below main() prints or exits on an error.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#ifdef AMDAHL_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace amdahl::cudabench {

// A CUDA runtime call failed. Some of these (an illegal address, a launch failure) leave the
// CUDA context unusable, so a benchmark group stops at the first one.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A cuBLAS or cuDNN call failed (often NOT_SUPPORTED for one configuration). The context is
// still usable, so a benchmark may skip the one shape and go on.
class LibraryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "file:line: call failed: status", with the directories stripped from file.
inline std::string describe_failure(const char* call, const char* file, int line,
                                    const std::string& status) {
  std::string path(file);
  const std::size_t slash = path.find_last_of('/');
  if (slash != std::string::npos) path.erase(0, slash + 1);
  return path + ":" + std::to_string(line) + ": " + call + " failed: " + status;
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw CudaError(describe_failure(
        call, file, line,
        std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")"));
  }
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw LibraryError(describe_failure(call, file, line, cublasGetStatusName(status)));
  }
}

#ifdef AMDAHL_HAVE_CUDNN
inline void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) {
    throw LibraryError(describe_failure(call, file, line, cudnnGetErrorString(status)));
  }
}
#endif

}  // namespace amdahl::cudabench

#define AMDAHL_CUDA_CHECK(call) ::amdahl::cudabench::check_cuda((call), #call, __FILE__, __LINE__)
#define AMDAHL_CUBLAS_CHECK(call) \
  ::amdahl::cudabench::check_cublas((call), #call, __FILE__, __LINE__)
#ifdef AMDAHL_HAVE_CUDNN
#define AMDAHL_CUDNN_CHECK(call) ::amdahl::cudabench::check_cudnn((call), #call, __FILE__, __LINE__)
#endif
