#!/usr/bin/env python3
"""Host runtime microbenchmarks: what the framework's host thread spends per call.

Each row times framework calls on tiny tensors, so that the kernels take next to nothing and
what shows is the host cost: the Python binding, the dispatcher, the library's descriptor
and heuristic work, the allocator, the kernel launch, and in backward the autograd engine.
Runtime-level measurements only, never a network: inputs for fitting the host costs of a
system file's `runtime`, never a whole step.

What is timed (`bench` column; `shape` column as key=value pairs joined by ';'):
  call            one forward call per operator family (family=conv2d, linear, add, relu,
                  batch_norm, layer_norm, max_pool2d, sum, softmax, embedding, lstm,
                  cross_entropy, copy, ...), no autograd recording (torch.no_grad)
  call_grad       the same call recording autograd (inputs that require grad): the cost of
                  building the backward node as well
  backward_chain  a chain of `nodes` multiplications by a constant, recorded, then its
                  backward: the slope over `nodes` is one recorded mul (call_grad
                  family=mul) plus one backward node (MulBackward0 through the engine)
  accumulate      the backward of cat(`params` leaf tensors).sum(): the slope over
                  `params` is one gradient accumulation (AccumulateGrad) plus CatBackward0's
                  slice of one input
  optimizer_step  torch.optim.SGD (momentum 0.9) step over `params` tiny parameters,
                  impl=loop (foreach=False, one call per parameter), impl=foreach (multi-
                  tensor kernels in chunks) and impl=fused where the installed PyTorch has it
  zero_grad       optimizer.zero_grad over `params` parameters, set_to_none=true|false
                  (each call timed alone: the gradients are restored between calls, untimed)
  autocast        a linear call inside torch.autocast (dtype bf16, or fp16 on CUDA),
                  the cast of its weight included; compare with call family=linear
On a GPU device the calls are timed without synchronizing (the host's view: the launch
returns before the kernel runs; the device is synchronized after each timed batch, outside
the timed region); `sync` times torch.cuda.synchronize() on an idle device.

Output: "# key: value" provenance lines, then CSV `bench,shape,time_s,reps` (one call's
median seconds; reps = timed batches). Written to --out atomically (a temporary beside it,
renamed when complete) or to stdout; progress goes to stderr.

Usage (Debian's python3 has torch):
  /usr/bin/python3 calibrate/framework/runtime_bench.py [--device cpu|cuda|cuda:1] \\
      [--quick] [--out FILE]
A device this PyTorch cannot use is an error (exit 2) and nothing is written. Exits 77
(ctest's skip code) when torch cannot be imported.
"""

import argparse
import inspect
import os
import platform
import statistics
import sys
import time

from atomic_write import write_atomically

try:
    import torch
    import torch.nn.functional as F
except ImportError as error:  # CI images without python3-torch
    print(f"SKIP: torch is not importable ({error})", file=sys.stderr)
    sys.exit(77)


def fail(message):
    print(f"runtime_bench: error: {message}", file=sys.stderr)
    sys.exit(2)


def open_device(name):
    """The torch.device `name`, checked usable by allocating on it; fail() otherwise."""
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError) as error:
        fail(f"'{name}' is not a device PyTorch knows ({error}); use cpu, cuda or cuda:N")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            fail(f"device '{name}': this PyTorch ({torch.__version__}) has no usable CUDA "
                 "(built without it, or no GPU visible)")
        if device.index is not None and device.index >= torch.cuda.device_count():
            fail(f"device '{name}': only {torch.cuda.device_count()} CUDA device(s) visible")
    try:
        torch.zeros(1, device=device)
    except (RuntimeError, NotImplementedError) as error:
        fail(f"device '{name}' cannot be used by this PyTorch ({torch.__version__}): {error}")
    return device


