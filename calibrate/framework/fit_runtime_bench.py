#!/usr/bin/env python3
"""Fit a system file's `runtime:` block from a runtime_bench.py CSV.

Prints (or writes with --out) the `runtime:` block of a system file: host time per framework
call by amdahl op class, autograd engine costs, SGD's step and the sync mode, from the rows
of calibrate/framework/runtime_bench.py (its docstring says what each row times). Every
value is one row or a least-squares line over rows; each `source` names them. Standard
library only.

Mapping (rows named `bench family=F`; times are one call's median)
- dispatch_per_op = `call family=add`, the simplest elementwise call (no autograd).
- ops.<class>: host = `call_grad` (a training forward call records autograd, so it builds
  the backward node as well), backward = `call` (the same call without recording: a proxy
  for one aten backward call, which the bench does not time), kernels = 1. A class of
  several families takes the median over the families present:
    conv: conv2d;  gemm: linear, matmul;  elementwise: add, mul, relu, gelu;
    normalization: batch_norm, layer_norm;  pooling: max_pool2d, avg_pool2d;
    reduction: sum, mean;  softmax: softmax;  embedding: embedding;
    data_movement: copy, view (host = `call`: the bench records no call_grad for them, as
    they build no autograd node of their own; no backward value, so it falls back on host).
  softmax: the `softmax` row only. amdahl's loss op (softmax_cross_entropy) is class
    softmax too, but a network has one loss per step and may have a softmax per attention
    block, so the plain softmax sets the class; `cross_entropy` is quoted in the source (the
    loss is undercharged by the difference, once per step).
  rnn: omitted (falls back on dispatch_per_op). amdahl lowers an LSTM into per-layer,
    per-time-step ops, but the bench's `lstm` row is one nn.LSTM(16, 16) call on a (2, 1, 16)
    input, i.e. 2 time steps of batch 1 (batch_first is False), whose time is mostly the
    per-call work; one sequence length cannot split the per-call from the per-step cost.
  A class none of whose families has the rows it needs is omitted (dispatch_per_op).
- engine.backward_node = least-squares slope of `backward_chain` time over `nodes`, less
  `call_grad family=mul`: each chain step is a recorded mul plus its MulBackward0 through
  the engine (runtime_bench.py's docstring), and amdahl charges the recorded forward in
  ops.elementwise.host.
- engine.accumulate_grad = least-squares slope of `accumulate` time over `params` (it also
  holds CatBackward0's slice of one input: an upper bound).
- engine.zero_grad_per_param = least-squares slope of `zero_grad set_to_none=true` over
  `params` (as fit_h200_runtime.py; PyTorch 2.x's default, while 1.13's is false; the
  intercept, per call, is not a runtime key).
- engine.autocast_cast: omitted (falls back on the data_movement class's host time). The
  `autocast` row is one F.linear(x, w) without bias inside torch.autocast: 2 casts (x and w
  to bf16/fp16), but the row also holds entering and leaving the autocast region, which
  amdahl does not charge and the CSV cannot separate; on the CPU that recorded the committed
  CSV an empty `with torch.autocast(...)` costs about 68 us of its 102 us, so
  (autocast - call linear) / 2 = 49 us would overstate a cast (3-4 us there) tenfold.
- engine.graph_replay: not measured, omitted.
- optimizer: impl = --optimizer-impl (default loop); per_param = least-squares slope of
  that impl's `optimizer_step` rows over `params`, step = the intercept (clamped at 0),
  kernels 1. No optimizer_step rows at all: no optimizer entry.
- sync: none on a cpu device (the host runs the ops itself, there is no device to wait for;
  no sync_latency); end_of_step otherwise, with sync_latency = the `sync` row if present.
- name (default): pytorch-<major.minor>-<device type> from the `# framework:` and
  `# device:` header lines, e.g. pytorch-1.13-cpu. calibrated: true.

Usage: fit_runtime_bench.py CSV [--name NAME] [--optimizer-impl loop|foreach|fused]
                            [--out FILE]
A missing or malformed CSV (bad header, a non-numeric or negative time, a duplicate row, no
`call family=add` row, a negative slope) is an error (exit 2, one line naming the file and
line) and nothing is written; --out is written atomically.
"""

import argparse
import math
import os
import re
import statistics
import sys

from atomic_write import write_atomically
from fit_common import REPO_ROOT, InputError, fit_line, fmt

