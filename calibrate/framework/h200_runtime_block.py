"""The fit and report of fit_h200_runtime.py: the runtime values from the profiled
configurations (fit), the system file's `runtime:` block (render), and --explain's derivation
and whole-step sanity comparison on stderr (read_validation, explain, synth)."""

import json
import os
import statistics
import sys

from fit_common import InputError, fit_line, fmt
from h200_profile import (LAUNCH_APIS, MICRO_COLS, NOT_HOST, PER_LAUNCH_ROWS, PROFILE_COLS,
                          PSTEPS_COLS, STEPS_COLS, read_csv)
from h200_family_parts import FAMILIES, MAIN, SEQ, Config, build_parts, recorded_share

ENGINE_KEYS = ("backward_node", "accumulate_grad", "zero_grad_per_param", "autocast_cast",
               "autograd_record", "module_call")
CAST_ROWS = ("aten::to", "aten::empty_strided", "aten::copy_")
MODULE_CALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "h200_module_call.json")


def read_module_call():
    """engine.module_call as lono_h200_module_call.py chose it (its --write output)."""
    try:
        with open(MODULE_CALL, encoding="utf-8") as f:
            mc = json.load(f)
        host, src = float(mc["host_us"]), str(mc["source"])
    except FileNotFoundError:
        raise InputError(f"{MODULE_CALL}: missing (lono_h200_module_call.py --write makes it)")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"{MODULE_CALL}: unreadable ({e}); expected "
                         '{"host_us": <number>, "source": "<text>"}')
    if not host >= 0:
        raise InputError(f"{MODULE_CALL}: host_us {host} must be >= 0")
    return {"host_us": host, "source": src}


