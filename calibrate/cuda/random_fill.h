// Fills device buffers with pseudo-random values.
//
// Benchmarks run on random data rather than zeros: tensor cores draw less power on zeros and
// then clock higher, which would flatter GEMM and convolution rates.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device_buffer.h"
#include "precision.h"

namespace amdahl::cudabench {

// Writes values uniform in [-1, 1) of the given type to all whole elements of buffer,
// enqueued on stream. The same seed gives the same values.
void fill_uniform(const DeviceBuffer& buffer, DataType type, std::uint32_t seed,
                  cudaStream_t stream);

}  // namespace amdahl::cudabench