class Timer:
    """Median seconds per call of `call` (which makes `calls` framework calls), timed in
    batches of `batch` repetitions; the device is synchronized between batches, outside the
    timed region."""

    def __init__(self, device, batches, batch, budget_s):
        self.device = device
        self.batches = batches
        self.batch = batch
        self.budget_s = budget_s

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def per_call(self, call, calls=1, setup=None):
        """`setup`, when given, runs before every call, untimed (each call is timed alone)."""
        for _ in range(3):  # warm-up: allocator, cuDNN/oneDNN plans, lazy initialization
            if setup:
                setup()
            call()
        self.sync()
        times = []
        start = time.perf_counter()
        while len(times) < self.batches:
            elapsed = 0.0
            for _ in range(self.batch):
                if setup:
                    setup()
                    self.sync()
                t = time.perf_counter()
                call()
                elapsed += time.perf_counter() - t
            times.append(elapsed / (self.batch * calls))
            self.sync()
            if len(times) >= 3 and time.perf_counter() - start > self.budget_s:
                break
        return statistics.median(times), len(times)


class Rows:
    def __init__(self, timer):
        self.timer = timer
        self.lines = []

    def add(self, bench, shape, call, calls=1, setup=None):
        t, n = self.timer.per_call(call, calls, setup)
        text = ";".join(f"{k}={v}" for k, v in shape.items())
        self.lines.append(f"{bench},{text},{t:.6e},{n}")
        print(f"  {bench:<15} {text:<40} {t * 1e6:10.2f} us", file=sys.stderr, flush=True)


def forward_calls(device):
    """(family, callable) per operator family on tiny inputs; the modules' parameters and
    inputs require grad when `grad`."""

    def make(grad):
        def t(*shape, **kw):
            return torch.randn(*shape, device=device, requires_grad=grad, **kw)

        x4 = t(1, 4, 8, 8)
        w4 = t(4, 4, 3, 3)
        x2 = t(2, 16)
        w2 = t(16, 16)
        b2 = t(16)
        gamma, beta = t(4), t(4)
        mean, var = torch.zeros(4, device=device), torch.ones(4, device=device)
        table = t(32, 16)
        ids = torch.randint(0, 32, (2, 4), device=device)
        labels = torch.randint(0, 16, (2,), device=device)
        lstm = torch.nn.LSTM(16, 16).to(device)
        lstm.requires_grad_(grad)
        seq = t(2, 1, 16)
        dst = torch.empty(2, 16, device=device)
        src = torch.randn(2, 16, device=device)
        return [
            ("conv2d", lambda: F.conv2d(x4, w4, padding=1)),
            ("linear", lambda: F.linear(x2, w2, b2)),
            ("matmul", lambda: torch.matmul(x2, w2)),
            ("add", lambda: x2 + x2),
            ("mul", lambda: x2 * x2),
            ("relu", lambda: F.relu(x2)),
            ("gelu", lambda: F.gelu(x2)),
            ("batch_norm", lambda: F.batch_norm(x4, mean, var, gamma, beta, training=True)),
            ("layer_norm", lambda: F.layer_norm(x2, (16,))),
            ("max_pool2d", lambda: F.max_pool2d(x4, 2)),
            ("avg_pool2d", lambda: F.adaptive_avg_pool2d(x4, 1)),
            ("sum", lambda: x2.sum()),
            ("mean", lambda: x2.mean(dim=1)),
            ("softmax", lambda: F.softmax(x2, dim=1)),
            ("embedding", lambda: F.embedding(ids, table)),
            ("lstm", lambda: lstm(seq)),
            ("cross_entropy", lambda: F.cross_entropy(x2, labels)),
            ("view", lambda: x2.view(4, 8)),
            ("copy", lambda: dst.copy_(src)),
        ]

    return make


def backward_chain(device, nodes):
    x = torch.randn(2, 16, device=device, requires_grad=True)

    def call():
        y = x
        for _ in range(nodes):
            y = y * 1.0001
        y.sum().backward()

    return call


def accumulate(device, params):
    ps = [torch.randn(2, 16, device=device, requires_grad=True) for _ in range(params)]

    def call():
        torch.cat(ps).sum().backward()

    return call