def fit(data):
    ppath = os.path.join(data, "networks", "profile.csv")
    mpath = os.path.join(data, "kernels", "micro.csv")
    prof = read_csv(ppath, PROFILE_COLS,
                    ["batch", "calls", "self_device_us", "self_cpu_us", "steps"])
    micro = read_csv(mpath, MICRO_COLS, ["bytes_or_elems", "median_us", "min_us"])
    by = {}
    for r in prof:
        if r["steps"] <= 0 or r["calls"] <= 0:
            raise InputError(f"{ppath}:{r['_line']}: calls and steps must be > 0; expected "
                             "columns " + ",".join(PROFILE_COLS))
        by.setdefault((r["model"], int(r["batch"])), []).append(r)
    cfgs = {k: Config(k, v, ppath) for k, v in by.items()}
    if MAIN not in cfgs:
        raise InputError(f"{ppath}: no resnet50 batch-1 rows (the main configuration)")
    main = cfgs[MAIN]
    for op in ("aten::add_", "cudaLaunchKernel"):
        if main.calls(op) <= 0:
            raise InputError(f"{ppath}: resnet50 batch 1 has no {op} row (the slowdown anchor)")
    tiny = [r for r in micro if r["bench"] == "1000_tiny_launches_wall"]
    if not tiny or tiny[0]["bytes_or_elems"] <= 0:
        raise InputError(f"{mpath}: no 1000_tiny_launches_wall row (the slowdown anchor)")
    unprof = tiny[0]["median_us"] / tiny[0]["bytes_or_elems"]
    anchor = main.mean("aten::add_") + main.mean("cudaLaunchKernel")
    factor = unprof / anchor
    graph = [r for r in micro if r["bench"] == "1000_tiny_launches_graph"]

    parts = {k: build_parts(cfg) for k, cfg in cfgs.items()}
    res = {"factor": factor, "unprof": unprof, "anchor": anchor, "cfgs": cfgs, "parts": parts,
           "graph": graph[0]["median_us"] / graph[0]["bytes_or_elems"] if graph else None}

    # autograd recording: aten::convolution's self (its autograd kernel: the node, saved
    # tensors and edges, then a redispatch) less aten::conv2d's (a composite pass-through:
    # dispatch and a call, nothing recorded), per call, median over the conv configs
    rec = []
    for k, cfg in sorted(cfgs.items()):
        if cfg.calls("aten::convolution") > 0 and cfg.calls("aten::conv2d") > 0:
            rec.append((cfg.mean("aten::convolution") - cfg.mean("aten::conv2d"), k))
    if not rec:
        raise InputError(f"{ppath}: no config with aten::convolution and aten::conv2d rows "
                         "(the autograd-recording pair)")
    record = statistics.median(v for v, _ in rec) * factor
    res["record_pts"] = rec
    res["record"] = (record,
                     f"aten::convolution - aten::conv2d self per call, median of {len(rec)} "
                     "configs (" + ", ".join(f"{k[0]} b{k[1]} {v * factor:.3g}" for v, k in rec)
                     + "): the autograd kernel's node, saved tensors and edges; "
                     "ops' host values are the call less it")

    # families
    primary = {"rnn": SEQ, "embedding": SEQ, "data_movement": SEQ}
    ops = {}
    for fam in FAMILIES:
        key = primary.get(fam, MAIN)
        P = parts.get(key, {})
        f, b = P.get((fam, "fwd")), P.get((fam, "bwd"))
        if f is None or f.per_call() is None:
            continue
        name = f"{key[0]} b{key[1]}"
        kern = f.kernels / f.calls
        if fam == "gemm":  # one linear layer in resnet50: the median over every config
            vals = []
            for k2, P2 in sorted(parts.items()):
                f2, b2 = P2.get(("gemm", "fwd")), P2.get(("gemm", "bwd"))
                if f2 is not None and b2 is not None and f2.calls > 0 and b2.calls > 0:
                    vals.append((f2.per_call() * factor, b2.per_call() * factor, k2, f2))
            host = statistics.median(v[0] for v in vals) - record
            back = statistics.median(v[1] for v in vals)
            exact = [v[3].kernels / v[3].calls for v in vals if not v[3].assumed]
            kern = statistics.median(exact) if exact else 1.0
            src = (f"median of {len(vals)} configs ("
                   + ", ".join(f"{v[2][0]} b{v[2][1]} {v[0]:.3g}" for v in vals)
                   + "): linear+addmm+t per call + launch, less autograd_record; "
                   "backward: one mm")
            ops[fam] = {"host": host, "backward": back, "kernels": max(1, int(round(kern))),
                        "source": src, "cfg": None}
            continue
        # the forward call without its autograd recording (the share of its calls recorded)
        share = recorded_share(fam, key, f)
        host = f.per_call() * factor - share * record
        back = b.per_call() * factor if b is not None and b.per_call() is not None else None
        note = ""
        if share == 1:
            note = ", less autograd_record"
        elif share > 0:
            note = f", less {share:.2f} x autograd_record (the calls recorded)"
        if fam == "conv":
            back = back / 2 if back is not None else None
            note += "; backward: half a convolution_backward (data, weight grads)"
        elif fam == "softmax":
            note += "; the cross-entropy loss, whole backward"
        elif fam == "reduction":
            back = host
            note += "; backward: one sum (bias gradients)"
        elif fam == "rnn":
            kb = b.kernels / b.calls
            host = host / kern
            back = back / kb if back is not None else None
            note += f"; per cuDNN kernel ({kern:.0f} a call, {kb:.0f} a backward)"
            kern = 1.0
        rows = "+".join(f.rows[:4]) + ("..." if len(f.rows) > 4 else "")
        src = f"{name}: {rows} per call + launches{note}"
        ops[fam] = {"host": host, "backward": back, "kernels": max(1, int(round(kern))),
                    "source": src, "cfg": key}
    res["ops"] = ops

    # engine
    nodes = []
    for op in main.cpu:
        pre = "autograd::engine::evaluate_function: "
        if op.startswith(pre) and "AccumulateGrad" not in op:
            node = op[len(pre):]
            n = main.calls(op)
            nodes.append(((main.self_total(op) + main.self_total(node)) / n, node))
    nodes.sort()
    med = statistics.median(v for v, _ in nodes)
    med_node = min(nodes, key=lambda t: abs(t[0] - med))[1]
    res["nodes"] = nodes
    acc_ops = ("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
               "torch::autograd::AccumulateGrad", "aten::detach", "detach")
    nacc = main.calls(acc_ops[0])
    params = {k: cfg.calls(acc_ops[0]) / cfg.steps for k, cfg in cfgs.items()}
    res["params"] = params
    acc = sum(main.self_total(o) for o in acc_ops) / nacc
    zg = main.self_total("Optimizer.zero_grad#SGD.zero_grad") / main.steps / params[MAIN]
    # autocast's cast (aten::to -> _to_copy -> empty_strided + copy_ and one conversion kernel)
    # without autograd, from the rows of a config that has a copy_ (no cast was profiled)
    seq = cfgs.get(SEQ)
    cast = None
    if seq is not None and seq.calls("aten::copy_") > 0:
        parts_us = [seq.mean(op) for op in CAST_ROWS] + [seq.mean("cudaLaunchKernel")
                                                         + seq.per_launch_overhead()]
        cast = (sum(parts_us) * factor,
                f"{SEQ[0]} b{SEQ[1]}: " + " + ".join(o.replace("aten::", "") for o in CAST_ROWS)
                + " self + one cudaLaunchKernel per call (the conversion kernel; _to_copy has no "
                "row: no cast was profiled)")
    res["engine"] = {
        "autograd_record": res["record"],
        "backward_node": (med * factor,
                          f"resnet50 b1: evaluate_function: X + X self per call, median of "
                          f"{len(nodes)} node types ({med_node})"),
        "accumulate_grad": (acc * factor,
                            "resnet50 b1: evaluate_function: AccumulateGrad + AccumulateGrad + "
                            "aten::detach + detach per call"),
        "zero_grad_per_param": (zg * factor,
                                f"resnet50 b1: Optimizer.zero_grad self per step / "
                                f"{params[MAIN]:.0f} parameter tensors (set_to_none)"),
    }
    if cast is not None:
        res["engine"]["autocast_cast"] = cast
    mc = read_module_call()
    res["engine"]["module_call"] = (mc["host_us"], mc["source"])

    # optimizer
    xs, ys, pts = [], [], []
    for k, cfg in cfgs.items():
        if cfg.calls("Optimizer.step#SGD.step") <= 0 or params[k] <= 0:
            continue
        host = cfg.self_total("Optimizer.step#SGD.step")
        kern = 0.0
        for op in ("aten::_foreach_mul_", "aten::_foreach_add_"):
            n, kc = cfg.launches_of(op)
            host += cfg.self_total(op) + kc * cfg.calls(op)
            kern += n * cfg.calls(op)
        y = host / cfg.steps * factor
        xs.append(params[k])
        ys.append(y)
        pts.append((k, params[k], y, kern / cfg.steps))
    res["opt_pts"] = pts
    line = fit_line(xs, ys) if len(set(xs)) >= 2 else None
    if line:
        main_k = [p[3] for p in pts if p[0] == MAIN]
        res["optimizer"] = {"step": line[0], "per_param": line[1],
                            "kernels": int(round(main_k[0])) if main_k else None,
                            "n": len(xs)}

    # sync latency: host-bound configs (op-level host per step above the kernels' device time)
    syncs = []
    for k, cfg in cfgs.items():
        n = cfg.calls("cudaDeviceSynchronize")
        if n <= 0:
            continue
        host = sum(v[1] for op, v in cfg.cpu.items() if op not in NOT_HOST) / cfg.steps
        dev = sum(v[1] for v in cfg.kernels.values()) / cfg.steps
        per = cfg.self_total("cudaDeviceSynchronize") / n
        syncs.append((k, per, host, dev, host > dev))  # under the profiler, as measured
    res["syncs"] = syncs
    hb = sorted(s[1] for s in syncs if s[4])
    if hb:
        res["sync"] = (statistics.median(hb) * factor, len(hb))
    return res


