#!/usr/bin/env python3
"""Count the casts of one step under torch.autocast and compare them with amdahl's lowering.

Runs one training step (forward, loss, backward, SGD-momentum update) and one inference pass
of tests/fixtures/graphs/autocast_convnet.yaml, built here in PyTorch, under
torch.autocast("cpu", dtype=torch.bfloat16) with the profiler (CPU activities, shapes). Each
aten::_to_copy is a cast; its phase (forward, backward, optimizer) is the record_function
range it falls in, and its input shape tells a weight from an activation (the network's
parameter shapes differ from its activation shapes):
  forward  weight casts: fp32 master weight -> bf16 copy, once per weight per forward
  forward  activation casts: where an op's autocast dtype differs from its input's
  backward grad casts: the bf16 gradient of each cast weight -> fp32 (ToCopyBackward0)
  backward activation casts: the gradient of an activation cast, cast back
0-dim casts (a wrapped-number divisor inside mean) are counted apart as "scalar" and not
compared.
amdahl's counts of the same network (`amdahl graph --graph ... --precision bf16 --format
json`) are the ops of kind weight_cast, cast (by phase) and grad_cast.

Usage (Debian's python3 has torch):
  /usr/bin/python3 validate/harness/autocast_casts.py --network tests/fixtures/graphs/autocast_convnet.yaml \
      [--amdahl build/cli/amdahl] [--json counts.json] [--profile profile.csv]

Without --amdahl it prints PyTorch's counts. With it, exits 1 when a count differs. Exits 77
(ctest's skip code) when torch cannot be imported.
"""
import argparse
import collections
import csv
import json
import subprocess
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError as error:  # CI images without python3-torch
    print(f"SKIP: torch is not importable ({error})")
    sys.exit(77)

BATCH = 4
PHASES = ("forward", "backward", "optimizer")


class ConvNet(torch.nn.Module):
    """tests/fixtures/graphs/autocast_convnet.yaml, layer for layer."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 6, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(6)
        self.conv2 = torch.nn.Conv2d(6, 10, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(10)
        self.conv3 = torch.nn.Conv2d(10, 10, 1, bias=False)
        self.fc = torch.nn.Linear(10, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.bn2(self.conv2(x)))
        x = x + self.conv3(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def profile_step(model, mode):
    """The profiler's events of one step: (name, input shapes, phase)."""
    x = torch.randn(BATCH, 3, 12, 12)
    labels = torch.randint(0, 5, (BATCH,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model.train(mode == "train")
    activities = [torch.profiler.ProfilerActivity.CPU]
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        if mode == "train":
            with torch.profiler.record_function("forward"):
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = F.cross_entropy(model(x), labels)
            with torch.profiler.record_function("backward"):
                loss.backward()
            with torch.profiler.record_function("optimizer"):
                opt.step()
        else:
            with torch.profiler.record_function("forward"), torch.no_grad():
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    model(x)
    events = prof.events()
    ranges = {e.name: e.time_range for e in events if e.name in PHASES}

    def phase_of(e):
        for name, r in ranges.items():
            if r.start <= e.time_range.start and e.time_range.end <= r.end:
                return name
        return "other"

    return [(e.name, e.input_shapes, phase_of(e)) for e in events if e.name not in PHASES]


def torch_counts(mode):
    torch.manual_seed(0)
    model = ConvNet()
    param_shapes = {tuple(p.shape) for p in model.parameters()}
    events = profile_step(model, mode)
    counts = collections.Counter()
    for name, shapes, phase in events:
        if name != "aten::_to_copy":
            continue
        if shapes and shapes[0] == []:
            # A 0-dim wrapped number (mean's divisor in adaptive_avg_pool2d, forward and
            # backward): ATen's scalar handling, not an autocast cast of a tensor.
            counts["scalar"] += 1
            continue
        weight = bool(shapes) and tuple(shapes[0]) in param_shapes
        if phase == "forward":
            counts["weight_cast" if weight else "cast.forward"] += 1
        elif phase == "backward":
            counts["grad_cast" if weight else "cast.backward"] += 1
        else:
            counts[f"cast.{phase}"] += 1
    ops = collections.Counter((name, phase) for name, _, phase in events)
    return dict(counts), ops


def amdahl_counts(amdahl, network, mode):
    out = subprocess.run(
        [amdahl, "graph", "--graph", network, "--precision", "bf16", "--mode", mode,
         "--format", "json"],
        check=True, capture_output=True, text=True).stdout
    graph = json.loads(out)
    counts = collections.Counter()
    for op in graph["ops"]:
        kind, phase = op["kind"], op["phase"]
        if kind in ("weight_cast", "grad_cast"):
            counts[kind] += 1
        elif kind == "cast":
            counts["cast.backward" if phase.startswith("backward") else f"cast.{phase}"] += 1
    return dict(counts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", required=True, help="autocast_convnet.yaml")
    parser.add_argument("--amdahl", help="the amdahl binary: compare its counts")
    parser.add_argument("--json", help="write PyTorch's counts here")
    parser.add_argument("--profile", help="write profile.csv-style op counts here")
    args = parser.parse_args()

    result, failed = {"torch": torch.__version__}, False
    rows = []
    for mode in ("train", "infer"):
        counts, ops = torch_counts(mode)
        result[mode] = counts
        rows += [(mode, phase, name, calls) for (name, phase), calls in sorted(ops.items())]
        print(f"{mode}: torch {torch.__version__} casts {counts}")
        if args.amdahl:
            expected = amdahl_counts(args.amdahl, args.network, mode)
            print(f"{mode}: amdahl casts {expected}")
            for key in sorted((set(counts) | set(expected)) - {"scalar"}):
                if counts.get(key, 0) != expected.get(key, 0):
                    print(f"MISMATCH {mode} {key}: torch {counts.get(key, 0)}, "
                          f"amdahl {expected.get(key, 0)}")
                    failed = True
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.profile:
        with open(args.profile, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["mode", "phase", "op", "calls"])
            writer.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
