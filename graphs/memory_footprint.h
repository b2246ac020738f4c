#pragma once
// Device memory a lowered network needs, in bytes (SI: 1 GB = 1e9 B).
//
//   weights          parameters at 4 bytes (fp32; the master copy under mixed precision),
//                    plus the 16-bit working copies the weight casts write
//   gradients        training: one fp32 gradient per parameter; data parallel (replicas > 1)
//                    two: DDP's buckets copy them (gradient_as_bucket_view=False, its default)
//   optimizer state  training: the optimizer's state tensors (optimizer.h) at 4 bytes
//   activations      training: every forward op's output, kept until the backward pass
//                    (what frameworks save without recomputation; views and in-place
//                    layers, whose output takes its input's storage, cost nothing); the
//                    network inputs on the device included. Inference: the largest live set
//                    of one op, its inputs plus its output (unless in place).
//   workspace        an estimate: the largest output of one GEMM-like op (conv, gemm, rnn,
//                    attention), the size of scratch a split-K GEMM or a Winograd / FFT
//                    convolution algorithm asks for
//   peak             the sum: everything resident at once at the start of the backward pass
// Under gradient accumulation the ops of the first micro-batch are counted (one micro-batch
// is live at a time; the fp32 gradients persist across micro-batches and are counted once).
// Under mixed precision activations count at their 16-bit size where autocast makes them
// 16-bit, and the casts' outputs (saved for the backward pass) count as activations.
// Fragmentation and the framework's own allocations are not counted.

namespace amdahl::graphs {

struct LoweredNetwork;

struct MemoryFootprint {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_state_bytes = 0;
  double activations_bytes = 0;
  double workspace_bytes = 0;
  double peak_bytes = 0;
};

// From the ops, weights, mode and optimizer of `net`.
MemoryFootprint memory_footprint(const LoweredNetwork& net);

}  // namespace amdahl::graphs
