"""A generated adversarial pass over every command and input kind (docs/reliability.md).

Where tests/hostile/cases_*.py hold one regression case per defect found, this pass crosses
the channels a user's input reaches amdahl by (names and numbers in device, system and network
YAML, ONNX models, CSV files, command-line options, output paths, YAML structure) with the
commands that read them and a list of hostile payloads, and holds every run to the rules that
apply to all of them, whatever the command:

  - the exit status is 0 or 2 (never a signal, 1 or 70, an internal error),
  - at most 10 s and 2 GB (the driver's limits),
  - no raw control byte other than newline and tab in the output,
  - no payload's command ran (a file `{dir}/PWNED` appears when one does),
  - no byte of a file outside the case's folder is quoted back (SECRET_TOKEN),
  - no file the user gave is changed (the case's inputs, checked byte for byte).

Usage (/usr/bin/python3): adversarial_pass.py AMDAHL SCRATCH SOURCE SHARED [--sanitized] [-k SUBSTRING] [--list]
Prints one line per failing case and a summary by channel and payload; exit 1 on a failure.
"""

import argparse
import collections
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import hostile  # noqa: E402
from hostile import Case, Fifo, Symlink  # noqa: E402

ANY = (0, 2)
SECRET = "SECRET_TOKEN_5b9c"

# Strings that must stay data in every sink: a command in each syntax a generated script or
# shell could run, terminal escapes, markup, separators, format directives, size.
NAME_PAYLOADS = {
    "plain": "plain name",
    "backtick": "a`touch {dir}/PWNED`b",
    "dollar": "a$(touch {dir}/PWNED)b",
    "newline-system": 'a\nsystem("touch {dir}/PWNED")\nb',
    "quote-system": 'a"; system("touch {dir}/PWNED"); "b',
    "squote-system": "a'; system('touch {dir}/PWNED'); 'b",
    "gnuplot-macro": "@PWNED a",
    "escape": "\x1b[2J\x1b[Hcleared",
    "bell-cr": "a\x07\rb\x08",
    "html": "<script>alert(1)</script>&amp;",
    "csv": 'a,b"c;d',
    "dot": 'a"]; x [label="b',
    "markdown": "a | b\n| c",
    "format": "{} {0} %s %n %x",
    "long": "A" * 5000,
    "unicode": "\u00e9\u4e2d\u202e\u200b",
    "empty": "",
}

# Numbers a YAML quantity may hold.
NUMBER_PAYLOADS = {
    "zero": "0", "negative": "-1", "nan": ".nan", "inf": ".inf", "tiny": "1e-300",
    "huge": "1e308", "subnormal": "1e-320", "int-overflow": "99999999999999999999999",
    "text": "fast", "list": "[1, 2]", "map": "{a: 1}", "null": "~",
}

# Numbers on the command line.
CLI_NUMBERS = ["0", "-1", "nan", "inf", "1e-300", "1e300", "99999999999999999999", "1.5", "x",
               "", "0x10", " 4"]