COLUMNS = ["bench", "shape", "time_s", "reps"]

# amdahl op class -> runtime_bench families, in fit_h200_runtime.py's order
CLASSES = [
    ("conv", ["conv2d"]),
    ("gemm", ["linear", "matmul"]),
    ("elementwise", ["add", "mul", "relu", "gelu"]),
    ("normalization", ["batch_norm", "layer_norm"]),
    ("pooling", ["max_pool2d", "avg_pool2d"]),
    ("reduction", ["sum", "mean"]),
    ("softmax", ["softmax"]),
    ("embedding", ["embedding"]),
    ("data_movement", ["copy", "view"]),
]
NO_GRAD_CLASSES = ("data_movement",)  # host from `call`: the bench has no call_grad rows
IMPLS = ("loop", "foreach", "fused")


def us(seconds):
    return seconds * 1e6


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def scalar(text):
    """`text` as a YAML scalar: plain when it is a simple name, quoted otherwise."""
    return text if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", text) else quote(text)


class Bench:
    """The rows and `# key: value` header lines of one runtime_bench.py CSV."""

    def __init__(self, path):
        self.path = path
        self.meta = {}
        self.rows = {}  # (bench, ((key, value), ...) sorted) -> (seconds, line)
        want = "expected runtime_bench.py output: '# key: value' lines, then " + ",".join(
            COLUMNS)
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            raise InputError(f"{path}: missing ({want})")
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"{path}: unreadable ({e}); {want}")
        header = None
        for number, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if sep and header is None:
                    self.meta.setdefault(key.strip(), value.strip())
                continue
            fields = [x.strip() for x in line.split(",")]
            if header is None:
                if fields != COLUMNS:
                    raise InputError(f"{path}:{number}: bad header {line!r}; {want}")
                header = number
                continue
            if len(fields) != len(COLUMNS):
                raise InputError(f"{path}:{number}: {len(fields)} fields; {want}")
            bench, shape, time_s, reps = fields
            if not bench:
                raise InputError(f"{path}:{number}: empty bench; {want}")
            try:
                t = float(time_s)
            except ValueError:
                raise InputError(f"{path}:{number}: time_s={time_s!r} is not a number; {want}")
            if not math.isfinite(t) or t < 0:
                raise InputError(f"{path}:{number}: time_s={time_s!r} must be >= 0; {want}")
            if not re.fullmatch(r"[0-9]+", reps) or int(reps) < 1:
                raise InputError(f"{path}:{number}: reps={reps!r} must be a positive integer; "
                                 f"{want}")
            pairs = []
            for item in shape.split(";") if shape else []:
                k, sep, v = item.partition("=")
                if not sep or not k.strip():
                    raise InputError(f"{path}:{number}: shape {shape!r}: {item!r} is not "
                                     f"key=value; {want}")
                pairs.append((k.strip(), v.strip()))
            key = (bench, tuple(sorted(pairs)))
            if key in self.rows:
                raise InputError(f"{path}:{number}: duplicate row {bench},{shape} (first at "
                                 f"line {self.rows[key][1]})")
            self.rows[key] = (t, number)
        if header is None:
            raise InputError(f"{path}: no header line; {want}")
        if not self.rows:
            raise InputError(f"{path}: no data rows; {want}")

    def get(self, bench, **shape):
        """Seconds of the row `bench` whose shape is exactly `shape`, or None."""
        key = (bench, tuple(sorted((k, str(v)) for k, v in shape.items())))
        row = self.rows.get(key)
        return row[0] if row else None

    def series(self, bench, xkey, **fixed):
        """[(x, seconds, line)] of the `bench` rows whose shape is `fixed` plus an integer
        `xkey`, sorted by x."""
        out = []
        want = {(k, str(v)) for k, v in fixed.items()}
        for (b, pairs), (t, line) in self.rows.items():
            if b != bench:
                continue
            d = dict(pairs)
            if xkey not in d or set(pairs) - {(xkey, d[xkey])} != want:
                continue
            if not re.fullmatch(r"[0-9]+", d[xkey]):
                raise InputError(f"{self.path}:{line}: {xkey}={d[xkey]!r} is not a count")
            out.append((int(d[xkey]), t, line))
        return sorted(out)


