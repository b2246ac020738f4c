"""calibrate/framework/fit_runtime_bench.py turns a runtime_bench.py CSV into a `runtime:`
block whose engine slopes match an independent least-squares computation, which amdahl's
system schema loads (a resnet18 training step predicted on a system carrying it); a CSV with
a non-numeric time is exit 2 with nothing written.

Usage: fit_runtime_bench_test.py SCRIPT CSV AMDAHL_BINARY WORKDIR
"""

import os
import re
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICE = os.path.join(REPO_ROOT, "calibrate", "examples", "cpu-example.device.yaml")


def rows_of(csv_path):
    """{(bench, shape): seconds} of the CSV, read without the script's parser."""
    rows = {}
    with open(csv_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("bench,"):
                continue
            bench, shape, time_s, _ = line.split(",")
            rows[(bench, shape)] = float(time_s)
    return rows


def slope(points):
    """Least squares through the normal equations (not the script's centred form)."""
    n = len(points)
    sx = sum(x for x, _ in points)
    sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points)
    sxy = sum(x * y for x, y in points)
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def series(rows, bench, pattern):
    pts = []
    for (b, shape), t in rows.items():
        m = re.fullmatch(pattern, shape)
        if b == bench and m:
            pts.append((int(m.group(1)), t * 1e6))
    if len(pts) < 2:
        sys.exit(f"the CSV has fewer than 2 {bench} rows matching {pattern}")
    return pts


def engine_value(block, key):
    m = re.search(rf"^    {key}: {{host: ([0-9.eE+-]+) us,", block, re.M)
    if not m:
        sys.exit(f"no engine.{key} in the block:\n{block}")
    return float(m.group(1))


def check_close(what, got, want):
    # 0.1%: the block's 4 significant digits round by at most 0.05%, while a two-point
    # (4..64) slope differs from the least-squares one by about 1% on the committed CSV.
    if abs(got - want) > 0.001 * abs(want):
        sys.exit(f"{what}: the block has {got} us, the independent slope gives {want:.4f} us")


def main():
    script, csv_path, amdahl, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    out_path = os.path.join(work, "runtime.yaml")
    if os.path.exists(out_path):
        os.remove(out_path)

    run = subprocess.run([sys.executable, script, csv_path, "--out", out_path],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0 or not os.path.exists(out_path):
        sys.exit(f"fit_runtime_bench.py failed ({run.returncode}): {run.stderr}")
    with open(out_path, encoding="utf-8") as f:
        block = f.read()
    plain = subprocess.run([sys.executable, script, csv_path], capture_output=True, text=True,
                           check=False)
    if plain.returncode != 0 or plain.stdout != block:
        sys.exit(f"stdout differs from --out ({plain.returncode}): {plain.stderr}")
    if not block.startswith("runtime:\n"):
        sys.exit(f"the output is not a runtime block:\n{block}")

    rows = rows_of(csv_path)
    mul = rows[("call_grad", "family=mul")] * 1e6
    chain = slope(series(rows, "backward_chain", r"nodes=(\d+)"))
    check_close("engine.backward_node (backward_chain slope - recorded mul)",
                engine_value(block, "backward_node"), chain - mul)
    check_close("engine.accumulate_grad (accumulate slope)",
                engine_value(block, "accumulate_grad"),
                slope(series(rows, "accumulate", r"params=(\d+)")))

    system_path = os.path.join(work, "system.yaml")
    with open(system_path, "w", encoding="utf-8") as f:
        f.write("name: fit-runtime-bench-test\n"
                "description: the example CPU with the runtime fitted from runtime_bench.py\n"
                "source: tests/calibrate/fit_runtime_bench_test.py\n"
                "devices:\n"
                f"  - {{name: cpu0, include: {DEVICE}}}\n"
                + block +
                "default_device: cpu0\n")
    predict = subprocess.run([amdahl, "predict", "--model", "resnet18", "--system", system_path,
                              "--batch", "1", "--allow-path", os.path.dirname(DEVICE)],
                             capture_output=True, text=True, check=False)
    if predict.returncode != 0:
        sys.exit(f"amdahl predict on {system_path} failed ({predict.returncode}):\n"
                 f"{predict.stdout}{predict.stderr}")

    bad_csv = os.path.join(work, "corrupted.csv")
    with open(csv_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    bad_line = next(i for i, l in enumerate(lines) if l.startswith("call,family=add,"))
    lines[bad_line] = "call,family=add,fast,15"
    with open(bad_csv, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    target = os.path.join(work, "bad-runtime.yaml")
    if os.path.exists(target):
        os.remove(target)
    before = sorted(os.listdir(work))
    bad = subprocess.run([sys.executable, script, bad_csv, "--out", target],
                         capture_output=True, text=True, check=False)
    after = sorted(os.listdir(work))
    located = f"{bad_csv}:{bad_line + 1}:"
    if (bad.returncode != 2 or os.path.exists(target) or before != after
            or located not in bad.stderr or len(bad.stderr.strip().splitlines()) != 1
            or bad.stdout):
        sys.exit(f"non-numeric time: expected exit 2, one line naming {located} and nothing "
                 f"written; got {bad.returncode}, written={os.path.exists(target)}, "
                 f"new files={sorted(set(after) - set(before))}, stderr={bad.stderr!r}")
    print("runtime block fitted, slopes checked, loaded by amdahl predict; bad CSV rejected")


if __name__ == "__main__":
    main()
