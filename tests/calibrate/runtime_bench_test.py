#!/usr/bin/env python3
"""Checks calibrate/framework/runtime_bench.py on this machine's CPU (--quick): every family
and bench is there with a positive, finite per-call time, and a device PyTorch cannot use is
an error that writes nothing.

Usage: runtime_bench_test.py SCRIPT WORKDIR. Exits 77 (ctest's skip code) when torch cannot
be imported.
"""
import csv
import math
import os
import subprocess
import sys

try:
    import torch  # noqa: F401  (only whether it imports)
except ImportError as error:
    print(f"SKIP: torch is not importable ({error})")
    sys.exit(77)

script, workdir = sys.argv[1], sys.argv[2]
os.makedirs(workdir, exist_ok=True)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


out = os.path.join(workdir, "runtime_quick.csv")
if os.path.exists(out):
    os.unlink(out)
run = subprocess.run([sys.executable, script, "--quick", "--out", out], capture_output=True,
                     text=True, timeout=240)
check(run.returncode == 0, f"--quick exits 0 (got {run.returncode}: {run.stderr[-500:]})")
with open(out) as f:
    lines = f.read().splitlines()
provenance = [l for l in lines if l.startswith("#")]
for key in ("framework: pytorch", "device: cpu", "threads: 1"):
    check(any(key in l for l in provenance), f"provenance has '{key}'")
rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
seen = set()
for r in rows:
    t = float(r["time_s"])
    check(math.isfinite(t) and 0 < t < 1.0, f"{r['bench']} {r['shape']}: time {t} in (0, 1) s")
    check(int(r["reps"]) >= 3, f"{r['bench']} {r['shape']}: at least 3 timed batches")
    seen.add((r["bench"], r["shape"]))
families = ("conv2d", "linear", "add", "relu", "batch_norm", "layer_norm", "max_pool2d", "sum",
            "softmax", "embedding", "lstm", "cross_entropy", "copy")
for family in families:
    check(("call", f"family={family}") in seen, f"a call row for {family}")
for bench in ("call_grad", "backward_chain", "accumulate", "optimizer_step", "zero_grad",
              "autocast"):
    check(any(b == bench for b, _ in seen), f"a {bench} row")
check(("optimizer_step", "impl=loop;params=4") in seen, "the per-parameter SGD loop is timed")

# A device this PyTorch cannot use: exit 2, a message naming it, no file.
for device in ("cuda:99", "nosuchdevice"):
    bad = os.path.join(workdir, f"runtime_{device.replace(':', '_')}.csv")
    if os.path.exists(bad):
        os.unlink(bad)
    run = subprocess.run([sys.executable, script, "--device", device, "--quick", "--out", bad],
                         capture_output=True, text=True, timeout=60)
    check(run.returncode == 2, f"--device {device} exits 2 (got {run.returncode})")
    check(device in run.stderr and "error" in run.stderr,
          f"--device {device}: the message names it ({run.stderr.strip()[:200]})")
    check(not os.path.exists(bad), f"--device {device} writes nothing")
    check(not any(n.startswith(".runtime_bench.") for n in os.listdir(workdir)),
          "no temporary is left behind")

print(f"{len(rows)} rows, {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
