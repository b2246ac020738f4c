// Full reduction written here: the sum of n elements (fp32, fp16 or bf16 in, fp32
// accumulation and result) in one kernel launch, as framework sum kernels do it, on inputs
// of 4 KiB to 1 GiB.
//
// Rows: bench reduce_sum, op_class reduction, shape "n=ELEMENTS", flops n, bytes
// n*size + 4 (the input read once, one fp32 written).
#pragma once

#include "bench_config.h"
#include "reporter.h"

namespace amdahl::cudabench {

void run_reduction_bench(const BenchConfig& config, Reporter& reporter);

}  // namespace amdahl::cudabench
