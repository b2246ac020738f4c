// Elementwise kernels written here, in the style of framework kernels (128-bit vector loads,
// grid-stride loop, fp32 arithmetic on 16-bit data): c = a + b and y = max(x, 0), in fp32,
// fp16 and bf16, on operands of 4 KiB to 1 GiB.
//
// Rows: bench elementwise_add | elementwise_relu, op_class elementwise, shape "n=ELEMENTS",
// flops n, bytes 3*n*size (add: two reads, one write) or 2*n*size (relu).
#pragma once

#include "bench_config.h"
#include "reporter.h"

namespace amdahl::cudabench {

void run_elementwise_bench(const BenchConfig& config, Reporter& reporter);

}  // namespace amdahl::cudabench