def slope_of(bench, series, what):
    """(intercept s, slope s, xs) of `series`, or None with fewer than 2 distinct x."""
    xs = [x for x, _, _ in series]
    line = fit_line(xs, [t for _, t, _ in series]) if len(set(xs)) >= 2 else None
    if line is None:
        return None
    if line[1] < 0:
        lines = ",".join(str(l) for _, _, l in series)
        raise InputError(f"{bench.path}:{lines}: {what} falls with the count (slope "
                         f"{us(line[1]):.3g} us): the rows are noise, nothing to fit")
    return line[0], line[1], xs


def counts(xs):
    return ",".join(str(x) for x in xs)


def fit(bench, name, impl):
    res = {}
    add = bench.get("call", family="add")
    if add is None:
        raise InputError(f"{bench.path}: no 'call,family=add' row (dispatch_per_op)")
    res["dispatch"] = add

    device = bench.meta.get("device")
    if not device:
        raise InputError(f"{bench.path}: no '# device:' header line (cpu, cuda, cuda:N)")
    res["device_type"] = device.split(":")[0]
    if name is None:
        framework = bench.meta.get("framework")
        m = re.fullmatch(r"(\S+)\s+v?(\d+)\.(\d+)\S*", framework or "")
        if not m:
            raise InputError(f"{bench.path}: " + (
                f"'# framework: {framework}' is not 'NAME MAJOR.MINOR...'" if framework else
                "no '# framework:' header line") + " for the default name; give --name")
        name = f"{m.group(1)}-{m.group(2)}.{m.group(3)}-{res['device_type']}"
    res["name"] = name

    # ops
    ops = {}
    for cls, families in CLASSES:
        host_bench = "call" if cls in NO_GRAD_CLASSES else "call_grad"
        host = [(f, bench.get(host_bench, family=f)) for f in families]
        host = [(f, t) for f, t in host if t is not None]
        if not host:
            continue
        entry = {"host": statistics.median(t for _, t in host)}
        several = len(host) > 1
        src = (f"{'median of ' if several else ''}{host_bench} family="
               f"{', '.join(f for f, _ in host)}")
        src += (" (no autograd rows: no node of their own)" if cls in NO_GRAD_CLASSES
                else " (recording autograd, as a training forward)")
        if cls not in NO_GRAD_CLASSES:
            back = [(f, bench.get("call", family=f)) for f in families]
            back = [(f, t) for f, t in back if t is not None]
            if back:
                entry["backward"] = statistics.median(t for _, t in back)
                src += (f"; backward: {'median of ' if len(back) > 1 else ''}call family="
                        f"{', '.join(f for f, _ in back)} (no autograd), a proxy for one aten "
                        "backward call")
        else:
            src += "; no backward value"
        if cls == "softmax":
            ce = bench.get("call_grad", family="cross_entropy")
            if ce is not None:
                src += (f"; not cross_entropy ({fmt(us(ce))} us recorded), the loss, also "
                        "class softmax: one per step against a softmax per attention block")
        entry["source"] = src
        ops[cls] = entry
    res["ops"] = ops

    # engine
    engine = {}
    chain = bench.series("backward_chain", "nodes")
    line = slope_of(bench, chain, "backward_chain time") if chain else None
    mul = bench.get("call_grad", family="mul")
    if line and mul is not None:
        node = line[1] - mul
        if node < 0:
            lines = ",".join(str(l) for _, _, l in chain)
            raise InputError(f"{bench.path}:{lines}: backward_chain slope {us(line[1]):.3g} us "
                             f"is below call_grad family=mul {us(mul):.3g} us")
        engine["backward_node"] = (node, f"backward_chain nodes={counts(line[2])}: least-squares "
                                         f"slope {fmt(us(line[1]))} us per node less call_grad "
                                         f"family=mul {fmt(us(mul))} us (each step's recorded mul)")
    acc = bench.series("accumulate", "params")
    line = slope_of(bench, acc, "accumulate time") if acc else None
    if line:
        engine["accumulate_grad"] = (line[1], f"accumulate params={counts(line[2])}: "
                                              "least-squares slope per parameter (holds "
                                              "CatBackward0's slice of one input too)")
    zg = bench.series("zero_grad", "params", set_to_none="true")
    line = slope_of(bench, zg, "zero_grad time") if zg else None
    if line:
        engine["zero_grad_per_param"] = (line[1], f"zero_grad set_to_none=true params="
                                                  f"{counts(line[2])}: least-squares slope per "
                                                  f"parameter (intercept {fmt(us(line[0]))} us "
                                                  "per call not modelled)")
    res["engine"] = engine

    # optimizer
    steps = [k for k in bench.rows if k[0] == "optimizer_step"]
    if steps:
        present = sorted({dict(k[1]).get("impl", "?") for k in steps})
        rows = bench.series("optimizer_step", "params", impl=impl)
        line = slope_of(bench, rows, f"optimizer_step impl={impl} time") if rows else None
        if line is None:
            raise InputError(f"{bench.path}: optimizer_step impl={impl}: fewer than 2 "
                             f"parameter counts (impls present: {', '.join(present)}); "
                             "choose --optimizer-impl")
        res["optimizer"] = {"impl": impl, "step": max(0.0, line[0]), "per_param": line[1],
                            "source": f"optimizer_step impl={impl} params={counts(line[2])} "
                                      "(SGD, momentum 0.9): least squares, step = intercept"
                                      + (" (negative, clamped at 0)" if line[0] < 0 else "")
                                      + ", per_param = slope"}

    # sync
    if res["device_type"] == "cpu":
        res["sync"] = "none"
    else:
        res["sync"] = "end_of_step"
        s = bench.get("sync")
        if s is not None:
            res["sync_latency"] = s
    return res


