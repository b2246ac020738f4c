#!/usr/bin/env python3
"""amdahl explore from the command line (docs/explore.md).

  explore_test.py AMDAHL WORK basic    the issue's acceptance command: the elasticity table
                                       and the Pareto front; bad input stops before any work
  explore_test.py AMDAHL WORK resume   a run killed mid-way, then --resume: the same files as
                                       an uninterrupted run, the finished chunks not recomputed
  explore_test.py AMDAHL WORK mpi MPIEXEC
                                       2 and 3 ranks write the same files as one process; a
                                       rank killed mid-run stops the job naming it, and
                                       --resume (on another number of ranks) recovers
"""

import filecmp
import os
import re
import shutil
import signal
import subprocess
import sys
import time

AMDAHL, WORK, WHAT = sys.argv[1], sys.argv[2], sys.argv[3]
MPIEXEC = sys.argv[4] if len(sys.argv) > 4 else ""

ACCEPTANCE = ["explore", "--suite", "fathom", "--system", "minsky",
              "--vary", "gpu0.peak.fp32=5..40TFLOP/s:x2",
              "--vary", "gpu0.memory.bandwidth=0.25..2TB/s:x2"]
# A grid of many chunks (5,000 points of two networks): the ranks share it unevenly.
MEDIUM = ["explore", "--models", "resnet50,alexnet:mode=infer", "--system", "minsky",
          "--vary", "gpu0.peak.fp32=1..50TFLOP/s:1TFLOP/s",
          "--vary", "gpu0.memory.bandwidth=0.1..5TB/s:0.1TB/s"]
# Long enough to kill mid-run (about 200,000 ResNet-50 predictions, several seconds).
LONG = ["explore", "--models", "resnet50", "--system", "minsky",
        "--vary", "gpu0.peak.fp32=1..100TFLOP/s:1TFLOP/s",
        "--vary", "gpu0.memory.bandwidth=0.05..100TB/s:0.05TB/s"]
FILES = ["explore.csv", "configurations.csv", "elasticity.csv", "knees.csv", "pareto.csv",
         "explore.json"]

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl_vader_single_copy_mechanism="none")

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, expect_rc=0):
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    if r.returncode != expect_rc:
        failures.append(f"{' '.join(cmd)}: exit {r.returncode}, expected {expect_rc}\n"
                        f"{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return r


def fresh(name):
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def same_files(a, b, what):
    for f in FILES:
        check(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False),
              f"{what}: {f} differs from the single-process run's")


def holds_a_record(checkpoint):
    """Whether the checkpoint holds its header and one whole chunk record: the header line
    ("amdahl-explore-checkpoint 2 FINGERPRINT POINTS CHUNK SIZEOF ORDER"), then the record's
    chunk and count (two uint64), count results of SIZEOF bytes and a uint64 sum. A file merely
    large can be a record cut short mid-write, which --resume rightly discards."""
    try:
        with open(checkpoint, "rb") as f:
            data = f.read()
    except OSError:
        return False
    end = data.find(b"\n")
    fields = data[:end].split() if end >= 0 else []
    if len(fields) != 7:
        return False
    head = end + 1
    if len(data) < head + 16:
        return False
    byteorder = "little" if fields[6] == b"le" else "big"
    count = int.from_bytes(data[head + 8:head + 16], byteorder)
    return len(data) >= head + 16 + count * int(fields[5]) + 8


def kill_when_checkpointed(proc, folder, kill):
    """Waits for the run's checkpoint to hold a finished chunk, then kills (kill(proc))."""
    checkpoint = os.path.join(folder, "explore.checkpoint")
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(checkpoint) and holds_a_record(checkpoint):
            kill(proc)
            break
        time.sleep(0.01)
    proc.wait(timeout=120)
    return checkpoint


