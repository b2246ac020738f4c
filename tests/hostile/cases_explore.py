"""Hostile inputs of the explore area (docs/reliability.md): numeric options checked before any
work and no checkpoint left by an argument error; costs that are not finite numbers; points that
cannot hold their model; workload variants beyond what explore holds lowered. (A checkpoint
resumed after an included device file or the network file changed: tests/cli/explore_test.py,
which kills a run mid-way.)"""

import csv
import os

from hostile import Case

# A small exploration: one network, one hardware axis of two values (8 points), under a second.
SMALL = ["explore", "--models", "alexnet", "--system", "minsky",
         "--vary", "gpu0.clock=1..2GHz:1GHz"]
CHECKPOINT = ["out/explore.checkpoint", "out"]


def _rows(folder, name):
    with open(os.path.join(folder, "out", name)) as f:
        return list(csv.DictReader(f))


def _capacity_infeasible(folder, result):
    """1 B of memory holds no network: that configuration is infeasible, off the front, counted
    in configurations.csv and marked in explore.csv; the 16 GiB one is on the front."""
    configs = _rows(folder, "configurations.csv")
    small = [c for c in configs if float(c["gpu0.memory.capacity"]) == 1]
    large = [c for c in configs if float(c["gpu0.memory.capacity"]) > 1]
    if len(small) != 1 or len(large) != 1:
        return f"expected one configuration per capacity, got {configs}"
    if small[0]["pareto"] != "no" or small[0]["out_of_memory_variants"] != "1":
        return f"the 1 B configuration: {small[0]}"
    if small[0]["geomean_speedup"] != "nan":
        return f"the 1 B configuration has a speedup: {small[0]}"
    if large[0]["pareto"] != "yes" or large[0]["out_of_memory_variants"] != "0":
        return f"the 16 GiB configuration: {large[0]}"
    points = _rows(folder, "explore.csv")
    status = {float(p["gpu0.memory.capacity"]) > 1: p["status"] for p in points}
    if status != {False: "out_of_memory", True: "ok"}:
        return f"explore.csv's status column: {status}"
    with open(os.path.join(folder, "out", "pareto.csv")) as f:
        if len(f.read().splitlines()) != 2:
            return "pareto.csv holds more than the 16 GiB configuration"
    return None