def yaml_scalar(text):
    """`text` as a YAML double-quoted scalar (control bytes as \\xNN escapes)."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 32 or ord(c) == 127:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def read(source, rel):
    return (Path(source) / rel).read_text()


def device_yaml(source, name='"Hostile GPU"', patch=None):
    text = read(source, "tests/fixtures/hw/valid_device.yaml").replace('name: Test GPU',
                                                                        f"name: {name}")
    if patch:
        text = patch(text)
    return text


def system_yaml(name="hostile", device_file="dev.yaml", extra=""):
    """The Minsky with `device_file` as its first GPU (catalog files by absolute path)."""
    text = (Path(__file__).resolve().parents[2] / "hw/catalog/systems/minsky.yaml").read_text()
    text = text.replace("name: minsky\n", f"name: {name}\n", 1)
    text = text.replace("include: ../", "include: CATALOG/")
    text = text.replace("{name: gpu0, include: CATALOG/devices/p100-sxm2.yaml}",
                        "{name: gpu0, include: " + device_file + "}")
    return text + extra


def network_yaml(name='"hostile"', layer='"fc1"', size="hidden", extra_layer=""):
    return (f"name: {name}\n"
            "description: a two-layer perceptron\n"
            "source: adversarial pass\n"
            "sizes:\n"
            "  batch: {default: 8, description: samples}\n"
            f"  {size}: {{default: 32, description: hidden width}}\n"
            "inputs:\n"
            "  - {name: x, shape: [batch, 64], dtype: fp32}\n"
            "  - {name: labels, shape: [batch], dtype: int64}\n"
            "optimizer: momentum\n"
            "layers:\n"
            f"  - {{name: {layer}, kind: linear, out_features: {size}}}\n"
            "  - {name: act, kind: relu}\n"
            "  - {name: fc2, kind: linear, out_features: 10}\n" + extra_layer +
            "  - {name: loss, kind: softmax_cross_entropy, inputs: [fc2, labels]}\n")


def with_catalog(source, text):
    return text.replace("CATALOG", str(Path(source) / "hw" / "catalog"))


def secret_files():
    """A secret beside the case's folder and links to it from inside."""
    return {"../secret-outside.txt": SECRET + "\n", "secret-link.csv": Symlink("../secret-outside.txt")}


def no_secret(folder, result):
    if SECRET in result.out or SECRET in result.err:
        return "a file outside the case's folder was quoted back"
    return None


def name_cases(source):
    """Every name channel through every command that shows or writes it."""
    cases = []
    sinks = [
        ("predict", ["predict", "--system", "{dir}/sys.yaml", "--model", "alexnet"]),
        ("predict-csv", ["predict", "--system", "{dir}/sys.yaml", "--model", "alexnet",
                         "--format", "csv"]),
        ("predict-json-o", ["predict", "--system", "{dir}/sys.yaml", "--model", "alexnet",
                            "--format", "json", "-o", "{dir}/out"]),
        ("breakdown", ["breakdown", "--system", "{dir}/sys.yaml", "--model", "alexnet"]),
        ("sweep-plot", ["sweep", "--system", "{dir}/sys.yaml", "--model", "alexnet",
                        "--vary", "batch=1,8", "--plot", "{dir}/sweep.svg"]),
        ("whatif", ["whatif", "--system", "{dir}/sys.yaml", "--model", "alexnet", "--device",
                    "{dir}/dev.yaml"]),
        ("explore-o", ["explore", "--models", "alexnet", "--system", "{dir}/sys.yaml",
                       "--vary", "gpu0.memory.bandwidth=500GB/s,1TB/s", "--threads", "1",
                       "-o", "{dir}/explore"]),
        ("report", ["report", "--models", "alexnet", "--system", "{dir}/sys.yaml",
                    "-o", "{dir}/report"]),
    ]
    for pname, payload in NAME_PAYLOADS.items():
        for where in ("device", "system"):
            dev_name = yaml_scalar(payload) if where == "device" else '"Hostile GPU"'
            sys_name = yaml_scalar(payload) if where == "system" else "hostile"
            files = {"dev.yaml": device_yaml(source, dev_name),
                     "sys.yaml": with_catalog(source, system_yaml(sys_name))}
            for sname, args in sinks:
                cases.append((f"name/{where}", pname, Case(
                    name=f"name-{where}-{pname}-{sname}", args=args,
                    exit=0 if pname == "plain" else ANY, files=files,
                    absent=["PWNED"], unchanged=list(files))))
        net_sinks = [
            ("predict", ["predict", "--graph", "{dir}/net.yaml"]),
            ("breakdown-csv", ["breakdown", "--graph", "{dir}/net.yaml", "--format", "csv"]),
            ("graph-dot", ["graph", "--graph", "{dir}/net.yaml", "--format", "dot"]),
            ("graph", ["graph", "--graph", "{dir}/net.yaml"]),
            ("sweep-plot", ["sweep", "--graph", "{dir}/net.yaml", "--vary", "batch=1,8",
                            "--plot", "{dir}/s.svg"]),
            ("report", ["report", "--models", "{dir}/net.yaml", "--system", "minsky",
                        "-o", "{dir}/report"]),
            ("explore-o", ["explore", "--models", "{dir}/net.yaml", "--system", "minsky",
                           "--vary", "gpu0.memory.bandwidth=500GB/s,1TB/s", "--threads", "1",
                           "-o", "{dir}/explore"]),
        ]
        for where, text in (("network", network_yaml(name=yaml_scalar(payload))),
                            ("layer", network_yaml(layer=yaml_scalar(payload)))):
            files = {"net.yaml": text}
            for sname, args in net_sinks:
                cases.append((f"name/{where}", pname, Case(
                    name=f"name-{where}-{pname}-{sname}", args=args,
                    exit=0 if pname == "plain" else ANY, files=files,
                    absent=["PWNED"], unchanged=["net.yaml"])))
    return cases