def sgd_kwargs():
    """SGD's implementation switches in this PyTorch: {impl: keyword arguments}."""
    accepted = inspect.signature(torch.optim.SGD).parameters
    impls = {}
    if "foreach" in accepted:
        impls["loop"] = {"foreach": False}
        impls["foreach"] = {"foreach": True}
    else:
        impls["loop"] = {}
    if "fused" in accepted:
        impls["fused"] = {"fused": True}
    return impls


def optimizer(device, params, kwargs):
    ps = [torch.nn.Parameter(torch.randn(2, 16, device=device)) for _ in range(params)]
    for p in ps:
        p.grad = torch.randn_like(p)
    opt = torch.optim.SGD(ps, lr=1e-3, momentum=0.9, **kwargs)
    opt.step()  # momentum buffers exist from here on, as in training
    return opt


def zero_grad(device, params, set_to_none):
    """(setup, call): setup gives every parameter a gradient again."""
    ps = [torch.nn.Parameter(torch.randn(2, 16, device=device)) for _ in range(params)]
    opt = torch.optim.SGD(ps, lr=1e-3)

    def setup():
        for p in ps:
            if p.grad is None:
                p.grad = torch.ones_like(p)

    return setup, lambda: opt.zero_grad(set_to_none=set_to_none)


def run(device, quick):
    timer = Timer(device, batches=5 if quick else 15, batch=20 if quick else 100,
                  budget_s=0.3 if quick else 2.0)
    rows = Rows(timer)
    make = forward_calls(device)
    with torch.no_grad():
        for family, call in make(False):
            rows.add("call", {"family": family}, call)
    for family, call in make(True):
        if family in ("copy", "view"):
            continue  # no autograd node of their own here
        rows.add("call_grad", {"family": family}, call)
    counts = (4, 32) if quick else (4, 16, 64)
    for n in counts:
        rows.add("backward_chain", {"nodes": n}, backward_chain(device, n))
        rows.add("accumulate", {"params": n}, accumulate(device, n))
    for impl, kwargs in sgd_kwargs().items():
        if impl == "fused" and device.type != "cuda":
            continue  # the fused SGD kernels are CUDA-only
        for n in counts:
            opt = optimizer(device, n, kwargs)
            rows.add("optimizer_step", {"impl": impl, "params": n}, opt.step)
    for n in counts:
        for set_to_none in (True, False):
            setup, call = zero_grad(device, n, set_to_none)
            rows.add("zero_grad", {"params": n, "set_to_none": str(set_to_none).lower()}, call,
                     setup=setup)
    dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    x = torch.randn(2, 16, device=device)
    w = torch.randn(16, 16, device=device, requires_grad=True)

    def autocast_linear():
        with torch.autocast(device.type, dtype=dtype):
            F.linear(x, w)

    rows.add("autocast", {"family": "linear", "dtype": str(dtype).replace("torch.", "")},
             autocast_linear)
    if device.type == "cuda":
        rows.add("sync", {}, lambda: torch.cuda.synchronize(device))
    return rows.lines


def provenance(device):
    lines = [
        "# source: calibrate/framework/runtime_bench.py (host runtime per call, tiny tensors)",
        f"# framework: pytorch {torch.__version__}",
        f"# device: {device}",
        f"# host: {platform.machine()} {platform.processor() or platform.platform()}",
        f"# python: {platform.python_version()}",
        f"# threads: {torch.get_num_threads()}",
        f"# date: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
    ]
    if device.type == "cuda":
        lines.append(f"# gpu: {torch.cuda.get_device_name(device)}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="PyTorch device (default: cpu)")
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    parser.add_argument("--out", help="CSV file to write (default: stdout)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch.set_num_threads (default 1: the host thread alone)")
    args = parser.parse_args()
    if args.out and not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        fail(f"--out {args.out}: its directory does not exist")
    if args.threads < 1:
        fail(f"--threads must be at least 1 (got {args.threads})")
    torch.set_num_threads(args.threads)
    device = open_device(args.device)
    torch.manual_seed(0)
    text = "\n".join(provenance(device) + ["bench,shape,time_s,reps"] + run(device, args.quick))
    if args.out:
        write_atomically(args.out, text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
