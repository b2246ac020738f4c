#!/usr/bin/env python3
"""The figures README.md's "Current numbers" quotes are what `amdahl validate` and
`amdahl calibrate allreduce` print.

usage: figures_test.py AMDAHL SOURCE SHARED

Each claim names a README row (by its start), the command the docs give for it and the named
figures of its output the row quotes as "median / p90", in order: a group of validate's
"|error| by group" table, or an all-reduce fit's held-out or training figures. The whole
outputs are pinned in docs/validation.md and docs/calibration-collectives.md
(tests/cli/doc_output_test.py); this test ties the summary table to them. A figure that moves
fails here until the README row follows.
"""

import os
import re
import subprocess
import sys

H200_STEPS = "validate --measured ../shared/data/h200/networks/steps.csv --system h200"
CPU_CASE = ("validate --measured validate/cases/cpu-this-machine-2026-11-30{}.csv "
            "--system calibrate/examples/cpu-example.yaml")
CPU_ROW = "| End-to-end validation, PyTorch 1.13"
ALLREDUCE = "calibrate allreduce --dir ../shared/data/deepbench"
TF_DGX1 = "validate --measured validate/cases/tf-benchmarks-dgx1-p100-2017-05-{}.csv --system dgx1-p100"
TF_ROW = "| Multi-GPU training against TensorFlow's published DGX-1"
CLAIMS = [  # the CPU row quotes three sets in order: 10:40Z, 10:46Z, 10:44Z in one process
    (CPU_ROW, CPU_CASE.format("T1040Z"), ["all"]),
    (CPU_ROW, CPU_CASE.format("T1046Z"), ["all"]),
    (CPU_ROW, CPU_CASE.format("T1044Z-shared"), ["all"]),
    ("| validation on a GPU: 52 measured", H200_STEPS, ["all", "precision fp32", "precision bf16"]),
    ("| H200 steps at batch <= 16", H200_STEPS, ["batch <= 16"]),
    (TF_ROW, TF_DGX1.format("synthetic"), ["all"]),  # then ImageNet's
    (TF_ROW, TF_DGX1.format("imagenet"), ["all"]),
    ("| DeepBench all-reduce (one node", ALLREDUCE,
     [f"one node {d} held out" for d in ("P100_baidu_2018", "TitanXPascal", "1080Ti", "M40",
                                         "TitanX_Maxwell", "P100_baidu_2017-05")]),
    ("| DeepBench all-reduce over 2 and 4 nodes", ALLREDUCE,
     [f"nodes {d} held out" for d in ("TitanXPascal", "1080Ti", "M40", "TitanX_Maxwell")] +
     ["nodes P100_baidu_2018 train"]),
]
GROUP_ROW = re.compile(r"^(.*?)\s+(\d+)\s+(\d+\.\d%)\s+(\d+\.\d%)$")
FIGURE = re.compile(r"\d+\.\d% / \d+\.\d%")
NODES_TABLE = "over several nodes"  # starts calibrate allreduce's multi-node table


def group_figures(output):
    """validate's "|error| by group" rows: {group: "median / p90"}."""
    table = output.split("|error| by group:")[1]
    return {m.group(1): f"{m.group(3)} / {m.group(4)}"
            for m in map(GROUP_ROW.match, table.splitlines()) if m}


def allreduce_figures(output):
    """calibrate allreduce's rows: {"one node DATASET KIND" or "nodes DATASET KIND":
    "median / p90"}, KIND "train" or "held out"."""
    found = {}
    for where, table in zip(("one node", "nodes"), output.split(NODES_TABLE)):
        for line in table.splitlines():
            quoted = FIGURE.findall(line)
            if quoted:  # train, then held out when the dataset has held-out rows
                for kind, figure in zip(("train", "held out"), quoted):
                    found[f"{where} {line.split()[0]} {kind}"] = figure
    return found


PARSERS = {"validate": group_figures, "calibrate": allreduce_figures}  # by the subcommand


def main(amdahl, source, shared):
    with open(os.path.join(source, "README.md")) as f:
        readme = f.read().splitlines()
    failures = 0
    figures_of = {}  # command: its figures, each command run and parsed once
    for row_start, command, names in CLAIMS:
        if command not in figures_of:
            args = command.replace("../shared", shared).split()
            output = subprocess.run([amdahl, *args], cwd=source, check=True, text=True,
                                    stdout=subprocess.PIPE).stdout
            figures_of[command] = PARSERS[args[0]](output)
        rows = [line for line in readme if line.startswith(row_start)]
        if len(rows) != 1:
            print(f"README.md: {len(rows)} rows start with '{row_start}', expected 1")
            failures += 1
            continue
        found = figures_of[command]
        missing = [name for name in names if name not in found]
        if missing:
            print(f"`amdahl {command}` prints no figure for {', '.join(missing)}")
            failures += 1
            continue
        quoted = [found[name] for name in names]
        # The figures in order, each once: "a / b ... c / d".
        if not re.search(".*".join(re.escape(f) for f in quoted), rows[0]):
            print(f"README.md: the row '{row_start}...' does not quote {', '.join(quoted)} "
                  f"({', '.join(names)}) in that order, which `amdahl {command}` prints:\n"
                  f"  {rows[0]}")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
