#!/usr/bin/env python3
"""Fit the H200 machine's PyTorch 2.x eager host runtime from op-level measurements.

Prints a system file's `runtime:` block (host time per framework call by operator family,
autograd engine costs, SGD's foreach step, zero_grad, step-end sync) fitted from
`kernels/micro.csv` and the op-level rows of `networks/profile.csv` (torch.profiler over 3
fp32 training steps). Whole-step times (steps.csv, profile_steps.csv) never set a value:
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
   step / parameter tensors (AccumulateGrad calls per step). graph_replay and autocast_cast:
   not measured on the host, omitted.
4. Optimizer: per config, Optimizer.step self + _foreach_mul_ + _foreach_add_ self + their
   launches, per step; a least-squares line over the five profiled configs against the
   parameter-tensor count gives step (intercept) and per_param (slope). kernels = foreach
   kernels per step in resnet50.
5. dispatch_per_op = the unprofiled tiny-launch wall time per call.
6. sync_latency = cudaDeviceSynchronize self per call, median over the configs host-bound
   under the profiler (op-level host time per step above the kernels' device time), factor
   applied; it still holds the tail of the last kernels (an upper bound).

Usage: fit_h200_runtime.py [--data DIR] [--out FILE] [--explain]
--data defaults to ../shared/data/h200 from the repository root. A missing or malformed input
is an error (exit 2) and nothing is written; --out is written atomically.
"""

import argparse
import csv
import math
import os
import statistics
import sys

from atomic_write import write_atomically

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DATA = os.path.join(REPO_ROOT, "..", "shared", "data", "h200")

FAMILIES = ["conv", "gemm", "elementwise", "normalization", "pooling", "reduction", "softmax",
            "embedding", "rnn", "data_movement", "attention"]
MAIN = ("resnet50", 1)
SEQ = ("seq2seq", 64)
CONV_BIAS = {"alexnet", "deepq"}  # models.py: torchvision alexnet and DQN convs carry a bias

LAUNCH_APIS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel")
PER_LAUNCH_ROWS = ("cudaGetErrorString", "cudaPeekAtLastError", "cudaDeviceGetAttribute",
                   "cudaStreamIsCapturing", "cudaFuncGetAttributes", "cudaPointerGetAttributes",
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags")
CUDNN_ROWS = ("cudaFuncSetAttribute", "cudaEventRecord", "cudaStreamWaitEvent")
NOT_HOST = ("Activity Buffer Request", "cudaDeviceSynchronize")  # profiler's own; a wait
SHARED = ("aten::empty", "aten::empty_like", "aten::empty_strided", "aten::view",
          "aten::reshape", "aten::expand", "aten::as_strided", "aten::zeros", "aten::zero_",
          "aten::fill_", "aten::resize_", "aten::to", "aten::zeros_like", "aten::t",
          "aten::transpose")

PROFILE_COLS = ["model", "batch", "precision", "op", "calls", "self_device_us", "self_cpu_us",
                "steps"]
MICRO_COLS = ["bench", "bytes_or_elems", "median_us", "min_us"]
STEPS_COLS = ["model", "batch", "precision", "mode", "median_us", "min_us", "params"]
PSTEPS_COLS = ["model", "batch", "precision", "wall_us_per_step", "device_busy_us_per_step"]


class InputError(Exception):
    pass


def read_csv(path, cols, numeric):
    """Rows of `path` as dicts; `numeric` columns parsed as non-negative floats."""
    name = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)
    want = "expected columns " + ",".join(cols)
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None or [h.strip() for h in header] != cols:
                raise InputError(f"{path}: bad header {header}; {want}")
            rows = []
            for line, rec in enumerate(reader, start=2):
                if not rec:
                    continue
                if len(rec) != len(cols):
                    raise InputError(f"{path}:{line}: {len(rec)} fields; {want}")
                row = dict(zip(cols, rec))
                row["_line"] = line
                for c in numeric:
                    try:
                        v = float(row[c])
                    except ValueError:
                        raise InputError(f"{path}:{line}: {c}={row[c]!r} is not a number; {want}")
                    if not math.isfinite(v) or v < 0:
                        raise InputError(f"{path}:{line}: {c}={row[c]!r} must be >= 0; {want}")
                    row[c] = v
                rows.append(row)
    except FileNotFoundError:
        raise InputError(f"{path}: missing ({name}; {want})")
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: unreadable ({e}); {want}")
    if not rows:
        raise InputError(f"{path}: no data rows; {want}")
    return rows


def api_of(kernel):
    if kernel.startswith("Memset"):
        return "memset"
    if kernel.startswith("Memcpy"):
        return "memcpy"
    if kernel.startswith("sm80_xmma") or "splitKreduce" in kernel:
        return "cudaLaunchKernelExC"
    if "cutlass" in kernel:
        return "cuLaunchKernel"
    return "cudaLaunchKernel"


GEMM_LIKE = ("gemvx", "cutlass", "sm80_xmma_gemm", "sgemm", "scal_kernel", "cublasLt")
CONV_FWD = ("sm80_xmma_fprop", "implicit_convolve_sgemm", "precomputed_convolve_sgemm",
            "kern_precompute_indices")
CONV_BWD = ("dgrad", "wgrad", "Wgrad", "scalePackedTensor", "nchwToNhwc", "nhwcToNchw",
            "FoldedNchw", "foldedNchw", "nchwAddPadding")
