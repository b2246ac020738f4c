// Brings the GPU out of its idle clocks before anything is timed: an idle GPU runs at a few
// hundred MHz and takes some tens of milliseconds of load to boost.
#pragma once

#include <cuda_runtime.h>

namespace amdahl::cudabench {

// Keeps every SM busy for about `seconds` (measured by the GPU's global timer), then waits
// for it to finish.
void warm_up_gpu(cudaStream_t stream, int sm_count, double seconds);

}  // namespace amdahl::cudabench