def number_cases(source):
    """Numbers in device, link and system files, through predict."""
    cases = []
    keys = {
        "memory.bandwidth": lambda t, v: t.replace("bandwidth: 732 GB/s", f"bandwidth: {v}"),
        "memory.capacity": lambda t, v: t.replace("capacity: 16 GiB", f"capacity: {v}"),
        "peak.rate": lambda t, v: t.replace("rate: 10 TFLOP/s", f"rate: {v}"),
        "parallel_units": lambda t, v: t.replace("parallel_units: 8", f"parallel_units: {v}"),
        "launch_latency": lambda t, v: t.replace("launch_latency: 5 us", f"launch_latency: {v}"),
        "efficiency": lambda t, v: t.replace("compute: 0.8", f"compute: {v}"),
    }
    for key, patch in keys.items():
        for pname, value in NUMBER_PAYLOADS.items():
            files = {"dev.yaml": device_yaml(source, patch=lambda t: patch(t, value)),
                     "sys.yaml": with_catalog(source, system_yaml())}
            cases.append(("number/device", pname, Case(
                name=f"number-{key}-{pname}", exit=ANY, files=files,
                args=["predict", "--system", "{dir}/sys.yaml", "--model", "resnet18"],
                check=finite_output)))
    for pname, value in NUMBER_PAYLOADS.items():
        for size_key in ("default",):
            text = network_yaml().replace("{default: 32,", f"{{{size_key}: {value},")
            cases.append(("number/network", pname, Case(
                name=f"number-network-size-{pname}", exit=ANY, files={"net.yaml": text},
                args=["predict", "--graph", "{dir}/net.yaml"], check=finite_output)))
    return cases


def finite_output(folder, result):
    for bad in ("nan", "inf ", "e+2", "e+3"):
        if result.rc == 0 and bad in result.out.lower():
            return f"printed '{bad.strip()}' with exit 0"
    return None