def render(res, data_label):
    f = res["factor"]
    out = ["runtime:", "  name: pytorch-2.x-eager",
           f'  source: "fitted by calibrate/framework/fit_h200_runtime.py from {data_label} '
           f'kernels/micro.csv and networks/profile.csv (op-level rows; profiler slowdown '
           f'corrected by x{fmt(f)} from the tiny add_ timed both ways); no step time used but '
           f'engine.module_call\'s, chosen by leave-one-network-out"',
           f"  dispatch_per_op: {fmt(res['unprof'])} us"]
    if res["ops"]:
        out.append("  ops:")
        for fam in FAMILIES:
            o = res["ops"].get(fam)
            if not o:
                continue
            items = [f"host: {fmt(o['host'])} us"]
            if o["backward"] is not None:
                items.append(f"backward: {fmt(o['backward'])} us")
            items.append(f"kernels: {o['kernels']}")
            items.append(f'source: "{o["source"]}"')
            out.append(f"    {fam}: {{{', '.join(items)}}}")
    out.append("  engine:")
    for k in ENGINE_KEYS:
        if k not in res["engine"]:
            continue
        v, s = res["engine"][k]
        out.append(f'    {k}: {{host: {fmt(v)} us, source: "{s}"}}')
    o = res.get("optimizer")
    if o:
        pts = ", ".join(f"{k[0]} {p:.0f}" for k, p, _, _ in sorted(res["opt_pts"],
                                                                       key=lambda t: t[1]))
        src = (f"Optimizer.step + _foreach_mul_/add_ self + launches per step, least squares "
               f"vs tensors over {o['n']} configs ({pts}); kernels: resnet50")
        items = ["impl: foreach", f"step: {fmt(o['step'])} us",
                 f"per_param: {fmt(o['per_param'])} us"]
        if o["kernels"] is not None:
            items.append(f"kernels: {o['kernels']}")
        items.append(f'source: "{src}"')
        out.append(f"  optimizer: {{{', '.join(items)}}}")
    if res.get("sync"):
        out.append(f"  sync_latency: {fmt(res['sync'][0])} us")
    out += ["  sync: end_of_step", "  calibrated: true"]
    return "\n".join(out) + "\n"