def basic():
    out = fresh("acceptance")
    r = run([AMDAHL] + ACCEPTANCE + ["-o", out])
    text = r.stdout
    check("elasticity of the step time" in text, "the elasticity table is printed")
    check("Pareto front" in text, "the Pareto front is printed")
    check("suite (geometric mean)" in text, "the suite's knees are printed")
    # Every fathom workload has a row in the elasticity table, each with two elasticities.
    for w in ["seq2seq", "memnet", "speech", "autoenc", "residual", "vgg", "alexnet", "deepq"]:
        check(re.search(rf"^{w}\s+\S+ \S*s\s+\w+\s+[-+]?\d\.\d{{3}}\s+[-+]?\d\.\d{{3}}", text,
                        re.M) is not None, f"an elasticity row for {w}")
    for f in FILES + ["figures/pareto.svg", "figures/pareto.gp"]:
        check(os.path.exists(os.path.join(out, f)), f"-o writes {f}")
    check(not os.path.exists(os.path.join(out, "explore.checkpoint")),
          "the checkpoint is removed once the files are written")
    # 16 grid configurations x 8 variants.
    with open(os.path.join(out, "explore.csv")) as f:
        check(len(f.read().splitlines()) == 1 + 16 * 8, "explore.csv has every grid point")
    # The most compute-bound workload's time follows the peak: elasticity near -1 for speech.
    with open(os.path.join(out, "elasticity.csv")) as f:
        rows = {line.split(",")[0]: line.split(",") for line in f.read().splitlines()[1:]}
    check(-1.0 <= float(rows["speech"][3]) < -0.5, "speech's time follows the fp32 peak")

    # Bad input: a clear error (exit 2) before any work, and nothing written.
    bad = [
        (["--vary", "gpu0.memroy.bandwidth=1TB/s"], "did you mean 'memory'"),
        (["--vary", "gpu0.memory.bandwidth=1..8TFLOP/s:x2"], "expected bytes per second"),
        (["--vary", "gpu0.memory.bandwidth=-1TB/s"], "must be positive"),
        (["--vary", "gpus=1,8", "--vary", "gpu0.clock=1GHz"], "8 GPUs, but minsky has 4"),
        (["--vary", "gpu0.clock=1GHz", "--cost", "clok * 2"], "unknown parameter 'clok'"),
        (["--vary", "gpu0.peak.fp32=1..2000TFLOP/s:1TFLOP/s",
          "--vary", "gpu0.memory.bandwidth=1..100TB/s:1TB/s"], "without --force"),
        (["--vary", "gpu0.kind=1"], "is not a number"),
        (["--vary", "gpu0.clock=1GHz", "--resume"], "--resume: no checkpoint"),
    ]
    for args, message in bad:
        folder = fresh("bad")
        r = run([AMDAHL, "explore", "--suite", "fathom"] + args + ["-o", folder], expect_rc=2)
        check(message in r.stderr, f"{' '.join(args)}: says '{message}' (got {r.stderr!r})")
        check(not os.path.exists(os.path.join(folder, "explore.csv")),
              f"{' '.join(args)}: nothing written")