CONV_ANY = ("fft2d", "flip_filter", "cf32", "region_transform", "winogradForward")
NAMED = [  # (substrings all present, launcher)
    (("multi_tensor_apply_kernel", "TensorListMetadata<1>"), "aten::_foreach_mul_"),
    (("multi_tensor_apply_kernel", "TensorListMetadata<2>"), "aten::_foreach_add_"),
    (("CUDAFunctorOnSelf_add",), "aten::add_"),
    (("CUDAFunctor_add",), "aten::add_"),
    (("launch_clamp_scalar",), "CLAMP"),
    (("threshold_kernel",), "aten::threshold_backward"),
    (("bn_fw",), "aten::cudnn_batch_norm"),
    (("bn_bw",), "aten::cudnn_batch_norm_backward"),
    (("max_pool_forward",), "aten::max_pool2d_with_indices"),
    (("max_pool_backward",), "aten::max_pool2d_with_indices_backward"),
    (("atomic_adaptive_average_gradinput",), "aten::_adaptive_avg_pool2d_backward"),
    (("adaptive_average_pool",), "aten::_adaptive_avg_pool2d"),
    (("MeanOps",), "aten::mean"),
    (("sum_functor",), "aten::sum"),
    (("FillFunctor",), "aten::fill_"),
    (("BUnaryFunctor", "MulFunctor"), "aten::div"),
    (("MulFunctor",), "aten::mul"),
    (("pow_tensor_scalar",), "aten::pow"),
    (("softmax_warp_forward",), "aten::_log_softmax"),
    (("softmax_warp_backward",), "aten::_log_softmax_backward_data"),
    (("nll_loss_forward",), "aten::nll_loss_forward"),
    (("nll_loss_backward",), "aten::nll_loss_backward"),
    (("distribution_elementwise",), "aten::random_"),
    (("vectorized_gather_kernel",), "aten::gather"),
    (("embedding_backward_feature_kernel",), "aten::embedding_dense_backward"),
    (("fused_dropout",), "aten::native_dropout"),
    (("masked_scale",), "aten::native_dropout_backward"),
    (("elemWiseRNNcell",), "aten::_cudnn_rnn"),
    (("LSTM_elementWise_bp",), "aten::_cudnn_rnn_backward"),
    (("GENERIC_elementWise_bp",), "aten::_cudnn_rnn_backward"),
    (("Memcpy",), "aten::copy_"),
]