def read_validation(data):
    """steps.csv and profile_steps.csv, read for --explain's sanity comparison only."""
    steps = read_csv(os.path.join(data, "networks", "steps.csv"), STEPS_COLS,
                     ["batch", "median_us", "min_us", "params"])
    psteps = read_csv(os.path.join(data, "networks", "profile_steps.csv"), PSTEPS_COLS,
                      ["batch", "wall_us_per_step", "device_busy_us_per_step"])
    return steps, psteps


def explain(res, validation):
    f = res["factor"]
    e = lambda *a: print(*a, file=sys.stderr)
    main = res["cfgs"][MAIN]
    e(f"# profiler slowdown: unprofiled tiny add_ {res['unprof']:.3f} us/call (micro "
      f"1000_tiny_launches_wall) / profiled {res['anchor']:.3f} us (resnet50 b1 aten::add_ "
      f"{main.mean('aten::add_'):.3f} + cudaLaunchKernel {main.mean('cudaLaunchKernel'):.3f})"
      f" = x{f:.4f}")
    if res["graph"] is not None:
        e(f"# 1000_tiny_launches_graph: {res['graph']:.3f} us per kernel in a replayed CUDA "
          "graph (device-side, not a host cost: graph_replay omitted)")
    e("")
    e("# families: per call, profiled (unfactored) and corrected; aten = subtree self rows,")
    e("# rt = launches, memsets, cuDNN-side rows")
    e(f"{'family':<14}{'dir':<4}{'config':<13}{'calls':>7}{'aten':>9}{'rt':>9}{'prof':>9}"
      f"{'corr':>9}{'kern':>8}  rows")
    for fam in FAMILIES:
        for key, P in res["parts"].items():
            for d in ("fwd", "bwd"):
                p = P.get((fam, d))
                if p is None or p.calls <= 0:
                    continue
                used = res["ops"].get(fam, {}).get("cfg", "-")
                mark = "*" if used in (key, None) else " "
                mark = "~" if p.assumed else mark
                pc = p.per_call()
                e(f"{fam:<14}{d:<4}{mark}{key[0] + ' b' + str(key[1]):<12}"
                  f"{p.calls / p.cfg.steps:>7.1f}{p.aten / p.calls:>9.1f}"
                  f"{p.runtime / p.calls:>9.1f}{pc:>9.1f}{pc * f:>9.2f}"
                  f"{p.kernels / p.calls:>8.2f}  {'+'.join(p.rows)}")
    e("# (* = a config the value comes from (gemm: median of all); ~ = launches assumed 1 per")
    e("# call, kernels not separable from cuDNN's; calls per step; conv bwd per call = both")
    e("# gradients, halved in the output; rnn per call, divided by kernels in the output)")
    e("")
    e("# device-time check of the kernel-name mapping (op row self_device vs mapped kernels)")
    for key, cfg in res["cfgs"].items():
        bad, good = [], 0
        for dest, (dev, mapped) in cfg.device_checks().items():
            name = "+".join(d.replace("aten::", "") for d in
                            (dest if isinstance(dest, tuple) else (dest,)))
            if abs(dev - mapped) > 0.01 * dev + 0.5:
                bad.append(f"{name} {dev:.0f}/{mapped:.0f}")
            else:
                good += 1
        e(f"  {key[0]} b{key[1]}: {good} launchers match" + (
            "; mismatch (row/mapped us): " + "; ".join(bad) if bad else ""))
    e("# (memsets count with the cuDNN backward op; a mismatch in a conv config is cuDNN")
    e("# running cuBLAS/cutlass kernels the names cannot tell from addmm/mm's)")
    e("")
    e("# unclaimed op-level host rows per step (profiled us; not in any family or engine)")
    engine_like = ("autograd::", "torch::autograd", "Optimizer.", "detach", "aten::detach",
                   "aten::_foreach")
    for key, cfg in res["cfgs"].items():
        left = []
        for op, (n, cpu, _) in cfg.cpu.items():
            if op in LAUNCH_APIS or op in PER_LAUNCH_ROWS or op in NOT_HOST:
                continue
            if op.startswith(engine_like) or op.endswith(("Backward0", "Backward1")):
                continue
            un = n - cfg.claimed.get(op, 0.0)
            if un > 1e-6:
                left.append((un / n * cpu / cfg.steps, f"{op.replace('aten::', '')} "
                                                       f"{un / cfg.steps:.1f}/step"))
        left.sort(reverse=True)
        tot = sum(v for v, _ in left)
        e(f"  {key[0]} b{key[1]}: {tot:.0f} us/step: " + ", ".join(s for _, s in left[:8]))
    e("")
    e("# engine (resnet50 b1), node types: profiled us per node (evaluate_function + node)")
    e("  " + ", ".join(f"{n} {v:.1f}" for v, n in res["nodes"]))
    for k, (v, s) in res["engine"].items():
        e(f"  {k}: {v / f:.3f} profiled -> {v:.3f} us")
    e("# optimizer points (config, tensors, corrected step host us, foreach kernels/step)")
    for k, p, y, kern in res["opt_pts"]:
        e(f"  {k[0]} b{k[1]}: {p:.0f} tensors, {y:.1f} us, {kern:.0f} kernels")
    o = res.get("optimizer")
    if o:
        e(f"  line: step {o['step']:.1f} us + {o['per_param']:.3f} us x tensors")
    zs = []
    for k, cfg in res["cfgs"].items():
        zg = cfg.self_total("Optimizer.zero_grad#SGD.zero_grad") / cfg.steps / res["params"][k]
        zs.append(f"{k[0]} b{k[1]} {zg * f:.2f}")
    e("  zero_grad per tensor, corrected, by config: " + ", ".join(zs))
    e("# sync (cudaDeviceSynchronize per call, profiled; host/device op-level us per step)")
    for k, per, host, dev, hb in res["syncs"]:
        e(f"  {k[0]} b{k[1]}: {per:.1f} us; host {host:.0f} vs device {dev:.0f}: "
          f"{'host-bound' if hb else 'device-bound'} under the profiler")
    e("")
    # sanity: steps (validation data only)
    e("# SANITY ONLY (validation data, never fitted): training step wall times")
    steps, psteps = validation
    st = {(r["model"], int(r["batch"])): r["median_us"] for r in steps
          if r["mode"] == "train" and r["precision"] == "fp32"}
    ps = {(r["model"], int(r["batch"])): r["wall_us_per_step"] for r in psteps}
    e(f"{'config':<14}{'self/step':>10}{'x factor':>10}{'steps.csv':>11}{'ratio':>7}"
      f"{'prof wall':>11}{'unprof/prof':>12}{'model host':>11}{'/steps':>7}")
    for key, cfg in res["cfgs"].items():
        host = sum(v[1] for op, v in cfg.cpu.items() if op not in NOT_HOST) / cfg.steps
        model = synth(res, key)
        sv = st.get(key)
        pv = ps.get(key)
        e(f"{key[0] + ' b' + str(key[1]):<14}{host:>10.0f}{host * f:>10.0f}"
          f"{sv if sv else float('nan'):>11.0f}{(host * f / sv) if sv else float('nan'):>7.2f}"
          f"{pv if pv else float('nan'):>11.0f}"
          f"{(sv / pv) if sv and pv else float('nan'):>12.3f}{model:>11.0f}"
          f"{(model / sv) if sv else float('nan'):>7.2f}")
    e("# self/step: every op-level host row but the profiler's buffer and the sync; model host:")
    e("# the fitted parameters times this config's profiled call counts (families at their")
    e("# fitted value, nodes, AccumulateGrad, zero_grad, optimizer; unclaimed rows left out);")
    e("# the host-bound configs (resnet50 b1, deepq) should sit near steps.csv; unprof/prof is")
    e("# steps.csv over profile_steps.csv, the whole-step slowdown, to compare with the factor")
    e("# (only when the step is host-bound).")
    ks = res["cfgs"][MAIN].total_launches() / res["cfgs"][MAIN].steps
    e(f"# flat dispatch_per_op x resnet50 b1 launches/step: {res['unprof']:.2f} x {ks:.0f} = "
      f"{res['unprof'] * ks:.0f} us")