CASES = [
    # --threads: a range checked before any work; no checkpoint, no folder left behind.
    Case(name="threads-huge", args=SMALL + ["--threads", "100000", "-o", "out"],
         message=["--threads", "must be 0 (the cores) to 512 (got 100000)"], absent=CHECKPOINT),
    Case(name="threads-overflow",
         args=SMALL + ["--threads", "99999999999999999999999", "-o", "out"],
         message="must be 0 (the cores) to 512", absent=CHECKPOINT),
    Case(name="threads-negative", args=SMALL + ["--threads", "-1", "-o", "out"],
         message="--threads", absent=CHECKPOINT),
    Case(name="threads-not-whole", args=SMALL + ["--threads", "2.5", "-o", "out"],
         message="expected a whole number of threads", absent=CHECKPOINT),
    Case(name="threads-unsigned-wrap", args=SMALL + ["--threads", "4294967297", "-o", "out"],
         message="must be 0 (the cores) to 512", absent=CHECKPOINT),
    # The most threads runs (the workers start, the small grid finishes) within the limits.
    Case(name="threads-max", args=SMALL + ["--threads", "512", "-o", "out"], exit=0,
         absent=["out/explore.checkpoint"]),
    # Other numbers of explore: the knee threshold, GPU counts, sizes.
    Case(name="knee-nan", args=SMALL + ["--knee", "nan"], message="--knee"),
    Case(name="knee-zero", args=SMALL + ["--knee", "0"], message="--knee"),
    Case(name="knee-negative", args=SMALL + ["--knee", "-0.5"], message="--knee"),
    # A threshold no step reaches printed "gains less than 1e+302%" (the generated pass).
    Case(name="knee-huge", args=SMALL + ["--knee", "1e300"],
         message="--knee: must be a number above 0 and at most 100"),
    Case(name="models-gpus-zero",
         args=["explore", "--models", "alexnet:gpus=0", "--vary", "gpu0.clock=1GHz", "-o", "out"],
         message="gpus", absent=CHECKPOINT),
    Case(name="models-gpus-huge",
         args=["explore", "--models", "alexnet:gpus=99999999999999999999", "--vary",
               "gpu0.clock=1GHz", "-o", "out"],
         message="gpus", absent=CHECKPOINT),
    Case(name="vary-gpus-negative",
         args=["explore", "--models", "alexnet", "--vary", "gpus=-2", "--vary", "gpu0.clock=1GHz",
               "-o", "out"],
         message="gpus", absent=CHECKPOINT),
    Case(name="vary-batch-zero",
         args=["explore", "--models", "alexnet", "--vary", "batch=0", "--vary", "gpu0.clock=1GHz",
               "-o", "out"],
         message="batch", absent=CHECKPOINT),
    # An error in the base system's predictions (after the arguments parsed): no checkpoint.
    Case(name="base-refused-no-checkpoint",
         args=["explore", "--models", "alexnet:batch=10000000000000", "--vary", "gpu0.clock=1GHz",
               "-o", "out"],
         message="beyond the 1e+09 s amdahl reports", absent=CHECKPOINT),

    # --cost that is not a finite number at some configuration: an error naming the expression
    # and the configuration, before any prediction (never an empty front with exit 0).
    Case(name="cost-nan",
         args=SMALL + ["--cost", "(clock - 1GHz) / (clock - 1GHz)", "-o", "out"],
         message=["--cost '(clock - 1GHz) / (clock - 1GHz)': nan at configuration 0",
                  "gpu0.clock=1 GHz", "a cost must be a finite number"],
         absent=CHECKPOINT),
    Case(name="cost-infinite", args=SMALL + ["--cost", "1 / (clock - 2GHz)", "-o", "out"],
         message=["inf at configuration 1", "gpu0.clock=2 GHz"], absent=CHECKPOINT),
    Case(name="cost-overflow", args=SMALL + ["--cost", "clock ^ 400"],
         message=["--cost 'clock ^ 400': inf at configuration 0"]),

    # A configuration whose device memory cannot hold the model is infeasible: never on the
    # front, counted, and marked in the files.
    Case(name="capacity-1B",
         args=["explore", "--models", "alexnet", "--vary", "gpu0.memory.capacity=1B,16GiB",
               "-o", "out"],
         exit=0, message=["1 of 2 configurations have a variant whose memory footprint exceeds",
                          "out_of_memory"],
         check=_capacity_infeasible),
    Case(name="capacity-1B-only",
         args=["explore", "--models", "alexnet", "--vary", "gpu0.memory.capacity=1B"],
         exit=0, message=["(none: no configuration of the 1 runs every variant",
                          "1 of 1 configurations have a variant whose memory footprint exceeds"]),
    Case(name="capacity-1B-csv",
         args=["explore", "--models", "alexnet", "--vary", "gpu0.memory.capacity=1B",
               "--format", "csv"],
         exit=0, message=["the Pareto front is empty", "out_of_memory_variants"]),
    # A variant the base device cannot hold either: its time is measured for the analysis (as
    # predict does), every grid configuration is infeasible and said to be.
    Case(name="capacity-base-too-small",
         args=["explore", "--models", "alexnet:batch=20000", "--vary", "gpu0.clock=1,2GHz"],
         exit=0, message=["(none: no configuration of the 2 runs every variant",
                          "2 of 2 configurations have a variant whose memory footprint exceeds"]),
    Case(name="capacity-grows-with-batch",
         args=["explore", "--models", "alexnet", "--vary", "batch=64,20000",
               "--vary", "gpu0.memory.capacity=16GiB,1TB"],
         exit=0, message=["1 of 2 configurations have a variant whose memory footprint exceeds"]),

    # A size axis of many values: every variant is lowered and held for the whole run, so
    # their ops are bounded (explore.h kMaxExploreOps), checked as they are lowered: a clear
    # error within seconds and a bounded memory, never gigabytes and an internal error.
    Case(name="vary-batch-100000",
         args=["explore", "--models", "resnet50", "--vary", "batch=1..100000:1",
               "--vary", "gpu0.clock=1GHz", "-o", "out"],
         message=["--vary", "workload variants", "lowered"], absent=CHECKPOINT),
    Case(name="vary-batch-100000-suite",
         args=["explore", "--suite", "fathom", "--vary", "batch=1..100000:1",
               "--vary", "gpu0.clock=1GHz"],
         message=["workload variants", "lowered"]),
    # Within the bound: many variants run, in seconds.
    Case(name="vary-batch-200", exit=0,
         args=["explore", "--models", "alexnet", "--vary", "batch=1..200:1",
               "--vary", "gpu0.clock=1GHz"],
         message="Pareto front"),
]
