#!/usr/bin/env python3
"""Fit the H200 machine's PyTorch 2.x eager host runtime from op-level measurements.

Prints a system file's `runtime:` block (host time per framework call by operator family,
autograd engine costs, SGD's foreach step, zero_grad, step-end sync) fitted from
`kernels/micro.csv` and the op-level rows of `networks/profile.csv` (torch.profiler over 3
fp32 training steps). Whole-step times (steps.csv, profile_steps.csv) set no value but
engine.module_call, which lono_h200_module_call.py chooses by leave-one-network-out (step 7):
`--explain` only compares the result with them, on stderr.

Method
1. Profiler slowdown. One operation is timed both ways: micro.csv `1000_tiny_launches_wall`
   (1000 x `x.add_(1.0)` on one element, unprofiled; median / 1000 = host time of one
   elementwise call with its launch) and, in the resnet50 batch-1 profile, `aten::add_` self
   per call + one `cudaLaunchKernel` self per call. factor = unprofiled / profiled, applied
   to every profiled host time below (one anchor: an error in it scales every value).
2. Families, from the op-level rows (resnet50 batch 1, host-bound, for conv, elementwise,
   normalization, pooling, reduction and softmax; seq2seq batch 64 for rnn, embedding and
   data_movement; gemm: the median over the five profiled configs, as resnet50 has one
   linear layer; alexnet 128, deepq 256, resnet50 64 otherwise cross-checks). One call's
   inclusive host time = the self time of the aten rows of its subtree + its shares of the
   shared rows, by these rules:
   - launches: each kernel row is mapped by name to the aten op that launches it (its
     self_device time lies on that op; checked with --explain) and charged the mean self
     time of its launch API: sm80_xmma and cublasLt splitKreduce kernels
     cudaLaunchKernelExC, cutlass kernels cuLaunchKernel, the rest cudaLaunchKernel (these
     counts match the API rows' counts exactly), plus the per-launch share of the error
     checks and attribute queries (cudaGetErrorString, cudaPeekAtLastError,
     cudaDeviceGetAttribute, ...) pooled over all launches; where cuDNN runs the same
     cuBLAS/cutlass kernels as addmm/mm (alexnet, deepq, resnet50 64), gemm is assumed to
     launch 1 kernel per call at the mean launch cost;
   - allocations and views: counts per call from the PyTorch 2.x sources, which reproduce
     the rows' call counts exactly (resnet50: 531 aten::empty per step = 53 x (5 in
     cudnn_batch_norm + 4 in its backward + 1 grad_weight in convolution_backward) + 1 in
     randint); conv outputs come from at::detail::empty_cuda, which the profiler does not
     record; linear's 5 aten::t per layer (1 forward, 4 backward) with their transpose and
     as_strided; 1 view per batch-norm call (expandScale); 1 zero_ + fill_ per
     max-pool backward and nll_loss backward; 1 aten::to per convolution backward;
   - cuDNN-side rows (cudaFuncSetAttribute, cudaEventRecord, cudaStreamWaitEvent) go to the
     config's cuDNN family (conv, or rnn in seq2seq), 1 share per forward or backward call;
     cudaMemsetAsync to its backward (in resnet50 b1 the 123 memsets match the 123
     wgrad_alg0/alg1 kernels, which accumulate);
   - seq2seq: allocation, view and fill rows not claimed by the embedding go to the rnn.
   host = forward call; backward = one amdahl backward op: half a convolution_backward
   (amdahl lowers it into data and weight gradients), one mm for gemm (AddmmBackward0 runs
   two), the whole cross-entropy backward for softmax, an aten::sum for reduction (amdahl's
   backward-phase reductions are bias gradients); rnn per cuDNN kernel (amdahl lowers an
   LSTM into per-layer, per-time-step ops, one kernel each; PyTorch makes one _cudnn_rnn call
   per nn.LSTM). kernels = kernels launched per forward call. attention: no rows, omitted.
3. Engine (resnet50 b1): backward_node = median over node types of (evaluate_function: X +
   X) self per call; accumulate_grad = (evaluate_function: AccumulateGrad + AccumulateGrad +
   aten::detach + detach) per call (one detach per AccumulateGrad in every config: the
   gradient stolen on first accumulation); zero_grad_per_param = Optimizer.zero_grad self per
   step / parameter tensors (AccumulateGrad calls per step). graph_replay: not measured on
   the host, omitted.
4. Optimizer: per config, Optimizer.step self + _foreach_mul_ + _foreach_add_ self + their
   launches, per step; a least-squares line over the five profiled configs against the
   parameter-tensor count gives step (intercept) and per_param (slope). kernels = foreach
   kernels per step in resnet50.
5. dispatch_per_op = the unprofiled tiny-launch wall time per call.
6. sync_latency = cudaDeviceSynchronize self per call, median over the configs host-bound
   under the profiler (op-level host time per step above the kernels' device time), factor
   applied; it still holds the tail of the last kernels (an upper bound).
7. Host path by mode (docs/runtime.md "Host path by mode"): autograd_record = aten::convolution
   self - aten::conv2d self per call (the autograd kernel's recording less a composite
   pass-through), median over the conv configs, factor applied; every family's forward host
   is its call less autograd_record times the share of its calls the training profile
   recorded (1 for conv, gemm, normalization, pooling, softmax, embedding, rnn; elementwise by
   its relu/dropout calls and Add/Pow/Mul/DivBackward0 nodes; 0 for the backward-pass rows of
   reduction and data_movement), so that ops' host values are the no-grad (inference) path.
   autocast_cast = aten::to + empty_strided + copy_ self + one cudaLaunchKernel with the
   per-launch checks (seq2seq b64; no cast was profiled). module_call is read from
   h200_module_call.json, which lono_h200_module_call.py writes (chosen from steps by
   leave-one-network-out, the one step-chosen value).

Usage: fit_h200_runtime.py [--data DIR] [--out FILE] [--explain]
--data defaults to ../shared/data/h200 from the repository root. A missing or malformed input
is an error (exit 2) and nothing is written; --out is written atomically.
"""

import argparse
import os
import sys

from atomic_write import write_atomically
from fit_common import REPO_ROOT, InputError
from h200_runtime_block import explain, fit, read_validation, render

DEFAULT_DATA = os.path.join(REPO_ROOT, "..", "shared", "data", "h200")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=None, help="data directory (default ../shared/data/h200 "
                    "from the repository root)")
    ap.add_argument("--out", help="write the runtime block here (atomically) instead of stdout")
    ap.add_argument("--explain", action="store_true", help="print the derivation to stderr")
    a = ap.parse_args()
    data = a.data if a.data else DEFAULT_DATA
    # The data directory as seen from the repository root, so that the block does not depend
    # on how the directory was named on the command line.
    label = (os.path.relpath(os.path.abspath(a.data), REPO_ROOT).replace(os.sep, "/")
             if a.data else "../shared/data/h200")
    try:
        if not os.path.isdir(data):
            raise InputError(f"{data}: no such data directory (expected kernels/micro.csv and "
                             "networks/profile.csv under it)")
        res = fit(data)
        validation = read_validation(data) if a.explain else None
    except InputError as err:
        print(f"fit_h200_runtime: error: {err}", file=sys.stderr)
        return 2
    text = render(res, label)
    if a.explain:
        explain(res, validation)
    if a.out:
        write_atomically(a.out, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