def cli_number_cases():
    cases = []
    options = [
        ("predict", "--batch", ["predict", "--model", "alexnet", "--batch", "V"]),
        ("predict", "--gpus", ["predict", "--model", "resnet50", "--system", "dgx1-p100",
                               "--gpus", "V"]),
        ("predict", "--accumulate", ["predict", "--model", "alexnet", "--accumulate", "V"]),
        ("predict", "--set", ["predict", "--model", "seq2seq", "--set", "enc_len=V"]),
        ("whatif", "--speedup", ["whatif", "--model", "alexnet", "--speedup", "conv=V"]),
        ("sweep", "--vary", ["sweep", "--model", "alexnet", "--vary", "batch=1..V"]),
        ("sweep", "--threads", ["sweep", "--model", "alexnet", "--vary", "batch=1,2",
                                "--threads", "V"]),
        ("explore", "--threads", ["explore", "--models", "alexnet", "--system", "minsky",
                                  "--vary", "gpu0.memory.bandwidth=1TB/s", "--threads", "V",
                                  "-o", "{dir}/e"]),
        ("explore", "--knee", ["explore", "--models", "alexnet", "--system", "minsky",
                               "--vary", "gpu0.memory.bandwidth=1TB/s", "--knee", "V"]),
        ("explore", "--vary", ["explore", "--models", "alexnet", "--system", "minsky",
                               "--vary", "gpu0.memory.bandwidth=VTB/s"]),
        ("report", "--threads", ["report", "--models", "alexnet", "--system", "minsky",
                                 "--threads", "V", "-o", "{dir}/r"]),
    ]
    for command, option, args in options:
        for v in CLI_NUMBERS:
            cases.append((f"cli/{command}", option, Case(
                name=f"cli-{command}-{option.strip('-')}-{v.strip() or 'empty'}", exit=ANY,
                args=[a.replace("V", v) for a in args], absent=["e/explore.checkpoint"],
                check=finite_output)))
    for command in ("predict", "explore", "validate", "sweep", "whatif", "breakdown"):
        for p in ("int8", "fp8", "FP32", "fp64", "", "fp16\n"):
            args = {"predict": ["predict", "--model", "alexnet"],
                    "breakdown": ["breakdown", "--model", "alexnet"],
                    "whatif": ["whatif", "--model", "alexnet", "--speedup", "conv=2"],
                    "sweep": ["sweep", "--model", "alexnet", "--vary", "batch=1,2"],
                    "explore": ["explore", "--models", "alexnet", "--system", "minsky",
                                "--vary", "gpu0.memory.bandwidth=1TB/s"],
                    "validate": ["validate", "--measured", "{shared}/data/h200/networks/steps.csv",
                                 "--system", "h200"]}[command]
            cases.append((f"cli/{command}", "--precision", Case(
                name=f"cli-{command}-precision-{p.strip() or 'empty'}", exit=2,
                args=args + ["--precision", p])))
    return cases


def yaml_structure_cases(source):
    cases = []
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}]\n" for i in range(9))
    structures = {
        "self-alias": "description: &d [*d]\n",
        "self-alias-map": "x: &m {k: *m}\n",
        "bomb": bomb,
        "bomb-unknown-key": "unknown_key:\n  " + bomb.replace("\n", "\n  "),
        "deep-list": "x: " + "[" * 20000 + "]" * 20000 + "\n",
        "deep-map": "x: " + "{a: " * 20000 + "1" + "}" * 20000 + "\n",
        "duplicate": "name: a\nname: b\n",
        "complex-key": "? [a, b]\n: c\n",
        "tag": "name: !!python/object:os.system 'touch PWNED'\n",
        "binary": "name: !!binary aGVsbG8=\n",
        "two-docs": "name: a\n---\nname: b\n",
        "tab": "name:\tx\n\tbad: 1\n",
        "bom": "\ufeffname: x\n",
        "nul": "name: \"a\\0b\"\n",
        "garbage": "\x00\x01\x02\xff",
        "empty": "",
        "only-comment": "# nothing\n",
        "scalar-root": "just a string\n",
        "list-root": "- a\n- b\n",
        "long-line": "name: " + "x" * 200000 + "\n",
        "many-keys": "".join(f"k{i}: {i}\n" for i in range(20000)),
    }
    readers = {
        "network": (["predict", "--graph", "{dir}/f.yaml"], lambda s: s),
        "system": (["predict", "--model", "alexnet", "--system", "{dir}/f.yaml"], lambda s: s),
        "device": (["whatif", "--model", "alexnet", "--device", "{dir}/f.yaml"], lambda s: s),
        "network-appended": (["predict", "--graph", "{dir}/f.yaml"],
                             lambda s: network_yaml() + s),
        "system-appended": (["predict", "--model", "alexnet", "--system", "{dir}/f.yaml"],
                            lambda s: with_catalog(source, system_yaml("hostile",
                                                   "CATALOG/devices/p100-sxm2.yaml")) + s),
    }
    for rname, (args, wrap) in readers.items():
        for sname, text in structures.items():
            # Nothing appended to a valid file leaves it valid.
            benign = rname.endswith("appended") and sname in ("empty", "only-comment")
            cases.append((f"yaml/{rname}", sname, Case(
                name=f"yaml-{rname}-{sname}", args=args, exit=0 if benign else 2,
                files={"f.yaml": wrap(text)},
                absent=["PWNED"], unchanged=["f.yaml"])))
    return cases


