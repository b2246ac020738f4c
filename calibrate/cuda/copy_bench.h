// Copy bandwidth and latency: device-to-device cudaMemcpyAsync (4 KiB..1 GiB) and host<->device
// copies from pinned and from pageable host memory, both directions (4 KiB..256 MiB).
//
// Rows (precision none, flops 0, shape "bytes=SIZE"):
//   copy_d2d, op_class memory, bytes 2*SIZE (read and written in device memory), timed with
//     events on the device;
//   copy_h2d_pinned, copy_d2h_pinned, op_class transfer, bytes SIZE, timed with events (an
//     asynchronous copy, as a framework's non_blocking copy);
//   copy_h2d_pageable, copy_d2h_pageable, op_class transfer, bytes SIZE, timed on the host
//     from the call to the end of a stream synchronization (the driver stages pageable
//     memory through a pinned buffer, and the calling thread waits for it).
#pragma once

#include "bench_config.h"
#include "reporter.h"

namespace amdahl::cudabench {

void run_copy_bench(const BenchConfig& config, Reporter& reporter);

}  // namespace amdahl::cudabench
