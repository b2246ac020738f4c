#!/usr/bin/env python3
"""Choose the H200 runtime's engine.module_call by leave-one-network-out over the measured steps.

engine.module_call is the host time a training step spends per layer call that no profiler row
records: the Python around the module call under autograd (nn.Module.__call__, the forward's
own Python, hooks dispatch) and the teardown of the autograd graph it builds. No kernel, micro
or profile row isolates it (the profiler records aten operators and autograd nodes, not the
Python between them nor destructors), so
../shared/data/h200/README.md lets it be chosen from whole steps only by leave-one-network-out:

1. For each candidate value on a fixed grid (0 to GRID_MAX_US in GRID_STEP_US steps), the
   system file with that value runs `amdahl validate --measured steps.csv` (every other
   runtime value as fit_h200_runtime.py derives it).
2. For each of the networks in steps.csv, the value minimising the mean |error| over the
   fp32 steps of the other networks (ties: the smallest; OBJECTIVE_PRECISIONS says why fp32)
   predicts the held-out network's steps. Those held-out errors, over every step, are what
   the choice is judged by (printed by group and network).
3. The shipped value minimises the mean |error| over every network's fp32 steps; --write
   records it, with the held-out summary, in h200_module_call.json, which
   fit_h200_runtime.py renders into the runtime block (regenerate h200.yaml after --write).

Deterministic: a fixed grid, a fixed tie rule, the networks in file order.

Usage: lono_h200_module_call.py [--amdahl PATH] [--system YAML] [--measured CSV] [--write]
Defaults: build/cli/amdahl, hw/catalog/systems/h200.yaml, ../shared/data/h200/networks/steps.csv
(from the repository root). A failing amdahl run or a malformed file is exit 2.
"""

import argparse
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from atomic_write import write_atomically
from fit_common import REPO_ROOT, InputError

GRID_MAX_US = 60.0
GRID_STEP_US = 0.5
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "h200_module_call.json")
# The objective's steps: fp32 ones. The runtime is fitted from fp32 rows, and the bf16 steps'
# device side (tensor-core efficiency by shape, issue 52 item 4) is off by more than any host
# cost: choosing on them would make a host cost stand in for it. Held-out errors are reported
# over every step.
OBJECTIVE_PRECISIONS = ("fp32",)
LINE = re.compile(r"^    module_call: \{host: [^,]+ us, source: \".*\"\}$", re.M)


