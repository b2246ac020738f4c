#include "timer.h"

#include <utility>

namespace amdahl::cudabench {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return 0.5 * (lower + upper);
}

EventPair::EventPair() {
  AMDAHL_CUDA_CHECK(cudaEventCreate(&start_));
  AMDAHL_CUDA_CHECK(cudaEventCreate(&stop_));
}

EventPair::~EventPair() {
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
}

EventPair::EventPair(EventPair&& other) noexcept
    : start_(std::exchange(other.start_, nullptr)), stop_(std::exchange(other.stop_, nullptr)) {}

EventPair& EventPair::operator=(EventPair&& other) noexcept {
  std::swap(start_, other.start_);
  std::swap(stop_, other.stop_);
  return *this;
}

void EventPair::record_start(cudaStream_t stream) {
  AMDAHL_CUDA_CHECK(cudaEventRecord(start_, stream));
}

void EventPair::record_stop(cudaStream_t stream) {
  AMDAHL_CUDA_CHECK(cudaEventRecord(stop_, stream));
}

double EventPair::elapsed_seconds() const {
  float milliseconds = 0.0f;
  AMDAHL_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_, stop_));
  return 1e-3 * static_cast<double>(milliseconds);
}

}  // namespace amdahl::cudabench