def path_cases(source):
    """Files that input files name, and files amdahl is asked to write."""
    cases = []
    targets = {
        "absolute": "/etc/passwd",
        "dotdot": "../../../../../../etc/passwd",
        "outside-secret": "../secret-outside.txt",
        "symlink-out": "secret-link.csv",
        "proc": "/proc/self/environ",
        "dev-zero": "/dev/zero",
        "fifo": "pipe.csv",
        "dir": ".",
        "missing": "no-such.csv",
        "empty-name": "",
    }
    for tname, target in targets.items():
        files = dict(secret_files())
        files["pipe.csv"] = Fifo()
        files["dev.yaml"] = device_yaml(source)
        # a system file's include, efficiency_from and measured_runs
        for key, text in (
                ("include", with_catalog(source, system_yaml(device_file=yaml_scalar(target)))),
                ("measured_runs", with_catalog(source, system_yaml(
                    extra=f"measured_runs: {yaml_scalar(target)}\n"))),
                ("efficiency_from", None)):
            if text is None:
                text = device_yaml(source, patch=lambda t: t.replace(
                    "efficiency:\n", f"efficiency_from: {yaml_scalar(target)}\nefficiency:\n"))
                f = dict(files)
                f["dev.yaml"] = text
                f["sys.yaml"] = with_catalog(source, system_yaml())
            else:
                f = dict(files)
                f["sys.yaml"] = text
            for command, args in (("predict", ["predict", "--model", "alexnet",
                                               "--system", "{dir}/sys.yaml"]),
                                  ("report", ["report", "--models", "alexnet",
                                              "--system", "{dir}/sys.yaml", "-o", "{dir}/r"]),
                                  ("validate", ["validate", "--system", "{dir}/sys.yaml"])):
                cases.append((f"path/{key}", tname, Case(
                    name=f"path-{key}-{tname}-{command}", args=args, exit=ANY, files=f,
                    check=no_secret, unchanged=["../secret-outside.txt"])))
    # Outputs: each writer against an existing file, a FIFO, a symlink to a file outside, a
    # directory, and an input of the same run.
    writers = {
        "calibrate-out": ["calibrate", "measurements", "{source}/tests/fixtures/calibrate/"
                          "cudabench-link.csv", "--base", "{source}/hw/catalog/devices/"
                          "p100-sxm2.yaml", "--out", "T"],
        "calibrate-residuals": ["calibrate", "check", "{source}/tests/fixtures/hw/valid_device"
                                ".yaml", "measurements", "{source}/tests/fixtures/calibrate/"
                                "cudabench-link.csv", "--residuals", "T"],
        "sweep-plot": ["sweep", "--model", "alexnet", "--vary", "batch=1,2", "--plot", "T"],
        "predict-o": ["predict", "--model", "alexnet", "-o", "T"],
        "explore-o": ["explore", "--models", "alexnet", "--system", "minsky", "--vary",
                      "gpu0.memory.bandwidth=1TB/s", "-o", "T"],
        "report-o": ["report", "--models", "alexnet", "--system", "minsky", "-o", "T"],
        "validate-plot": ["validate", "--measured", "{shared}/data/h200/networks/steps.csv",
                          "--system", "h200", "--plot", "T"],
    }
    outs = {
        "existing": ("keep.svg", {"keep.svg": "precious\n"}),
        "fifo": ("pipe.svg", {"pipe.svg": Fifo()}),
        "symlink": ("link.svg", {"link.svg": Symlink("../secret-outside.txt")}),
        "dir": ("d.svg", {"d.svg/x": "x\n"}),
    }
    for wname, args in writers.items():
        for oname, (target, ofiles) in outs.items():
            files = dict(secret_files())
            files.update(ofiles)
            keep = [k for k, v in ofiles.items() if isinstance(v, str)]
            cases.append((f"write/{wname}", oname, Case(
                name=f"write-{wname}-{oname}", exit=2, files=files,
                args=[a.replace("T", "{dir}/" + target) if a == "T" else a for a in args],
                unchanged=keep + ["../secret-outside.txt"])))
    return cases