def render(res, bench, label):
    m = bench.meta
    prov = ", ".join(f"{k} {m[k]}" for k in ("framework", "device", "threads", "date") if k in m)
    source = (f"fitted by calibrate/framework/fit_runtime_bench.py from {label} "
              f"(runtime_bench.py: {prov}; tiny tensors"
              + (", so the kernels, run by the host itself, are included" if
                 res["device_type"] == "cpu" else "") +
              "); dispatch_per_op: call family=add"
              + ("; sync_latency: sync" if "sync_latency" in res else ""))
    out = ["runtime:", f"  name: {scalar(res['name'])}", f"  source: {quote(source)}",
           f"  dispatch_per_op: {fmt(us(res['dispatch']))} us"]
    if res["ops"]:
        out.append("  ops:")
        for cls, _ in CLASSES:
            o = res["ops"].get(cls)
            if not o:
                continue
            items = [f"host: {fmt(us(o['host']))} us"]
            if "backward" in o:
                items.append(f"backward: {fmt(us(o['backward']))} us")
            items += ["kernels: 1", f"source: {quote(o['source'])}"]
            out.append(f"    {cls}: {{{', '.join(items)}}}")
    if res["engine"]:
        out.append("  engine:")
        for k in ("backward_node", "accumulate_grad", "zero_grad_per_param"):
            if k in res["engine"]:
                v, s = res["engine"][k]
                out.append(f"    {k}: {{host: {fmt(us(v))} us, source: {quote(s)}}}")
    o = res.get("optimizer")
    if o:
        out.append(f"  optimizer: {{impl: {o['impl']}, step: {fmt(us(o['step']))} us, "
                   f"per_param: {fmt(us(o['per_param']))} us, kernels: 1, "
                   f"source: {quote(o['source'])}}}")
    if "sync_latency" in res:
        out.append(f"  sync_latency: {fmt(us(res['sync_latency']))} us")
    out += [f"  sync: {res['sync']}", "  calibrated: true"]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="runtime_bench.py output")
    ap.add_argument("--name", help="runtime name (default pytorch-<major.minor>-<device> from "
                    "the CSV's header)")
    ap.add_argument("--optimizer-impl", choices=IMPLS, default="loop",
                    help="which optimizer_step rows set `optimizer` (default loop)")
    ap.add_argument("--out", help="write the runtime block here (atomically) instead of stdout")
    a = ap.parse_args()
    # The CSV as seen from the repository root when it lies inside it, so that the block does
    # not depend on how the file was named on the command line.
    path = os.path.abspath(a.csv)
    rel = os.path.relpath(path, REPO_ROOT)
    label = path if rel.startswith("..") else rel.replace(os.sep, "/")
    try:
        if a.name is not None and not a.name.strip():
            raise InputError("--name is empty")
        if a.out and not os.path.isdir(os.path.dirname(os.path.abspath(a.out))):
            raise InputError(f"--out {a.out}: its directory does not exist")
        bench = Bench(a.csv)
        res = fit(bench, a.name, a.optimizer_impl)
    except InputError as err:
        print(f"fit_runtime_bench: error: {err}", file=sys.stderr)
        return 2
    text = render(res, bench, label)
    if a.out:
        write_atomically(a.out, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
