#!/usr/bin/env python3
"""The P100 fit's held-out and cross-validated figures are the ones the docs quote, and the fit
does not depend on the base file's fitted entries.

usage: cross_validate_test.py AMDAHL SOURCE SHARED WORK

Runs the command of docs/calibration.md with --cross-validate (about 90 s on one core)
on a base whose fitted entries are perturbed: every decimal parameter of each entry whose
source says "fitted" multiplied by kPerturbation. Then
  - the written file is the shipped hw/catalog/devices/p100-sxm2.yaml byte for byte (ctest
    cli.calibrate shows the unperturbed base gives it too): nothing fitted is read back;
  - docs/calibration.md's P100 table and README.md's P100 rows quote the printed held-out and
    cross-validated median / p90 (the printed precision: one decimal of a percent).
"""

import os
import re
import subprocess
import sys

DATASET = "P100_baidu_2018"
DEVICE = "hw/catalog/devices/p100-sxm2.yaml"
PERTURBATION = 0.8  # far from 1, and keeps every fraction a fraction
MIN_PERTURBED = 25  # the five fitted entries hold about 40 decimal parameters
DOC_TABLE_START = "| P100 SXM2 (from PCIe) |"
README_ROWS = {  # README.md "Current numbers" row start: class
    "| P100 SXM2 (DeepBench), GEMM |": "gemm",
    "| P100 SXM2, convolution forward |": "conv",
    "| P100 SXM2, convolution backward data |": "conv_bwd_data",
    "| P100 SXM2, convolution backward filter |": "conv_bwd_filter",
    "| P100 SXM2, RNN ": "rnn",
}
PERCENT = r"\d+\.\d%"


def perturb(text):
    """The device file with each fitted entry's decimal parameters scaled; and how many."""
    count = 0

    def scale(m):
        nonlocal count
        count += 1
        return f"{m.group(1)}{float(m.group(2)) * PERTURBATION:.4g}"

    lines = []
    for line in text.splitlines(keepends=True):
        if line.startswith("  ") and 'source: "fitted' in line:
            head, source = line.split('source: "fitted', 1)
            line = re.sub(r"(: )(\d+\.\d+)", scale, head) + 'source: "fitted' + source
        lines.append(line)
    return "".join(lines), count


FIT_ROW = re.compile(r"^(\w+)\s+(\d+)\s+(\d+)\s+(.*?)\s+\d\.\d{3}\s.*\s(%s)\s+(%s)\s+%s$"
                     % (PERCENT, PERCENT, PERCENT))


def figures(output):
    """{class: (train, held out, structure, "median / p90" held out, the same cross-validated)}."""
    fits, cv = {}, {}
    for line in output.splitlines():
        tokens = line.split()
        fit = FIT_ROW.match(line)
        if fit:
            fits[fit.group(1)] = (*fit.group(2, 3, 4), f"{fit.group(5)} / {fit.group(6)}")
        elif len(tokens) == 5 and all(re.fullmatch(PERCENT, t) for t in tokens[2:]):
            cv[tokens[0]] = f"{tokens[2]} / {tokens[3]}"
    return {c: (*fits[c], cv.get(c)) for c in fits}


def doc_rows(doc):
    """The P100 rows of docs/calibration.md's DeepBench table: {class: cells}."""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(DOC_TABLE_START))
    rows = {}
    for line in lines[start:]:
        cells = [c.strip().replace("**", "") for c in line.strip("|").split("|")]
        if rows and cells[0]:  # the next device
            break
        rows[cells[1].split()[0]] = cells
    return rows


def main(amdahl, source, shared, work):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(source, DEVICE)) as f:
        shipped = f.read()
    base, count = perturb(shipped)
    if count < MIN_PERTURBED:
        print(f"only {count} fitted parameters perturbed in {DEVICE} (expected {MIN_PERTURBED}+)")
        return 1
    base_path, out_path = os.path.join(work, "perturbed-base.yaml"), os.path.join(work, "p100.yaml")
    with open(base_path, "w") as f:
        f.write(base)
    output = subprocess.run(
        [amdahl, "calibrate", "deepbench", "--dir", os.path.join(shared, "data/deepbench"),
         "--dataset", DATASET, "--base", base_path, "--out", out_path, "--cross-validate", "--force"],
        check=True, text=True, stdout=subprocess.PIPE).stdout
    print(output)
    failures = []
    with open(out_path) as f:
        if f.read() != shipped:
            failures.append(f"{out_path}, fitted from {base_path} ({count} fitted parameters x "
                            f"{PERTURBATION}), differs from {DEVICE}: the fit reads the base's "
                            "fitted values")

    found = figures(output)
    with open(os.path.join(source, "docs/calibration.md")) as f:
        doc = doc_rows(f.read())
    for name, cells in doc.items():
        train, held_out, structure, held_out_err, cv_err = found[name]
        # "-": the doc's structure names the entry's fixed one; its rnn row gives no counts.
        structure = cells[2] if structure == "-" else structure
        counts = cells[3] if cells[3] == "-" else f"{train} / {held_out}"
        if cells[2:6] != [structure, counts, held_out_err, cv_err]:
            failures.append(f"docs/calibration.md, P100 {name}: shows {' | '.join(cells[2:6])}; "
                            f"the command prints {structure} | {train} / {held_out} | "
                            f"{held_out_err} | {cv_err}")
    if set(doc) != set(found):
        failures.append(f"docs/calibration.md's P100 rows are {sorted(doc)}; the fit's "
                        f"{sorted(found)}")

    with open(os.path.join(source, "README.md")) as f:
        readme = f.read().splitlines()
    for start, name in README_ROWS.items():
        *_, held_out_err, cv_err = found[name]
        row = [line for line in readme if line.startswith(start)]
        cell = row[0].split("|")[2].strip() if len(row) == 1 else "(no such row)"
        if cell not in (held_out_err, f"{held_out_err} (cross-validated {cv_err})"):
            failures.append(f"README.md '{start}': shows {cell}; the command prints {held_out_err} "
                            f"held out, {cv_err} cross-validated")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