def csv_cases(source):
    """Measured numbers in the CSVs validate and calibrate read."""
    cases = []
    header = "model,batch,precision,mode,median_us,min_us,params\n"
    values = {"tiny": "1e-300", "huge": "1e308", "nan": "nan", "inf": "inf", "neg": "-1",
              "zero": "0", "subnormal": "1e-320", "text": "fast", "empty": "",
              "long": "1" * 400}
    for vname, v in values.items():
        for col in ("median_us", "batch"):
            row = {"model": "resnet50", "batch": "16", "precision": "fp32", "mode": "train",
                   "median_us": "22337.3", "min_us": "22227.8", "params": "25557032"}
            row[col] = v
            text = header + ",".join(row[k] for k in header.strip().split(",")) + "\n"
            cases.append(("csv/measured-runs", vname, Case(
                name=f"csv-measured-{col}-{vname}", exit=ANY, files={"m.csv": text},
                args=["validate", "--measured", "{dir}/m.csv", "--system", "h200"],
                check=finite_output, unchanged=["m.csv"])))
    return cases


def onnx_model(graph_name="g", node_name="mm", input_name="x", dims=("batch", 64),
               external=None):
    """A MatMul-Relu model as bytes; `external`: the location its weight's data is at."""
    import numpy as np
    import onnx
    from onnx import TensorProto as T
    from onnx import helper as h
    from onnx import numpy_helper as nh
    weight = nh.from_array(np.zeros((64, 16), np.float32), "w")
    if external is not None:
        weight.ClearField("raw_data")
        weight.data_location = T.EXTERNAL
        for k, v in (("location", external), ("offset", "0"), ("length", str(64 * 16 * 4))):
            entry = weight.external_data.add()
            entry.key, entry.value = k, v
    graph = h.make_graph(
        [h.make_node("MatMul", [input_name, "w"], ["a"], name=node_name),
         h.make_node("Relu", ["a"], ["y"], name="relu")],
        graph_name, [h.make_tensor_value_info(input_name, T.FLOAT, list(dims))],
        [h.make_tensor_value_info("y", T.FLOAT, ["batch", 16])], initializer=[weight])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    return model.SerializeToString()


def onnx_cases():
    """Names, dims and external data of an ONNX model, through the commands that read one."""
    cases = []
    commands = {
        "predict": ["predict", "--onnx", "{dir}/m.onnx", "--batch", "4"],
        "graph-dot": ["graph", "--onnx", "{dir}/m.onnx", "--batch", "4", "--format", "dot"],
        "sweep-plot": ["sweep", "--onnx", "{dir}/m.onnx", "--batch", "4", "--vary",
                       "batch=1,4", "--plot", "{dir}/s.svg"],
    }
    for pname, payload in NAME_PAYLOADS.items():
        for where in ("graph", "node", "input"):
            kw = {"graph": "graph_name", "node": "node_name", "input": "input_name"}[where]
            model = onnx_model(**{kw: payload or "_"})
            for cname, args in commands.items():
                cases.append((f"onnx/{where}-name", pname, Case(
                    name=f"onnx-{where}-name-{pname}-{cname}", args=args,
                    exit=0 if pname == "plain" else ANY,
                    files={"m.onnx": model}, absent=["PWNED"], unchanged=["m.onnx"])))
    for dname, dims in {"zero": (0, 64), "zero-feature": ("batch", 0), "negative": (-1, 64),
                        "huge": (2**62, 64), "huge-feature": ("batch", 2**40),
                        "empty-symbol": ("", 64)}.items():
        for cname in ("predict", "graph-dot"):
            cases.append(("onnx/dims", dname, Case(
                name=f"onnx-dims-{dname}-{cname}",
                args=[a for a in commands[cname] if a not in ("--batch", "4")], exit=2,
                files={"m.onnx": onnx_model(dims=dims)})))
    for tname, location in {"absolute": "/etc/passwd", "dotdot": "../secret-outside.txt",
                            "symlink": "secret-link.csv", "symlink-dir": "d/secret-outside.txt",
                            "proc": "/proc/self/environ", "fifo": "pipe.bin",
                            "missing": "nothing.bin", "self": "m.onnx"}.items():
        files = dict(secret_files())
        files["pipe.bin"] = Fifo()
        files["d"] = Symlink("..")
        files["m.onnx"] = onnx_model(external=location)
        cases.append(("onnx/external", tname, Case(
            name=f"onnx-external-{tname}", args=commands["predict"], exit=2, files=files,
            check=no_secret)))
    return cases