class Config:
    """The op-level rows of one profiled configuration."""

    def __init__(self, key, rows, path="networks/profile.csv"):
        self.key = key
        self.steps = rows[0]["steps"]
        self.cpu = {}     # op -> [calls, self_cpu, self_device]
        self.kernels = {}  # kernel -> [calls, self_device]
        for r in rows:
            if r["steps"] != self.steps:
                raise InputError(f"{path}:{r['_line']}: steps {r['steps']:g} "
                                 f"differs from the {key[0]} batch {key[1]} rows' {self.steps:g}")
            op = r["op"]
            if r["self_cpu_us"] == 0 and op.startswith("Optimizer."):
                continue  # the optimizer's annotation on the device timeline
            if r["self_cpu_us"] == 0 and not op.startswith(("aten::", "autograd::", "torch::")) \
                    and not op.startswith("cuda") and not op.startswith("cuLaunch"):
                k = self.kernels.setdefault(op, [0.0, 0.0])
                k[0] += r["calls"]
                k[1] += r["self_device_us"]
            else:
                c = self.cpu.setdefault(op, [0.0, 0.0, 0.0])
                c[0] += r["calls"]
                c[1] += r["self_cpu_us"]
                c[2] += r["self_device_us"]
        self.claimed = {}  # op -> calls claimed
        self.launcher = {}  # kernel -> launcher op or tuple of ops
        self._map_kernels()

    def calls(self, op):
        return self.cpu[op][0] if op in self.cpu else 0.0

    def mean(self, op):
        c = self.cpu.get(op)
        return c[1] / c[0] if c and c[0] > 0 else 0.0

    def self_total(self, op):
        return self.cpu[op][1] if op in self.cpu else 0.0

    def _map_kernels(self):
        has = lambda op: self.calls(op) > 0
        clamp = "aten::clamp_min_" if has("aten::clamp_min_") else "aten::clamp_min"
        gemm_calls = self.calls("aten::addmm") + self.calls("aten::mm")
        for k, (n, _) in self.kernels.items():
            dest = None
            for subs, op in NAMED:
                if all(s in k for s in subs):
                    dest = clamp if op == "CLAMP" else op
                    break
            if dest is None and k.startswith("Memset"):  # charged via cudaMemsetAsync's row
                dest = ("aten::convolution_backward" if has("aten::convolution_backward") else
                        "aten::_cudnn_rnn_backward" if has("aten::_cudnn_rnn_backward")
                        else "cudaMemsetAsync")
            elif dest is None and any(s in k for s in CONV_ANY):
                dest = ("aten::cudnn_convolution", "aten::convolution_backward")
            elif dest is None and any(s in k for s in CONV_FWD):
                dest = "aten::cudnn_convolution"
            elif dest is None and any(s in k for s in CONV_BWD):
                dest = "aten::convolution_backward"
            elif dest is None and any(s in k for s in GEMM_LIKE):
                if has("aten::_cudnn_rnn") and n > gemm_calls:
                    # more launches than addmm + mm calls: cuDNN's RNN (tn: forward)
                    dest = "aten::_cudnn_rnn" if "_tn_" in k else "aten::_cudnn_rnn_backward"
                else:
                    dest = ("aten::addmm", "aten::mm")
            self.launcher[k] = dest

    def launches_of(self, op):
        """Kernels launched per call of `op` (excluding memsets) and their host cost per call
        (launch API mean + per-launch overhead), unfactored."""
        calls = self.calls(op)
        if calls == 0:
            return 0.0, 0.0
        n = cost = 0.0
        for k, dest in self.launcher.items():
            if dest == op:
                share = 1.0
            elif isinstance(dest, tuple) and op in dest:
                tot = sum(self.calls(d) for d in dest)
                share = calls / tot if dest != ("aten::cudnn_convolution",
                                                "aten::convolution_backward") \
                    else self.conv_any_share(op)
            else:
                continue
            kc = self.kernels[k][0] * share
            api = api_of(k)
            if api in ("memset", "memcpy"):
                continue
            n += kc
            cost += kc * (self.mean(api) + self.per_launch_overhead())
        return n / calls, cost / calls

    def conv_any_share(self, op):
        """Kernels cuDNN uses in both directions (FFT, Winograd): split by the device time the
        forward call leaves unexplained by its forward-only kernels."""
        amb = sum(v[1] for k, v in self.kernels.items()
                  if self.launcher[k] == ("aten::cudnn_convolution", "aten::convolution_backward"))
        if amb <= 0:
            return 0.5
        fwd_known = sum(v[1] for k, v in self.kernels.items()
                        if self.launcher[k] == "aten::cudnn_convolution")
        dev = self.cpu.get("aten::cudnn_convolution", [0, 0, 0])[2]
        f = min(1.0, max(0.0, (dev - fwd_known) / amb))
        return f if op == "aten::cudnn_convolution" else 1.0 - f

    def gemm_exact(self):
        """Whether the gemm-like kernels mapped to addmm/mm carry exactly their device time
        (1%): false where cuDNN runs the same cuBLAS/cutlass kernels."""
        dev = sum(self.cpu.get(op, [0, 0, 0])[2] for op in ("aten::addmm", "aten::mm"))
        mapped = sum(v[1] for k, v in self.kernels.items()
                     if self.launcher[k] == ("aten::addmm", "aten::mm"))
        return dev > 0 and abs(dev - mapped) <= 0.01 * dev

    def pooled_launch(self):
        """Mean self time of one launch over the three launch APIs, plus the overhead share."""
        n = sum(self.calls(a) for a in LAUNCH_APIS)
        t = sum(self.self_total(a) for a in LAUNCH_APIS)
        return (t / n if n else 0.0) + self.per_launch_overhead()

    def total_launches(self):
        return sum(v[0] for k, v in self.kernels.items() if api_of(k) not in ("memset", "memcpy"))

    def per_launch_overhead(self):
        n = self.total_launches()
        return sum(self.self_total(r) for r in PER_LAUNCH_ROWS) / n if n else 0.0

    def device_checks(self):
        """(launcher, device time on its op rows, device time of the kernels mapped to it)."""
        out = {}
        conv = ("aten::cudnn_convolution", "aten::convolution_backward")
        for k, dest in self.launcher.items():
            if dest in conv:
                dest = conv  # one check for both directions: FFT kernels serve both
            out.setdefault(dest, [0.0, 0.0])[1] += self.kernels[k][1]
        for dest in out:
            ops = dest if isinstance(dest, tuple) else (dest,)
            out[dest][0] = sum(self.cpu.get(op, [0, 0, 0])[2] for op in ops)
        for op, v in self.cpu.items():  # ops with device time but no kernel mapped
            if v[2] > 0 and op not in out and not any(isinstance(d, tuple) and op in d
                                                      for d in out) and op not in NOT_HOST:
                out[op] = [v[2], 0.0]
        return out


class Part:
    """One family direction in one config: host rows claimed, launches, calls."""

    def __init__(self, cfg, family, direction):
        self.cfg, self.family, self.direction = cfg, family, direction
        self.calls = 0.0
        self.aten = 0.0      # self time of aten/autograd rows claimed (unfactored, total)
        self.runtime = 0.0   # launches, memsets, cuDNN-side rows (unfactored, total)
        self.kernels = 0.0   # kernels launched (total)
        self.rows = []
        self.assumed = False  # launches assumed (1 per call), not mapped

    def top(self, *ops):
        for op in ops:
            self.calls += self.cfg.calls(op)
        return self

    def claim(self, op, n=None):
        """Claim n calls of op (all unclaimed calls when n is None) with their launches."""
        cfg = self.cfg
        avail = cfg.calls(op) - cfg.claimed.get(op, 0.0)
        n = avail if n is None else min(n, avail)
        if n <= 1e-9:
            return self
        cfg.claimed[op] = cfg.claimed.get(op, 0.0) + n
        host = n * cfg.mean(op)
        if op.startswith(("cuda", "cu")):
            self.runtime += host
        else:
            self.aten += host
        k, kcost = cfg.launches_of(op)
        self.kernels += n * k
        self.runtime += n * kcost
        short = op.replace("aten::", "")
        if short not in self.rows:
            self.rows.append(short)
        return self

    def per(self, op, k):
        return self.claim(op, k * self.calls)

    def per_call(self):
        if self.calls <= 0:
            return None
        return (self.aten + self.runtime) / self.calls