def resume():
    reference = fresh("long_reference")
    run([AMDAHL] + LONG + ["-o", reference])
    out = fresh("long_killed")
    proc = subprocess.Popen([AMDAHL] + LONG + ["-o", out], env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    checkpoint = kill_when_checkpointed(proc, out, lambda p: p.send_signal(signal.SIGKILL))
    check(proc.returncode == -signal.SIGKILL, "the run was killed mid-way")
    check(os.path.exists(checkpoint), "a killed run leaves its checkpoint")
    r = run([AMDAHL] + LONG + ["-o", out], expect_rc=2)
    check("give --resume" in r.stderr, "a checkpoint without --resume is named")
    other = LONG[:-1] + ["gpu0.memory.bandwidth=0.05..90TB/s:0.05TB/s"]
    r = run([AMDAHL] + other + ["-o", out, "--resume"], expect_rc=2)
    check("belongs to another exploration" in r.stderr, "another grid's checkpoint is refused")
    r = run([AMDAHL] + LONG + ["-o", out, "--resume"])
    m = re.search(r"ran (\d+) predictions .* (\d+) resumed from the checkpoint", r.stdout)
    check(m is not None and int(m.group(2)) > 0, "--resume reads the finished chunks")
    if m:
        check(int(m.group(1)) + int(m.group(2)) == 202105, "resumed + computed = every point")
    same_files(reference, out, "resumed")
    resume_changed_inputs()


def resume_changed_inputs():
    """The checkpoint's fingerprint covers every file the run read: a device file the system
    includes, or the network file, changed between the killed run and --resume is another
    exploration; restored, the checkpoint resumes."""
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    hw = fresh("hw_copy")
    for sub in ("systems", "devices", "links"):
        shutil.copytree(os.path.join(source, "hw", "catalog", sub), os.path.join(hw, sub))
    net = os.path.join(hw, "resnet50.yaml")
    shutil.copy(os.path.join(source, "graphs", "zoo", "resnet50.yaml"), net)
    device = os.path.join(hw, "devices", "p100-sxm2.yaml")
    cmd = [AMDAHL, "explore", "--models", net, "--system",
           os.path.join(hw, "systems", "minsky.yaml"), "--allow-path", hw] + LONG[5:]
    for changed, what in ((device, "an included device file"), (net, "the network file")):
        out = fresh("long_inputs")
        proc = subprocess.Popen(cmd + ["-o", out], env=ENV, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        checkpoint = kill_when_checkpointed(proc, out, lambda p: p.send_signal(signal.SIGKILL))
        check(os.path.exists(checkpoint), f"{what}: a killed run leaves its checkpoint")
        with open(changed) as f:
            original = f.read()
        with open(changed, "w") as f:
            f.write(original.replace("732 GB/s", "700 GB/s") if changed == device
                    else original + "\n# edited\n")
        r = run(cmd + ["-o", out, "--resume"], expect_rc=2)
        check("belongs to another exploration" in r.stderr,
              f"{what} changed: the checkpoint is refused (got {r.stderr[-500:]!r})")
        with open(changed, "w") as f:
            f.write(original)
        r = run(cmd + ["-o", out, "--resume"])
        check(re.search(r"\d+ resumed from the checkpoint", r.stdout) is not None,
              f"{what} restored: the checkpoint resumes")


def mpi():
    single = fresh("medium_single")
    run([AMDAHL] + MEDIUM + ["-o", single])
    for ranks in (2, 3):
        out = fresh(f"medium_mpi{ranks}")
        r = run([MPIEXEC, "-n", str(ranks), "--oversubscribe", AMDAHL] + MEDIUM + ["-o", out])
        check(f"on {ranks} ranks" in r.stdout, f"{ranks} ranks ran")
        same_files(single, out, f"{ranks} ranks")
    acceptance_single = fresh("acceptance_single")
    run([AMDAHL] + ACCEPTANCE + ["-o", acceptance_single])
    acceptance_mpi = fresh("acceptance_mpi")
    run([MPIEXEC, "-n", "2", "--oversubscribe", AMDAHL] + ACCEPTANCE + ["-o", acceptance_mpi])
    same_files(acceptance_single, acceptance_mpi, "acceptance on 2 ranks")

    # A rank that dies: the job stops naming it; --resume on 3 ranks recovers.
    reference = fresh("long_reference_mpi")
    run([AMDAHL] + LONG + ["-o", reference])
    out = fresh("long_rank_killed")
    proc = subprocess.Popen([MPIEXEC, "-n", "2", "--oversubscribe", AMDAHL] + LONG + ["-o", out],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def kill_rank_1(_):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = f.read().split(b"\0")
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if b"OMPI_COMM_WORLD_RANK=1" in env and b"explore" in cmdline and \
                    os.path.basename(AMDAHL).encode() in cmdline:
                os.kill(int(pid), signal.SIGKILL)

    kill_when_checkpointed(proc, out, kill_rank_1)
    text = proc.stdout.read()
    check(proc.returncode != 0, "the job stops when a rank dies")
    check("rank 1" in text, f"the dead rank is named (got {text[-1500:]!r})")
    r = run([MPIEXEC, "-n", "3", "--oversubscribe", AMDAHL] + LONG + ["-o", out, "--resume"])
    check(re.search(r"\d+ resumed from the checkpoint", r.stdout) is not None,
          "--resume on 3 ranks reads the finished chunks")
    same_files(reference, out, "resumed after a rank died")


os.makedirs(WORK, exist_ok=True)
{"basic": basic, "resume": resume, "mpi": mpi}[WHAT]()
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