def synth(res, key):
    """Host per step from the fitted values and the config's profiled call counts."""
    cfg = res["cfgs"][key]
    P = res["parts"][key]
    tot = 0.0
    for (fam, d), p in P.items():
        o = res["ops"].get(fam)
        if o is None or p.calls <= 0:
            continue
        n = p.calls / cfg.steps
        if fam == "rnn":
            n *= p.kernels / p.calls
        if d == "fwd":
            tot += n * o["host"]
        elif o["backward"] is not None:
            tot += n * o["backward"] * (2 if fam == "conv" else 1)
    nodes = sum(cfg.calls(op) for op in cfg.cpu
                if op.startswith("autograd::engine::evaluate_function: ")
                and "AccumulateGrad" not in op) / cfg.steps
    tot += nodes * res["engine"]["backward_node"][0]
    # the forward calls recorded (a training profile): the families' host values exclude it
    tot += sum(p.calls / cfg.steps * recorded_share(fam, key, p)
               for (fam, d), p in P.items() if d == "fwd") * res["record"][0]
    params = res["params"][key]
    tot += params * (res["engine"]["accumulate_grad"][0] + res["engine"]["zero_grad_per_param"][0])
    o = res.get("optimizer")
    if o:
        tot += o["step"] + o["per_param"] * params
    return tot
