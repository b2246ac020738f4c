#!/usr/bin/env python3
"""Measure whole training steps and inference passes of zoo networks with PyTorch.

Writes amdahl's measured-runs CSV (docs/output-format.md): workload,batch,mode,precision,measured_s plus
device, framework and notes columns, one row per (network, batch, mode). These numbers are
for VALIDATION only: amdahl never fits a parameter to them.

Usage (Debian's python3 has torch and torchvision):
  /usr/bin/python3 validate/harness/measure_pytorch.py --device cpu \
      --models alexnet-tv,resnet18 --batches 1,8,32 --modes train,infer --out runs.csv

A step is timed end to end as a framework user sees it: forward, loss, backward and
optimizer step (train), or forward under no_grad (infer), with the loss read back to the
host (a synchronization point). The median of --reps steps after --warmup steps is kept.

Each (network, mode, batch) runs in a fresh Python process by default (--process fresh): the
state of a process that runs only that workload. In one process (--process shared), the
configurations run in order and share the allocator's state: an inference pass measured after
training steps reuses the heap those steps grew instead of faulting in fresh pages for its
large activations (MobileNet-v2 inference at batch 32 on this machine's CPU: about 0.7-0.9 s
after training, 1.6-2.1 s in a fresh process).
"""
import argparse
import csv
import platform
import statistics
import subprocess
import sys
import time

import torch
import torchvision

# zoo name -> (torchvision constructor, keyword arguments, input image size)
MODELS = {
    "alexnet-tv": (torchvision.models.alexnet, {}, 224),
    "vgg16": (torchvision.models.vgg16, {}, 224),
    "resnet18": (torchvision.models.resnet18, {}, 224),
    "resnet50": (torchvision.models.resnet50, {}, 224),
    "resnet152": (torchvision.models.resnet152, {}, 224),
    "mobilenet-v2": (torchvision.models.mobilenet_v2, {}, 224),
    "inception-v3": (torchvision.models.inception_v3,
                     {"aux_logits": False, "init_weights": False}, 299),
}


def step_time(model, batch, image, mode, device, reps, warmup):
    x = torch.randn(batch, 3, image, image, device=device)
    y = torch.randint(0, 1000, (batch,), device=device)
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    times = []
    for i in range(warmup + reps):
        start = time.perf_counter()
        if mode == "train":
            model.train()
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            loss.item()
        else:
            model.eval()
            with torch.no_grad():
                model(x).sum().item()
        if device == "cuda":
            torch.cuda.synchronize()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--models", default="alexnet-tv,resnet18")
    ap.add_argument("--batches", default="1,8,32")
    ap.add_argument("--modes", default="train,infer")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    ap.add_argument("--process", default="fresh", choices=["fresh", "shared"],
                    help="fresh: each configuration in a new process (default); shared: all in "
                         "this one, in order")
    ap.add_argument("--single", help=argparse.SUPPRESS)  # one configuration (fresh processes)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.single:
        return single(args)
    if not args.out:
        ap.error("--out is required")
    unknown = [m for m in args.models.split(",") if m not in MODELS]
    if unknown:
        sys.exit(f"unknown model(s) {unknown}; valid: {', '.join(MODELS)}")
    if args.device == "cuda":
        device_name = torch.cuda.get_device_name(0)
    else:
        device_name = platform.processor() or platform.machine()
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        device_name = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
    framework = f"pytorch {torch.__version__}"
    process = ("each in a fresh process" if args.process == "fresh"
               else "in one process after the configurations before it")
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "batch", "mode", "precision", "measured_s", "device",
                    "framework", "notes"])
        for name in args.models.split(","):
            ctor, kwargs, image = MODELS[name]
            model = ctor(**kwargs).to(args.device) if args.process == "shared" else None
            for mode in args.modes.split(","):
                for batch in (int(b) for b in args.batches.split(",")):
                    if model is None:
                        t = fresh_process_time(args, name, mode, batch)
                    else:
                        t = step_time(model, batch, image, mode, args.device, args.reps,
                                      args.warmup)
                    note = (f"median of {args.reps} steps after {args.warmup} warm-up, {process}; "
                            f"{torch.get_num_threads()} threads; sgd momentum")
                    w.writerow([name, batch, mode, "fp32", f"{t:.6g}", device_name, framework, note])
                    f.flush()
                    print(f"{name} {mode} batch {batch}: {t * 1e3:.2f} ms", file=sys.stderr)


def fresh_process_time(args, name, mode, batch):
    """The step time of one configuration, measured by this script in a new process."""
    command = [sys.executable, __file__, "--single", f"{name},{mode},{batch}",
               "--device", args.device, "--reps", str(args.reps), "--warmup", str(args.warmup),
               "--threads", str(args.threads)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{name} {mode} batch {batch} failed in its process:\n{done.stderr}")
    return float(done.stdout.strip().splitlines()[-1])


def single(args):
    """--single NAME,MODE,BATCH: print that configuration's step time in seconds."""
    name, mode, batch = args.single.split(",")
    if name not in MODELS or mode not in ("train", "infer"):
        sys.exit(f"--single {args.single}: expected NAME,train|infer,BATCH with NAME one of "
                 f"{', '.join(MODELS)}")
    ctor, kwargs, image = MODELS[name]
    model = ctor(**kwargs).to(args.device)
    print(step_time(model, int(batch), image, mode, args.device, args.reps, args.warmup))


if __name__ == "__main__":
    main()