def build_parts(cfg):
    """The family parts of one config, claiming rows in a fixed order."""
    P = {}
    c = cfg.calls

    def part(fam, d):
        p = Part(cfg, fam, d)
        P[(fam, d)] = p
        return p

    # conv
    if c("aten::conv2d") > 0:
        f = part("conv", "fwd").top("aten::conv2d")
        for op in ("aten::conv2d", "aten::convolution", "aten::_convolution",
                   "aten::cudnn_convolution"):
            f.claim(op)
        if cfg.key[0] in CONV_BIAS:  # _convolution adds the bias: add_ of reshape(bias)
            f.per("aten::add_", 1).per("aten::reshape", 1).per("aten::view", 1)
        b = part("conv", "bwd").top("aten::convolution_backward")
        b.claim("aten::convolution_backward").per("aten::to", 1).per("aten::empty", 1)
        b.claim("cudaMemsetAsync")
    # normalization
    if c("aten::batch_norm") > 0:
        f = part("normalization", "fwd").top("aten::batch_norm")
        for op in ("aten::batch_norm", "aten::_batch_norm_impl_index", "aten::cudnn_batch_norm"):
            f.claim(op)
        f.per("aten::empty_like", 1).per("aten::empty", 5).per("aten::view", 1)
        b = part("normalization", "bwd").top("aten::cudnn_batch_norm_backward")
        b.claim("aten::cudnn_batch_norm_backward").per("aten::empty", 4).per("aten::view", 1)
    # gemm
    if c("aten::addmm") > 0:
        f = part("gemm", "fwd").top("aten::addmm")
        f.claim("aten::linear").claim("aten::addmm")
        f.per("aten::t", 1).per("aten::transpose", 1).per("aten::as_strided", 1)
        b = part("gemm", "bwd").top("aten::mm")
        b.claim("aten::mm").per("aten::t", 2).per("aten::transpose", 2).per("aten::as_strided", 2)
        if not cfg.gemm_exact():  # kernels not separable from cuDNN's: assume 1 per call
            for p in (f, b):
                p.runtime, p.kernels, p.assumed = p.calls * cfg.pooled_launch(), p.calls, True
    # softmax: the cross-entropy loss, the data's only softmax
    if c("aten::cross_entropy_loss") > 0:
        f = part("softmax", "fwd").top("aten::cross_entropy_loss")
        for op in ("aten::cross_entropy_loss", "aten::log_softmax", "aten::_log_softmax",
                   "aten::nll_loss_nd", "aten::nll_loss", "aten::nll_loss_forward"):
            f.claim(op)
        f.per("aten::resize_", 1)
        b = part("softmax", "bwd").top("NllLossBackward0")
        b.claim("aten::nll_loss_backward").claim("aten::_log_softmax_backward_data")
        b.per("aten::zero_", 1).per("aten::fill_", 1)
    # pooling
    if c("aten::max_pool2d") + c("aten::adaptive_avg_pool2d") > 0:
        f = part("pooling", "fwd").top("aten::max_pool2d", "aten::adaptive_avg_pool2d")
        for op in ("aten::max_pool2d", "aten::max_pool2d_with_indices",
                   "aten::adaptive_avg_pool2d"):
            f.claim(op)
        if c("aten::_adaptive_avg_pool2d") > 0:
            f.claim("aten::_adaptive_avg_pool2d").claim("aten::empty",
                                                        c("aten::_adaptive_avg_pool2d"))
        else:  # global: adaptive_avg_pool2d calls mean
            f.claim("aten::mean", c("aten::adaptive_avg_pool2d"))
        b = part("pooling", "bwd").top("aten::max_pool2d_with_indices_backward",
                                       "MeanBackward1", "aten::_adaptive_avg_pool2d_backward")
        nmax = c("aten::max_pool2d_with_indices_backward")
        b.claim("aten::max_pool2d_with_indices_backward")
        b.claim("aten::zero_", nmax).claim("aten::fill_", nmax)
        nmean = c("MeanBackward1")
        b.claim("aten::expand", nmean).claim("aten::as_strided", nmean).claim("aten::div", nmean)
        nad = c("aten::_adaptive_avg_pool2d_backward")
        if nad:
            b.claim("aten::_adaptive_avg_pool2d_backward").claim("aten::zeros_like", nad)
            b.claim("aten::empty_like", nad).claim("aten::empty", nad)
            b.claim("aten::zero_", nad).claim("aten::fill_", nad)
    # elementwise: add_, relu, dropout (forward); threshold_backward, dropout backward
    f = part("elementwise", "fwd").top("aten::add_", "aten::relu_", "aten::relu",
                                       "aten::dropout")
    for op in ("aten::add_", "aten::relu_", "aten::clamp_min_", "aten::relu", "aten::clamp_min",
               "aten::dropout", "aten::native_dropout"):
        f.claim(op)
    for op in ("aten::pow", "aten::mul", "aten::div"):  # what pooling left (seq2seq's loss)
        n = c(op) - cfg.claimed.get(op, 0.0)
        f.calls += n
        f.claim(op, n)
    f.claim("aten::result_type")
    nd = c("aten::native_dropout")
    f.claim("aten::empty_like", 2 * nd).claim("aten::empty_strided", 2 * nd)
    b = part("elementwise", "bwd").top("aten::threshold_backward",
                                       "aten::native_dropout_backward")
    b.claim("aten::threshold_backward").claim("aten::native_dropout_backward")
    ndb = c("aten::native_dropout_backward")
    b.claim("aten::empty_like", ndb).claim("aten::empty", ndb)
    if f.calls == 0:
        del P[("elementwise", "fwd")]
    if b.calls == 0:
        del P[("elementwise", "bwd")]
    # reduction: every remaining aten::sum / aten::mean call
    r = part("reduction", "fwd")
    r.calls = (c("aten::sum") - cfg.claimed.get("aten::sum", 0)
               + c("aten::mean") - cfg.claimed.get("aten::mean", 0))
    r.claim("aten::sum").claim("aten::mean")
    if r.calls == 0:
        del P[("reduction", "fwd")]
    # embedding
    if c("aten::embedding") > 0:
        f = part("embedding", "fwd").top("aten::embedding")
        f.claim("aten::embedding").claim("aten::index_select").claim("aten::gather")
        for op in ("aten::reshape", "aten::view", "aten::expand", "aten::as_strided",
                   "aten::empty"):
            f.per(op, 1)
        b = part("embedding", "bwd").top("aten::embedding_dense_backward")
        b.claim("aten::embedding_backward").claim("aten::embedding_dense_backward")
        for op in ("aten::zeros", "aten::empty", "aten::zero_", "aten::fill_", "aten::view"):
            b.per(op, 1)
    # data movement: the D2D copy_ (pow(1) in PowBackward0 copies its input)
    if c("aten::copy_") > 0:
        part("data_movement", "fwd").top("aten::copy_").claim("aten::copy_").claim(
            "cudaMemcpyAsync")
    # rnn (cuDNN): per kernel, see the docstring
    if c("aten::_cudnn_rnn") > 0:
        f = part("rnn", "fwd").top("aten::_cudnn_rnn")
        for op in ("aten::lstm", "aten::cudnn_is_acceptable", "aten::_cudnn_rnn", "aten::set_"):
            f.claim(op)
        b = part("rnn", "bwd").top("aten::_cudnn_rnn_backward")
        b.claim("aten::_cudnn_rnn_backward").claim("aten::resize_as_").claim("cudaMemsetAsync")
        # the sink: unclaimed allocation, view and fill rows, split by calls
        for op in SHARED:
            left = c(op) - cfg.claimed.get(op, 0.0)
            if left > 1e-9:
                tot = f.calls + b.calls
                f.claim(op, left * f.calls / tot)
                b.claim(op, left * b.calls / tot)
    # cuDNN-side rows: one share per forward or backward call of the config's cuDNN family
    fam = "conv" if ("conv", "fwd") in P else ("rnn" if ("rnn", "fwd") in P else None)
    if fam:
        f, b = P[(fam, "fwd")], P[(fam, "bwd")]
        for op in CUDNN_ROWS:
            n = c(op)
            if n:
                f.claim(op, n * f.calls / (f.calls + b.calls))
                b.claim(op)
    return P


