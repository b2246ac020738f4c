// Owning handles for device memory and page-locked host memory.
//
// Allocation failures throw CudaError (cuda_check.h); release never throws. The handles are
// move-only. free_device_memory() reports what cudaMalloc can still hand out, so a benchmark
// can skip sizes that do not fit instead of failing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_check.h"

namespace amdahl::cudabench {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) AMDAHL_CUDA_CHECK(cudaMalloc(&data_, bytes_));
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class PinnedHostBuffer {
 public:
  explicit PinnedHostBuffer(std::size_t bytes) : bytes_(bytes) {
    AMDAHL_CUDA_CHECK(cudaMallocHost(&data_, bytes_));
  }
  ~PinnedHostBuffer() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Bytes of device memory currently free on the current device.
inline std::size_t free_device_memory() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  AMDAHL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

}  // namespace amdahl::cudabench
