#!/usr/bin/env python3
"""Kernel microbenchmarks through the framework itself (PyTorch eager on the CPU).

`amdahl calibrate cpu` runs this script: a network run by PyTorch reaches the
kernels PyTorch dispatches to, with PyTorch's thread count, layouts and allocator, which
need not be the library the C++ benchmarks call (Debian's PyTorch 1.13 runs fp32 matmuls
through the BLAS it was linked with, and 1x1 convolutions on one thread below batch 16
through its own im2col + BLAS path instead of oneDNN). Each row times one operator on
fixed inputs: a kernel-level measurement, never a network.

Output (stdout): "# key: value" provenance lines, then CSV rows
    bench,shape,time_s,reps
with the shape as key=value pairs joined by ';' (calibrate/measurement_format.md); the
caller adds op_class, precision, FLOPs and bytes. Progress goes to stderr.
"""

import argparse
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def median_time(call, reps, budget_s):
    """Median seconds of one call: a warm-up call, then `reps` calls or `budget_s` (>= 3)."""
    call()
    times = []
    start = time.perf_counter()
    while len(times) < reps:
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
        if len(times) >= 3 and time.perf_counter() - start > budget_s:
            break
    return statistics.median(times), len(times)


class Writer:
    def __init__(self, framework, reps, budget_s):
        self.framework = framework
        self.reps = reps
        self.budget_s = budget_s

    def row(self, bench, shape, call, reps=None, calls=1):
        """Times `call`, which runs the operator `calls` times, and writes one call's time."""
        t, n = median_time(call, reps or self.reps, self.budget_s)
        t /= calls
        cells = dict(shape, framework=self.framework)
        text = ";".join(f"{k}={v}" for k, v in cells.items())
        print(f"{bench},{text},{t:.6e},{n}", flush=True)
        print(f"  {bench:<16} {';'.join(f'{k}={v}' for k, v in shape.items()):<58} "
              f"{t * 1e6:12.1f} us", file=sys.stderr, flush=True)


def linear_gemms(w, quick):
    """The three GEMMs of a linear layer y = x W^T (batch b, in features i, out features o):
    forward b x o x i, data gradient dX = dY W (b x i x o), weight gradient dW = dY^T X
    (o x i x b), as autograd calls them."""
    batches = [1, 8, 32] if quick else [1, 4, 16, 32, 64, 128]
    # weights from 0.5 MB (L2-resident) to 151 MB (AlexNet's fc6): the re-read operand's
    # cache step (model/efficiency.h, unblocked)
    layers = [(256, 512), (1024, 1024), (4096, 1000)]
    if not quick:
        layers += [(4096, 4096), (9216, 4096), (512, 2048)]
    grid = [(b, i, o) for b in batches for i, o in layers]
    if quick:  # a DRAM-resident weight (AlexNet's fc6) at small batches
        grid += [(1, 9216, 4096), (4, 9216, 4096)]
    for b, i, o in grid:
            x, wt, dy = torch.randn(b, i), torch.randn(o, i), torch.randn(b, o)
            w.row("gemm", dict(m=b, n=o, k=i), lambda: F.linear(x, wt))
            w.row("gemm_bwd_data", dict(m=b, n=i, k=o), lambda: dy.mm(wt))
            w.row("gemm_bwd_filter", dict(m=o, n=i, k=b), lambda: dy.t().mm(x))


def conv_backend(x, wt, stride, pad, groups):
    """The backend PyTorch picks for this convolution ("Mkldnn", "Slow2d", ...), or None when
    this version cannot say (torch._C._select_conv_backend, PyTorch >= 1.12)."""
    select = getattr(torch._C, "_select_conv_backend", None)
    if select is None:
        return None
    chosen = select(x, wt, None, [stride, stride], [pad, pad], [1, 1], False, [0, 0], groups)
    return str(chosen).rsplit(".", 1)[-1]


def gemm_path_thresholds():
    """Where PyTorch runs convolutions as im2col + BLAS GEMM (backend Slow2d) instead of its
    convolution library, as its own backend choice reports it: the batch below which 1x1
    stride-1 convolutions do (on inputs too large for the second rule), and the largest input
    (elements) of a batch-1 3x3 convolution that does. 0 where none does; None when the
    framework cannot say."""
    if conv_backend(torch.empty(1, 1, 3, 3), torch.empty(1, 1, 3, 3), 1, 1, 1) is None:
        return None

    def slow(x, wt, pad):
        return conv_backend(x, wt, 1, pad, 1) == "Slow2d"

    pointwise = torch.empty(512, 512, 1, 1)
    below = 0
    for n in range(1, 257):
        if not slow(torch.empty(n, 512, 8, 8), pointwise, 0):
            below = n if n > 1 else 0
            break
    else:
        below = 257  # every batch probed
    kernel = torch.empty(1, 1, 3, 3)
    lo, hi = 0, 1 << 22  # input widths: 1 x 1 x 1 x width (padded to 3 rows)
    if not slow(torch.empty(1, 1, 1, 1), kernel, 1):
        return below, 0
    lo = 1
    if slow(torch.empty(1, 1, 1, hi), kernel, 1):
        return below, hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if slow(torch.empty(1, 1, 1, mid), kernel, 1):
            lo = mid
        else:
            hi = mid
    return below, lo