def fmt(x):
    return f"{x:.4g}"


def fit_line(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - slope * mx, slope


def fit(data):
    prof = read_csv(os.path.join(data, "networks", "profile.csv"), PROFILE_COLS,
                    ["batch", "calls", "self_device_us", "self_cpu_us", "steps"])
    micro = read_csv(os.path.join(data, "kernels", "micro.csv"), MICRO_COLS,
                     ["bytes_or_elems", "median_us", "min_us"])
    ppath = os.path.join(data, "networks", "profile.csv")
    by = {}
    for r in prof:
        if r["steps"] <= 0 or r["calls"] <= 0:
            raise InputError(f"{ppath}:{r['_line']}: calls and steps must be > 0; expected "
                             "columns " + ",".join(PROFILE_COLS))
        by.setdefault((r["model"], int(r["batch"])), []).append(r)
    cfgs = {k: Config(k, v, ppath) for k, v in by.items()}
    if MAIN not in cfgs:
        raise InputError(f"{ppath}: no resnet50 batch-1 rows (the main configuration)")
    main = cfgs[MAIN]
    for op in ("aten::add_", "cudaLaunchKernel"):
        if main.calls(op) <= 0:
            raise InputError(f"{ppath}: resnet50 batch 1 has no {op} row (the slowdown anchor)")
    tiny = [r for r in micro if r["bench"] == "1000_tiny_launches_wall"]
    mpath = os.path.join(data, "kernels", "micro.csv")
    if not tiny or tiny[0]["bytes_or_elems"] <= 0:
        raise InputError(f"{mpath}: no 1000_tiny_launches_wall row (the slowdown anchor)")
    unprof = tiny[0]["median_us"] / tiny[0]["bytes_or_elems"]
    anchor = main.mean("aten::add_") + main.mean("cudaLaunchKernel")
    factor = unprof / anchor
    graph = [r for r in micro if r["bench"] == "1000_tiny_launches_graph"]

    parts = {k: build_parts(cfg) for k, cfg in cfgs.items()}
    res = {"factor": factor, "unprof": unprof, "anchor": anchor, "cfgs": cfgs, "parts": parts,
           "graph": graph[0]["median_us"] / graph[0]["bytes_or_elems"] if graph else None}

    # families
    primary = {"rnn": SEQ, "embedding": SEQ, "data_movement": SEQ}
    ops = {}
    for fam in FAMILIES:
        key = primary.get(fam, MAIN)
        P = parts.get(key, {})
        f, b = P.get((fam, "fwd")), P.get((fam, "bwd"))
        if f is None or f.per_call() is None:
            continue
        name = f"{key[0]} b{key[1]}"
        kern = f.kernels / f.calls
        if fam == "gemm":  # one linear layer in resnet50: the median over every config
            vals = []
            for k2, P2 in sorted(parts.items()):
                f2, b2 = P2.get(("gemm", "fwd")), P2.get(("gemm", "bwd"))
                if f2 is not None and b2 is not None and f2.calls > 0 and b2.calls > 0:
                    vals.append((f2.per_call() * factor, b2.per_call() * factor, k2, f2))
            host = statistics.median(v[0] for v in vals)
            back = statistics.median(v[1] for v in vals)
            exact = [v[3].kernels / v[3].calls for v in vals if not v[3].assumed]
            kern = statistics.median(exact) if exact else 1.0
            src = (f"median of {len(vals)} configs ("
                   + ", ".join(f"{v[2][0]} b{v[2][1]} {v[0]:.3g}" for v in vals)
                   + "): linear+addmm+t per call + launch; backward: one mm")
            ops[fam] = {"host": host, "backward": back, "kernels": max(1, int(round(kern))),
                        "source": src, "cfg": None}
            continue
        host = f.per_call() * factor
        back = b.per_call() * factor if b is not None and b.per_call() is not None else None
        note = ""
        if fam == "conv":
            back = back / 2 if back is not None else None
            note = "; backward: half a convolution_backward (data, weight grads)"
        elif fam == "softmax":
            note = "; the cross-entropy loss, whole backward"
        elif fam == "reduction":
            back = host
            note = "; backward: one sum (bias gradients)"
        elif fam == "rnn":
            kb = b.kernels / b.calls
            host = host / kern
            back = back / kb if back is not None else None
            note = f"; per cuDNN kernel ({kern:.0f} a call, {kb:.0f} a backward)"
            kern = 1.0
        rows = "+".join(f.rows[:4]) + ("..." if len(f.rows) > 4 else "")
        src = f"{name}: {rows} per call + launches{note}"
        ops[fam] = {"host": host, "backward": back, "kernels": max(1, int(round(kern))),
                    "source": src, "cfg": key}
    res["ops"] = ops

    # engine
    nodes = []
    for op in main.cpu:
        pre = "autograd::engine::evaluate_function: "
        if op.startswith(pre) and "AccumulateGrad" not in op:
            node = op[len(pre):]
            n = main.calls(op)
            nodes.append(((main.self_total(op) + main.self_total(node)) / n, node))
    nodes.sort()
    med = statistics.median(v for v, _ in nodes)
    med_node = min(nodes, key=lambda t: abs(t[0] - med))[1]
    res["nodes"] = nodes
    acc_ops = ("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
               "torch::autograd::AccumulateGrad", "aten::detach", "detach")
    nacc = main.calls(acc_ops[0])
    params = {k: cfg.calls(acc_ops[0]) / cfg.steps for k, cfg in cfgs.items()}
    res["params"] = params
    acc = sum(main.self_total(o) for o in acc_ops) / nacc
    zg = main.self_total("Optimizer.zero_grad#SGD.zero_grad") / main.steps / params[MAIN]
    res["engine"] = {
        "backward_node": (med * factor,
                          f"resnet50 b1: evaluate_function: X + X self per call, median of "
                          f"{len(nodes)} node types ({med_node})"),
        "accumulate_grad": (acc * factor,
                            "resnet50 b1: evaluate_function: AccumulateGrad + AccumulateGrad + "
                            "aten::detach + detach per call"),
        "zero_grad_per_param": (zg * factor,
                                f"resnet50 b1: Optimizer.zero_grad self per step / "
                                f"{params[MAIN]:.0f} parameter tensors (set_to_none)"),
    }

    # optimizer
    xs, ys, pts = [], [], []
    for k, cfg in cfgs.items():
        if cfg.calls("Optimizer.step#SGD.step") <= 0 or params[k] <= 0:
            continue
        host = cfg.self_total("Optimizer.step#SGD.step")
        kern = 0.0
        for op in ("aten::_foreach_mul_", "aten::_foreach_add_"):
            n, kc = cfg.launches_of(op)
            host += cfg.self_total(op) + kc * cfg.calls(op)
            kern += n * cfg.calls(op)
        y = host / cfg.steps * factor
        xs.append(params[k])
        ys.append(y)
        pts.append((k, params[k], y, kern / cfg.steps))
    res["opt_pts"] = pts
    line = fit_line(xs, ys) if len(set(xs)) >= 2 else None
    if line:
        main_k = [p[3] for p in pts if p[0] == MAIN]
        res["optimizer"] = {"step": line[0], "per_param": line[1],
                            "kernels": int(round(main_k[0])) if main_k else None,
                            "n": len(xs)}

    # sync latency: host-bound configs (op-level host per step above the kernels' device time)
    syncs = []
    for k, cfg in cfgs.items():
        n = cfg.calls("cudaDeviceSynchronize")
        if n <= 0:
            continue
        host = sum(v[1] for op, v in cfg.cpu.items() if op not in NOT_HOST) / cfg.steps
        dev = sum(v[1] for v in cfg.kernels.values()) / cfg.steps
        per = cfg.self_total("cudaDeviceSynchronize") / n
        syncs.append((k, per, host, dev, host > dev))  # under the profiler, as measured
    res["syncs"] = syncs
    hb = sorted(s[1] for s in syncs if s[4])
    if hb:
        res["sync"] = (statistics.median(hb) * factor, len(hb))
    return res


def render(res, data_label):
    f = res["factor"]
    out = ["runtime:", "  name: pytorch-2.x-eager",
           f'  source: "fitted by calibrate/framework/fit_h200_runtime.py from {data_label} '
           f'kernels/micro.csv and networks/profile.csv (op-level rows; profiler slowdown '
           f'corrected by x{fmt(f)} from the tiny add_ timed both ways); no step time used"',
           f"  dispatch_per_op: {fmt(res['unprof'])} us"]
    if res["ops"]:
        out.append("  ops:")
        for fam in FAMILIES:
            o = res["ops"].get(fam)
            if not o:
                continue
            items = [f"host: {fmt(o['host'])} us"]
            if o["backward"] is not None:
                items.append(f"backward: {fmt(o['backward'])} us")
            items.append(f"kernels: {o['kernels']}")
            items.append(f'source: "{o["source"]}"')
            out.append(f"    {fam}: {{{', '.join(items)}}}")
    out.append("  engine:")
    for k in ("backward_node", "accumulate_grad", "zero_grad_per_param"):
        v, s = res["engine"][k]
        out.append(f'    {k}: {{host: {fmt(v)} us, source: "{s}"}}')
    o = res.get("optimizer")
    if o:
        pts = ", ".join(f"{k[0]} {p:.0f}" for k, p, _, _ in sorted(res["opt_pts"],
                                                                       key=lambda t: t[1]))
        src = (f"Optimizer.step + _foreach_mul_/add_ self + launches per step, least squares "
               f"vs tensors over {o['n']} configs ({pts}); kernels: resnet50")
        items = ["impl: foreach", f"step: {fmt(o['step'])} us",
                 f"per_param: {fmt(o['per_param'])} us"]
        if o["kernels"] is not None:
            items.append(f"kernels: {o['kernels']}")
        items.append(f'source: "{src}"')
        out.append(f"  optimizer: {{{', '.join(items)}}}")
    if res.get("sync"):
        out.append(f"  sync_latency: {fmt(res['sync'][0])} us")
    out += ["  sync: end_of_step", "  calibrated: true"]
    return "\n".join(out) + "\n"


def read_validation(data):
    """steps.csv and profile_steps.csv, read for --explain's sanity comparison only."""
    steps = read_csv(os.path.join(data, "networks", "steps.csv"), STEPS_COLS,
                     ["batch", "median_us", "min_us", "params"])
    psteps = read_csv(os.path.join(data, "networks", "profile_steps.csv"), PSTEPS_COLS,
                      ["batch", "wall_us_per_step", "device_busy_us_per_step"])
    return steps, psteps


def explain(res, validation):
    f = res["factor"]
    e = lambda *a: print(*a, file=sys.stderr)
    main = res["cfgs"][MAIN]
    e(f"# profiler slowdown: unprofiled tiny add_ {res['unprof']:.3f} us/call (micro "
      f"1000_tiny_launches_wall) / profiled {res['anchor']:.3f} us (resnet50 b1 aten::add_ "
      f"{main.mean('aten::add_'):.3f} + cudaLaunchKernel {main.mean('cudaLaunchKernel'):.3f})"
      f" = x{f:.4f}")
    if res["graph"] is not None:
        e(f"# 1000_tiny_launches_graph: {res['graph']:.3f} us per kernel in a replayed CUDA "
          "graph (device-side, not a host cost: graph_replay omitted)")
    e("")
    e("# families: per call, profiled (unfactored) and corrected; aten = subtree self rows,")
    e("# rt = launches, memsets, cuDNN-side rows")
    e(f"{'family':<14}{'dir':<4}{'config':<13}{'calls':>7}{'aten':>9}{'rt':>9}{'prof':>9}"
      f"{'corr':>9}{'kern':>8}  rows")
    for fam in FAMILIES:
        for key, P in res["parts"].items():
            for d in ("fwd", "bwd"):
                p = P.get((fam, d))
                if p is None or p.calls <= 0:
                    continue
                used = res["ops"].get(fam, {}).get("cfg", "-")
                mark = "*" if used in (key, None) else " "
                mark = "~" if p.assumed else mark
                pc = p.per_call()
                e(f"{fam:<14}{d:<4}{mark}{key[0] + ' b' + str(key[1]):<12}"
                  f"{p.calls / p.cfg.steps:>7.1f}{p.aten / p.calls:>9.1f}"
                  f"{p.runtime / p.calls:>9.1f}{pc:>9.1f}{pc * f:>9.2f}"
                  f"{p.kernels / p.calls:>8.2f}  {'+'.join(p.rows)}")
    e("# (* = a config the value comes from (gemm: median of all); ~ = launches assumed 1 per")
    e("# call, kernels not separable from cuDNN's; calls per step; conv bwd per call = both")
    e("# gradients, halved in the output; rnn per call, divided by kernels in the output)")
    e("")
    e("# device-time check of the kernel-name mapping (op row self_device vs mapped kernels)")
    for key, cfg in res["cfgs"].items():
        bad, good = [], 0
        for dest, (dev, mapped) in cfg.device_checks().items():
            name = "+".join(d.replace("aten::", "") for d in
                            (dest if isinstance(dest, tuple) else (dest,)))
            if abs(dev - mapped) > 0.01 * dev + 0.5:
                bad.append(f"{name} {dev:.0f}/{mapped:.0f}")
            else:
                good += 1
        e(f"  {key[0]} b{key[1]}: {good} launchers match" + (
            "; mismatch (row/mapped us): " + "; ".join(bad) if bad else ""))
    e("# (memsets count with the cuDNN backward op; a mismatch in a conv config is cuDNN")
    e("# running cuBLAS/cutlass kernels the names cannot tell from addmm/mm's)")
    e("")
    e("# unclaimed op-level host rows per step (profiled us; not in any family or engine)")
    engine_like = ("autograd::", "torch::autograd", "Optimizer.", "detach", "aten::detach",
                   "aten::_foreach")
    for key, cfg in res["cfgs"].items():
        left = []
        for op, (n, cpu, _) in cfg.cpu.items():
            if op in LAUNCH_APIS or op in PER_LAUNCH_ROWS or op in NOT_HOST:
                continue
            if op.startswith(engine_like) or op.endswith(("Backward0", "Backward1")):
                continue
            un = n - cfg.claimed.get(op, 0.0)
            if un > 1e-6:
                left.append((un / n * cpu / cfg.steps, f"{op.replace('aten::', '')} "
                                                       f"{un / cfg.steps:.1f}/step"))
        left.sort(reverse=True)
        tot = sum(v for v, _ in left)
        e(f"  {key[0]} b{key[1]}: {tot:.0f} us/step: " + ", ".join(s for _, s in left[:8]))
    e("")
    e("# engine (resnet50 b1), node types: profiled us per node (evaluate_function + node)")
    e("  " + ", ".join(f"{n} {v:.1f}" for v, n in res["nodes"]))
    for k, (v, s) in res["engine"].items():
        e(f"  {k}: {v / f:.3f} profiled -> {v:.3f} us")
    e("# optimizer points (config, tensors, corrected step host us, foreach kernels/step)")
    for k, p, y, kern in res["opt_pts"]:
        e(f"  {k[0]} b{k[1]}: {p:.0f} tensors, {y:.1f} us, {kern:.0f} kernels")
    o = res.get("optimizer")
    if o:
        e(f"  line: step {o['step']:.1f} us + {o['per_param']:.3f} us x tensors")
    zs = []
    for k, cfg in res["cfgs"].items():
        zg = cfg.self_total("Optimizer.zero_grad#SGD.zero_grad") / cfg.steps / res["params"][k]
        zs.append(f"{k[0]} b{k[1]} {zg * f:.2f}")
    e("  zero_grad per tensor, corrected, by config: " + ", ".join(zs))
    e("# sync (cudaDeviceSynchronize per call, profiled; host/device op-level us per step)")
    for k, per, host, dev, hb in res["syncs"]:
        e(f"  {k[0]} b{k[1]}: {per:.1f} us; host {host:.0f} vs device {dev:.0f}: "
          f"{'host-bound' if hb else 'device-bound'} under the profiler")
    e("")
    # sanity: steps (validation data only)
    e("# SANITY ONLY (validation data, never fitted): training step wall times")
    steps, psteps = validation
    st = {(r["model"], int(r["batch"])): r["median_us"] for r in steps
          if r["mode"] == "train" and r["precision"] == "fp32"}
    ps = {(r["model"], int(r["batch"])): r["wall_us_per_step"] for r in psteps}
    e(f"{'config':<14}{'self/step':>10}{'x factor':>10}{'steps.csv':>11}{'ratio':>7}"
      f"{'prof wall':>11}{'unprof/prof':>12}{'model host':>11}{'/steps':>7}")
    for key, cfg in res["cfgs"].items():
        host = sum(v[1] for op, v in cfg.cpu.items() if op not in NOT_HOST) / cfg.steps
        model = synth(res, key)
        sv = st.get(key)
        pv = ps.get(key)
        e(f"{key[0] + ' b' + str(key[1]):<14}{host:>10.0f}{host * f:>10.0f}"
          f"{sv if sv else float('nan'):>11.0f}{(host * f / sv) if sv else float('nan'):>7.2f}"
          f"{pv if pv else float('nan'):>11.0f}"
          f"{(sv / pv) if sv and pv else float('nan'):>12.3f}{model:>11.0f}"
          f"{(model / sv) if sv else float('nan'):>7.2f}")
    e("# self/step: every op-level host row but the profiler's buffer and the sync; model host:")
    e("# the fitted parameters times this config's profiled call counts (families at their")
    e("# fitted value, nodes, AccumulateGrad, zero_grad, optimizer; unclaimed rows left out);")
    e("# the host-bound configs (resnet50 b1, deepq) should sit near steps.csv; unprof/prof is")
    e("# steps.csv over profile_steps.csv, the whole-step slowdown, to compare with the factor")
    e("# (only when the step is host-bound).")
    ks = res["cfgs"][MAIN].total_launches() / res["cfgs"][MAIN].steps
    e(f"# flat dispatch_per_op x resnet50 b1 launches/step: {res['unprof']:.2f} x {ks:.0f} = "
      f"{res['unprof'] * ks:.0f} us")


def synth(res, key):
    """Host per step from the fitted values and the config's profiled call counts."""
    cfg = res["cfgs"][key]
    P = res["parts"][key]
    f = res["factor"]
    tot = 0.0
    for (fam, d), p in P.items():
        o = res["ops"].get(fam)
        if o is None or p.calls <= 0:
            continue
        n = p.calls / cfg.steps
        if fam == "rnn":
            n *= p.kernels / p.calls
        if d == "fwd":
            tot += n * o["host"]
        elif o["backward"] is not None:
            tot += n * o["backward"] * (2 if fam == "conv" else 1)
    nodes = sum(cfg.calls(op) for op in cfg.cpu
                if op.startswith("autograd::engine::evaluate_function: ")
                and "AccumulateGrad" not in op) / cfg.steps
    tot += nodes * res["engine"]["backward_node"][0]
    params = res["params"][key]
    tot += params * (res["engine"]["accumulate_grad"][0] + res["engine"]["zero_grad_per_param"][0])
    o = res.get("optimizer")
    if o:
        tot += o["step"] + o["per_param"] * params
    return tot


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