def percentile(v, q):
    """As amdahl's validate summarises (validate/measured_runs.cpp): linear between ranks."""
    v = sorted(abs(e) for e in v)
    if not v:
        return float("nan")
    pos = q * (len(v) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def system_with(text, folder, value_us):
    """The system file's text with module_call = value_us, its includes made absolute."""
    line = f'    module_call: {{host: {value_us:g} us, source: "lono candidate"}}'
    if LINE.search(text):
        text = LINE.sub(line, text)
    else:
        text = text.replace("  engine:\n", "  engine:\n" + line + "\n", 1)
    text = re.sub(r"include: (\S+?)([,}])",
                  lambda m: f"include: {os.path.normpath(os.path.join(folder, m.group(1)))}"
                  f"{m.group(2)}", text)
    return re.sub(r"^measured_runs:.*\n", "", text, flags=re.M)


def run_validate(amdahl, system_path, measured):
    out = subprocess.run([amdahl, "validate", "--measured", measured, "--system", system_path,
                          "--format", "csv"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise InputError(f"amdahl validate failed ({out.returncode}): {out.stderr.strip()}")
    rows = []
    steps = out.stdout.split("\n\n", 1)[0]  # the step rows; the group summary follows
    for r in csv.DictReader(io.StringIO(steps)):
        if r.get("op_class"):
            continue
        measured, predicted = float(r["measured_s"]), float(r["predicted_s"])
        rows.append({"workload": r["workload"], "batch": int(r["batch"]), "mode": r["mode"],
                     "precision": r["precision"], "error": (predicted - measured) / measured})
    if not rows:
        raise InputError(f"amdahl validate printed no step rows for {measured}")
    return rows


def mean_abs(rows):
    return sum(abs(r["error"]) for r in rows) / len(rows)


def groups(rows):
    sel = [("all", lambda r: True), ("precision fp32", lambda r: r["precision"] == "fp32"),
           ("precision bf16", lambda r: r["precision"] == "bf16"),
           ("mode train", lambda r: r["mode"] == "train"),
           ("mode infer", lambda r: r["mode"] == "infer"),
           ("batch <= 16", lambda r: r["batch"] <= 16), ("batch > 16", lambda r: r["batch"] > 16)]
    out = []
    for name, f in sel:
        e = [r["error"] for r in rows if f(r)]
        out.append((name, len(e), percentile(e, 0.5), percentile(e, 0.9)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--amdahl", default=os.path.join(REPO_ROOT, "build", "cli", "amdahl"))
    ap.add_argument("--system", default=os.path.join(REPO_ROOT, "hw", "catalog", "systems",
                                                     "h200.yaml"))
    ap.add_argument("--measured", default=os.path.join(REPO_ROOT, "..", "shared", "data", "h200",
                                                       "networks", "steps.csv"))
    ap.add_argument("--write", action="store_true", help=f"record the choice in {OUT}")
    a = ap.parse_args()
    try:
        with open(a.system, encoding="utf-8") as f:
            text = f.read()
        if "  engine:\n" not in text:
            raise InputError(f"{a.system}: no runtime engine block")
        folder = os.path.dirname(os.path.abspath(a.system))
        grid = [i * GRID_STEP_US for i in range(int(round(GRID_MAX_US / GRID_STEP_US)) + 1)]
        by_value = {}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "h200-lono.yaml")
            for v in grid:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(system_with(text, folder, v))
                by_value[v] = run_validate(a.amdahl, path, a.measured)
    except (OSError, InputError) as e:
        print(f"lono_h200_module_call: error: {e}", file=sys.stderr)
        return 2

    nets = list(dict.fromkeys(r["workload"] for r in by_value[grid[0]]))

    def best(keep):
        def cost(v):
            return mean_abs([r for r in by_value[v]
                             if keep(r) and r["precision"] in OBJECTIVE_PRECISIONS])
        return min(grid, key=lambda v: (cost(v), v))

    held, lines = [], []
    for net in nets:
        v = best(lambda r, net=net: r["workload"] != net)
        rows = [r for r in by_value[v] if r["workload"] == net]
        held += rows
        e = [r["error"] for r in rows]
        lines.append(f"{net:<12}{v:>9g} us{len(e):>8}{percentile(e, 0.5):>10.1%}"
                     f"{percentile(e, 0.9):>10.1%}")
    chosen = best(lambda r: True)
    p = print
    p(f"engine.module_call by leave-one-network-out (grid 0-{GRID_MAX_US:g} us by "
      f"{GRID_STEP_US:g} us; objective: mean |error| over the other networks' "
      f"{'/'.join(OBJECTIVE_PRECISIONS)} steps)")
    p("")
    p(f"{'held out':<12}{'fit on the others':>12}{'steps':>8}{'median':>10}{'p90':>10}")
    for line in lines:
        p(line)
    p("")
    p("held-out steps (each network predicted with the value fit without it), |error| by group:")
    p(f"{'group':<16}{'points':>7}{'median':>10}{'p90':>10}")
    summary = groups(held)
    for name, n, med, p90 in summary:
        p(f"{name:<16}{n:>7}{med:>10.1%}{p90:>10.1%}")
    p("")
    all_rows = by_value[chosen]
    p(f"fit on all {len(nets)} networks: {chosen:g} us (every step: mean |error| "
      f"{mean_abs(all_rows):.1%}, median {percentile([r['error'] for r in all_rows], 0.5):.1%})")
    if a.write:
        src = (f"chosen from networks/steps.csv by leave-one-network-out "
               f"(calibrate/framework/lono_h200_module_call.py, output in docs/runtime.md): "
               f"{chosen:g} us fits all {len(nets)} networks; held out, each network fit on the "
               f"others: median |error| {summary[0][2]:.1%}, p90 {summary[0][3]:.1%} over "
               f"{summary[0][1]} steps")
        write_atomically(OUT, json.dumps({"host_us": chosen, "source": src}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