def convolutions(w, quick):
    """Forward, data and weight gradients through PyTorch's convolution entry points, on
    ResNet-, AlexNet- and MobileNet-like layers (n, c, h=w, k, r=s, stride, pad, groups)."""
    shapes = [(8, 64, 56, 64, 3, 1, 1, 1), (8, 64, 56, 256, 1, 1, 0, 1),
              (16, 256, 14, 64, 1, 1, 0, 1), (8, 3, 224, 64, 11, 4, 2, 1),
              (8, 64, 27, 192, 5, 1, 2, 1), (8, 96, 56, 96, 3, 1, 1, 96),
              (1, 32, 112, 32, 3, 1, 1, 32), (1, 96, 56, 24, 1, 1, 0, 1),
              (8, 128, 28, 256, 1, 2, 0, 1), (4, 256, 14, 256, 3, 1, 1, 1),
              (32, 24, 56, 144, 1, 1, 0, 1), (32, 144, 56, 144, 3, 1, 1, 144),
              (2, 64, 14, 64, 3, 1, 1, 1)]
    if not quick:
        shapes += [(32, 64, 56, 64, 3, 1, 1, 1), (32, 256, 56, 64, 1, 1, 0, 1),
                   (1, 64, 56, 64, 3, 1, 1, 1), (1, 512, 7, 2048, 1, 1, 0, 1),
                   (32, 192, 13, 384, 3, 1, 1, 1), (1, 3, 224, 64, 7, 2, 3, 1),
                   (32, 144, 28, 144, 3, 2, 1, 144), (8, 576, 14, 576, 3, 1, 1, 576),
                   (32, 96, 28, 24, 1, 1, 0, 1), (4, 1024, 14, 512, 1, 2, 0, 1),
                   (16, 64, 56, 64, 1, 1, 0, 1), (32, 320, 7, 1280, 1, 1, 0, 1)]
    for n, c, h, k, r, stride, pad, groups in shapes:
        x, wt = torch.randn(n, c, h, h), torch.randn(k, c // groups, r, r)
        dy = torch.randn_like(F.conv2d(x, wt, stride=stride, padding=pad, groups=groups))
        shape = dict(n=n, c=c, h=h, w=h, k=k, r=r, s=r, pad=pad, stride=stride, groups=groups)
        backend = conv_backend(x, wt, stride, pad, groups)
        if backend:
            shape["backend"] = backend

        def backward(mask):
            return lambda: torch.ops.aten.convolution_backward(
                dy, x, wt, None, [stride, stride], [pad, pad], [1, 1], False, [0, 0], groups,
                mask)

        w.row("conv_fwd", shape,
              lambda: F.conv2d(x, wt, stride=stride, padding=pad, groups=groups))
        w.row("conv_bwd_data", shape, backward([True, False, False]))
        w.row("conv_bwd_filter", shape, backward([False, True, False]))


def memory_kernels(w, quick):
    """Elementwise, reduction and copy kernels as a network calls them (allocating outputs),
    from cache-resident to DRAM-resident sizes (4 KiB .. 64 MiB per operand)."""
    step = 4 if quick else 2
    elements = 1024
    while elements * 4 <= 64 * 1024 * 1024:
        a, b, c = torch.randn(elements), torch.randn(elements), torch.empty(elements)
        shape = dict(n=elements)
        w.row("elementwise_add", shape, lambda: torch.add(a, b))
        w.row("elementwise_relu", shape, lambda: F.relu(a))
        w.row("reduce_sum", shape, lambda: torch.sum(a))
        w.row("mem_copy", shape, lambda: c.copy_(a))
        elements *= step


def normalization_and_pooling(w, quick):
    """Batch norm (training: statistics, then normalize; its backward; and inference: the
    running statistics' scale-shift) and max pooling (forward and backward) on ResNet-,
    MobileNet- and AlexNet-like activations (n, c, h=w)."""
    shapes = [(8, 64, 56), (1, 32, 112), (8, 256, 14), (32, 96, 28), (1, 512, 7)]
    if not quick:
        shapes += [(32, 64, 112), (8, 144, 56), (32, 512, 7), (1, 64, 56)]
    for n, c, h in shapes:
        x = torch.randn(n, c, h, h)
        weight, bias = torch.ones(c), torch.zeros(c)
        mean, var = torch.zeros(c), torch.ones(c)
        y, save_mean, save_invstd = torch.ops.aten.native_batch_norm(
            x, weight, bias, mean, var, True, 0.1, 1e-5)
        dy = torch.randn_like(y)
        shape = dict(n=n, c=c, h=h, w=h)
        w.row("batchnorm_fwd", shape, lambda: torch.ops.aten.native_batch_norm(
            x, weight, bias, mean, var, True, 0.1, 1e-5))
        w.row("batchnorm_bwd_data", shape, lambda: torch.ops.aten.native_batch_norm_backward(
            dy, x, weight, mean, var, save_mean, save_invstd, True, 1e-5, [True, True, True]))
        w.row("batchnorm_infer", shape, lambda: torch.ops.aten.native_batch_norm(
            x, weight, bias, mean, var, False, 0.1, 1e-5))
    pools = [(8, 64, 112, 3, 2, 1), (8, 64, 55, 3, 2, 0), (1, 64, 112, 3, 2, 1),
             (32, 192, 27, 3, 2, 0), (8, 256, 13, 3, 2, 0), (4, 128, 28, 2, 2, 0),
             (1, 96, 55, 3, 2, 0)]
    if not quick:
        pools += [(32, 64, 56, 3, 2, 1), (16, 512, 14, 2, 2, 0), (32, 64, 112, 3, 2, 1)]
    for n, c, h, r, stride, pad in pools:
        x = torch.randn(n, c, h, h)
        y, indices = F.max_pool2d(x, r, stride, pad, return_indices=True)
        dy = torch.randn_like(y)
        shape = dict(n=n, c=c, h=h, w=h, r=r, s=r, stride=stride, pad=pad)
        w.row("maxpool_fwd", shape, lambda: F.max_pool2d(x, r, stride, pad))
        w.row("maxpool_bwd_data", shape, lambda: torch.ops.aten.max_pool2d_with_indices_backward(
            dy, x, [r, r], [stride, stride], [pad, pad], [1, 1], False, indices))


def optimizer_steps(w, quick):
    """What a training step does per parameter tensor of n elements besides computing its
    gradient: zero_grad (PyTorch 1.x fills .grad with zeros; 2.x drops it), autograd's
    accumulation of the new gradient into .grad (an add, or taking it as is), and the
    SGD-momentum step (torch.optim.SGD)."""
    step = 4 if quick else 2
    elements = 1024
    while elements <= 16 * 1024 * 1024:
        p = torch.nn.Parameter(torch.randn(elements))
        p.grad = torch.randn(elements)
        g = torch.randn(elements)
        sgd = torch.optim.SGD([p], lr=0.01, momentum=0.9)
        sgd.step()  # creates the momentum buffer

        def update(p=p, g=g, sgd=sgd):
            sgd.zero_grad()
            if p.grad is None:
                p.grad = g
            else:
                p.grad.add_(g)
            sgd.step()

        w.row("optimizer_momentum", dict(n=elements), update)
        elements *= step


def allocations(w, quick):
    """Writing n floats into a tensor just allocated (torch.empty(n).fill_) and into one
    reused (a.fill_): large allocations come from the OS as fresh pages (glibc serves them
    with mmap above its threshold, at most 32 MiB), which fault in on first write; the
    difference is what such an allocation costs (calibrate/cpu/framework_kernels.h
    fit_allocation)."""
    sizes_mib = [4, 16, 31, 33, 64, 128] if quick else [4, 8, 16, 24, 31, 33, 48, 64, 128, 256]
    for mib in sizes_mib:
        elements = mib * 1024 * 1024 // 4
        a = torch.empty(elements)
        w.row("alloc_reused", dict(n=elements), lambda: a.fill_(1.0))
        w.row("alloc_fresh", dict(n=elements), lambda: torch.empty(elements).fill_(1.0))


def dispatch(w):
    """The eager per-op cost: one-element adds (Python binding, dispatcher, allocator)."""
    x = torch.ones(1)
    w.row("dispatch", dict(op="add_1_element"), lambda: [x + 1 for _ in range(1000)], reps=20,
          calls=1000)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small grids (about 30 s)")
    ap.add_argument("--only", choices=["dispatch"], help="run only these rows")
    args = ap.parse_args()
    torch.manual_seed(0)
    framework = f"pytorch {torch.__version__}"
    config = torch.__config__.show()
    blas = next((part.split("=", 1)[1] for line in config.splitlines()
                 for part in line.replace(",", " ").split() if part.startswith("BLAS_INFO=")),
                "unknown")
    print(f"# framework: {framework}")
    print(f"# framework_threads: {torch.get_num_threads()}")
    print(f"# framework_blas: {blas}")
    print(f"# framework_onednn: {torch.backends.mkldnn.is_available()}")
    thresholds = gemm_path_thresholds()
    if thresholds is not None:
        print(f"# framework_conv_gemm_pointwise_below_batch: {thresholds[0]}")
        print(f"# framework_conv_gemm_single_max_input: {thresholds[1]}")
    print("bench,shape,time_s,reps")
    w = Writer(framework, reps=5 if args.quick else 15, budget_s=0.3 if args.quick else 1.0)
    dispatch(w)
    if args.only == "dispatch":
        return
    print(f"framework kernels through {framework}, {torch.get_num_threads()} threads, "
          f"BLAS {blas}", file=sys.stderr)
    linear_gemms(w, args.quick)
    convolutions(w, args.quick)
    memory_kernels(w, args.quick)
    normalization_and_pooling(w, args.quick)
    optimizer_steps(w, args.quick)
    allocations(w, args.quick)


if __name__ == "__main__":
    with torch.no_grad():
        main()
