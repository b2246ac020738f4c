#pragma once
// The framework's host runtime applied to a lowered step (hw::RuntimeSpec; docs/architecture.md
// "Host runtime"): the host time to issue each op, the host work at the step's start, the
// kernels each op launches, and which elementwise ops a compiled runtime fuses into the op
// before them.
//
// Per op, in eager mode:
//   optimizer update        as lowered: one op per parameter tensor (loop) costs per_param,
//                           plus step on the first; one op for all (foreach, fused) costs
//                           step + per_param x parameter tensors
//   autocast's casts        engine.autocast_cast (cast, weight_cast, grad_cast ops); in the
//                           backward pass + engine.backward_node (each is a ToCopyBackward0
//                           node), in a training forward pass + engine.autograd_record where
//                           autograd records the cast
//   backward ops            ops[class].backward; the first backward op of a layer (its autograd
//                           node) adds engine.backward_node + engine.accumulate_grad x the
//                           layer's parameter tensors (gradient sums the lowering adds,
//                           grad_sum and grad_accumulate, are no node)
//   every other op          ops[class].host (the call without autograd recording: inference's
//                           path); in training the first forward op of a layer (its module
//                           call) adds engine.module_call, and engine.autograd_record where
//                           autograd records the layer (the layers the backward pass
//                           differentiates)
// Step start (training): engine.zero_grad_per_param x parameter tensors.
// graph_capture: no per-op host time; the step starts with one engine.graph_replay.
// compile: an elementwise op with an elementwise producer on the device that only it consumes
// joins that producer's kernel (the latest such producer): no host time, no launch, and it
// does not read that intermediate tensor back from memory. Its other inputs it still reads.

#include <cstdint>
#include <string>
#include <vector>

#include "graphs/lower.h"
#include "hw/system.h"

namespace amdahl::model {

struct HostRuntime {
  std::vector<double> issue_s;        // per op: host time to issue it
  std::vector<std::uint8_t> kernels;  // per op: kernels it launches (0: fused into its producer)
  // Per op (compile only; empty otherwise): the op whose kernel it joins, or kNoOp.
  std::vector<graphs::OpId> fused_into;
  double step_start_s = 0;              // host time before the first op (zero_grad, replay)
  std::vector<Assumption> assumptions;  // runtime costs used but not given (fallbacks)
};

// `on_device[id]`: op id runs on the accelerator (fusion happens only there).
HostRuntime host_runtime(const graphs::LoweredNetwork& net, const hw::RuntimeSpec& rt,
                         const std::vector<bool>& on_device);

}  // namespace amdahl::model