def control_cases(source):
    """Each template without a payload: must run (exit 0), else the pass tests nothing."""
    files = {"dev.yaml": device_yaml(source), "sys.yaml": with_catalog(source, system_yaml()),
             "net.yaml": network_yaml(), "m.onnx": onnx_model()}
    runs = {
        "system": ["predict", "--model", "alexnet", "--system", "{dir}/sys.yaml"],
        "device": ["whatif", "--model", "alexnet", "--device", "{dir}/dev.yaml"],
        "network": ["predict", "--graph", "{dir}/net.yaml"],
        "onnx": ["predict", "--onnx", "{dir}/m.onnx", "--batch", "4"],
        "calibrate": ["calibrate", "measurements", "{source}/tests/fixtures/calibrate/"
                      "cudabench-link.csv", "--base", "{source}/hw/catalog/devices/"
                      "p100-sxm2.yaml", "--out", "{dir}/out.yaml"],
    }
    return [("control", name, Case(name=f"control-{name}", args=args, exit=0, files=files))
            for name, args in runs.items()]


def all_cases(source):
    return (control_cases(source) + name_cases(source) + number_cases(source) + cli_number_cases() +
            yaml_structure_cases(source) + path_cases(source) + csv_cases(source) +
            onnx_cases())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("amdahl")
    p.add_argument("scratch")
    p.add_argument("source")
    p.add_argument("shared")
    p.add_argument("--sanitized", action="store_true")
    p.add_argument("-k")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    source = Path(a.source).resolve()
    cases = all_cases(source)
    if a.k:
        cases = [c for c in cases if a.k in c[2].name]
    if a.list:
        for channel, payload, case in cases:
            print(channel, payload, case.name)
        print(len(cases), "cases")
        return
    scratch = Path(a.scratch).resolve() / "cases"
    scratch.mkdir(parents=True, exist_ok=True)
    tally = collections.Counter()
    failures = collections.defaultdict(list)
    for channel, payload, case in cases:
        problems, elapsed, out, err = hostile.run_case(a.amdahl, scratch, source,
                                                       Path(a.shared).resolve(), case,
                                                       a.sanitized)
        tally[(channel, "cases")] += 1
        if problems:
            failures[channel].append((case.name, problems, err[-300:]))
            print(f"FAIL {case.name} ({elapsed:.2f} s): {'; '.join(problems)}\n"
                  f"     {err.strip()[-300:]!r}", flush=True)
    print()
    print(f"{'channel':24} {'cases':>6} {'failed':>7}")
    for channel in sorted({c for c, _ in tally}):
        print(f"{channel:24} {tally[(channel, 'cases')]:6} {len(failures[channel]):7}")
    total = sum(v for (c, k), v in tally.items() if k == "cases")
    failed = sum(len(v) for v in failures.values())
    print(f"{total - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
