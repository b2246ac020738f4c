"""The host-runtime model of fit_h200_runtime.py: one profiled configuration's op-level rows
(Config, with the kernel-to-launcher mapping), and the operator-family parts (Part,
build_parts) that claim those rows by the rules in fit_h200_runtime.py's docstring."""

from fit_common import InputError
from h200_profile import (CONV_ANY, CONV_BWD, CONV_FWD, CUDNN_ROWS, GEMM_LIKE, LAUNCH_APIS,
                          NAMED, NOT_HOST, PER_LAUNCH_ROWS, SHARED, api_of)

FAMILIES = ["conv", "gemm", "elementwise", "normalization", "pooling", "reduction", "softmax",
            "embedding", "rnn", "data_movement", "attention"]
MAIN = ("resnet50", 1)
SEQ = ("seq2seq", 64)
CONV_BIAS = {"alexnet", "deepq"}  # models.py: torchvision alexnet and DQN convs carry a bias


class Config:
    """The op-level rows of one profiled configuration, read from `path` (for messages)."""

    def __init__(self, key, rows, path):
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


# Families whose forward calls the training profile recorded under autograd (each call makes
# a node): conv (ConvolutionBackward0), gemm (AddmmBackward0), batch norm, pooling, the loss,
# the embedding and the LSTM. The reduction and data_movement rows are backward-pass calls
# (bias-gradient sums, PowBackward0's copy), which record nothing.
RECORDED = ("conv", "gemm", "normalization", "pooling", "softmax", "embedding", "rnn")
# Elementwise forward calls that record: the activations and dropout, and each add_, pow,
# mul or div whose node the backward pass evaluates (the others: num_batches_tracked.add_,
# the engine's own accumulation add_, a bias add_ inside _convolution).
RECORDING_ELEMENTWISE = ("aten::relu_", "aten::relu", "aten::dropout")
ELEMENTWISE_NODES = ("AddBackward0", "PowBackward0", "MulBackward0", "DivBackward0")


def recorded_share(family, key, part):
    """The share of a forward part's calls that autograd recorded (0 to 1)."""
    if family in RECORDED:
        return 1.0
    if family != "elementwise" or part.calls <= 0:
        return 0.0
    cfg = part.cfg
    n = sum(cfg.calls(op) for op in RECORDING_ELEMENTWISE)
    n += sum(cfg.calls(node) for node in ELEMENTWISE_NODES)
    return min(1.0, n / part.calls)
