"""Hostile inputs of the paths area (docs/reliability.md): no file read outside the folders the
user named (symbolic links followed), no file quoted beyond a short excerpt, no file, pipe or
device replaced that the user did not mean to replace (util/path_policy.h), and an ONNX graph
input of no elements is an error, not "batch 0".

The ONNX models are encoded here by hand (a few protobuf fields), so the corpus needs no onnx
package."""

import os
import stat
from pathlib import Path

from hostile import Case, Fifo, Symlink

# --- a minimal protobuf encoder for the ONNX messages these cases need (onnx/onnx.proto) ---


def _varint(n):
    n &= (1 << 64) - 1  # negative int64 as two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _int(field, n):
    return _varint(field << 3) + _varint(n)


def _bytes(field, data):
    data = data.encode() if isinstance(data, str) else data
    return _varint(field << 3 | 2) + _varint(len(data)) + data


FLOAT, INT64 = 1, 7


def _value_info(name, dims, elem=FLOAT):
    shape = b"".join(_bytes(1, _bytes(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    tensor_type = _int(1, elem) + _bytes(2, shape)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))


def _node(op, inputs, outputs, name):
    return (b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs) +
            _bytes(3, name) + _bytes(4, op))


def _external_tensor(name, dims, elem, location):
    entry = _bytes(1, "location") + _bytes(2, location)
    return (b"".join(_int(1, d) for d in dims) + _int(2, elem) + _bytes(8, name) +
            _bytes(13, entry) + _int(14, 1))


def _model(nodes, inputs, outputs, initializers=()):
    graph = (b"".join(_bytes(1, n) for n in nodes) + _bytes(2, "g") +
             b"".join(_bytes(5, t) for t in initializers) +
             b"".join(_bytes(11, v) for v in inputs) + b"".join(_bytes(12, v) for v in outputs))
    return _int(1, 8) + _bytes(8, _bytes(1, "") + _int(2, 17)) + _bytes(7, graph)


def reshape_model(location):
    """x [1, 6] reshaped to the INT64 shape held in external data at `location`: the bytes read
    there become a tensor's shape (what once leaked a file into an error message)."""
    return _model([_node("Reshape", ["x", "shape"], ["y"], "r")], [_value_info("x", [1, 6])],
                  [_value_info("y", [2, 3])], [_external_tensor("shape", [2], INT64, location)])


def relu_model(dims):
    """y = relu(x), x of `dims` (ints, or strings for symbolic sizes)."""
    return _model([_node("Relu", ["x"], ["y"], "relu")], [_value_info("x", dims)],
                  [_value_info("y", dims)])


# --- the files of the cases ---

# A one-device system whose device is the catalog's (an absolute path into the catalog).
SYSTEM = """name: s
description: d
source: s
devices:
  - {{name: gpu0, include: {device}}}
runtime: {{name: rt, source: fixture, dispatch_per_op: 10 us, calibrated: false}}
default_device: gpu0
"""
CATALOG_DEVICE = "{source}/hw/catalog/devices/h200-sxm.yaml"


def system(device=CATALOG_DEVICE, measured_runs=None):
    text = SYSTEM.format(device=device)
    return text + (f"measured_runs: {measured_runs}\n" if measured_runs else "")


# A device of its own that takes its efficiency entries from `efficiency_from`.
def device(efficiency_from):
    return f"""name: Test GPU
kind: gpu
source: fixture
parallel_units: 8
peak:
  fp32: {{rate: 10 TFLOP/s}}
memory:
  capacity: 16 GiB
  bandwidth: 732 GB/s
launch_latency: 5 us
calibrated: false
efficiency_from: {efficiency_from}
"""


MEASUREMENTS = "{source}/calibrate/examples/cpu-example.csv"
BASE = "{source}/calibrate/examples/cpu-example.device.yaml"
_EXAMPLES = Path(__file__).resolve().parents[2] / "calibrate" / "examples"
BASE_TEXT = (_EXAMPLES / "cpu-example.device.yaml").read_text()
MEASUREMENTS_TEXT = (_EXAMPLES / "cpu-example.csv").read_text()
OLD = "old contents\n"
# A first line longer than an excerpt, as a non-CSV file might have.
SECRET_LINE = "secret," + ",".join(f"word{i}" for i in range(40))


def lacks(*texts):
    def check(folder, result):
        for t in texts:
            if t in result.out or t in result.err:
                return f"the output quotes {t!r}"
    return check


def still_fifo(rel):
    def check(folder, result):
        if not stat.S_ISFIFO(os.lstat(folder / rel).st_mode):
            return f"{rel} is no longer a named pipe"
    return check


def still_link(rel, target_rel, text):
    def check(folder, result):
        if not os.path.islink(folder / rel):
            return f"{rel} is no longer a symbolic link"
        if (folder / target_rel).read_text() != text:
            return f"{target_rel} was changed through {rel}"
    return check


CASES = [
    # --- ONNX external data: the folder rule after resolving links ---
    Case(name="onnx-external-symlink-passwd",
         args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": reshape_model("w.bin"), "w.bin": Symlink("/etc/passwd")},
         message="outside the folders amdahl reads from", check=lacks("root")),
    Case(name="onnx-external-symlink-environ",
         args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": reshape_model("env"), "env": Symlink("/proc/self/environ")},
         message="outside the folders amdahl reads from", check=lacks("PATH=", "HOME")),
    Case(name="onnx-external-symlinked-folder",
         args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": reshape_model("etc/passwd"), "etc": Symlink("/etc")},
         message="outside the folders amdahl reads from", check=lacks("root")),
    Case(name="onnx-external-symlink-chain",  # a link to a link that leaves the folder
         args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": reshape_model("a.bin"), "a.bin": Symlink("b.bin"),
                "b.bin": Symlink("/etc/passwd")},
         message="outside the folders amdahl reads from", check=lacks("root")),
    Case(name="onnx-external-dotdot",
         args=["predict", "--onnx", "sub/m.onnx"],
         files={"sub/m.onnx": reshape_model("../w.bin"), "w.bin": b"\0" * 16},
         message="without '..'"),
    Case(name="onnx-external-absolute",
         args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": reshape_model("/etc/passwd")},
         message="ONNX requires a location relative", check=lacks("root")),
    Case(name="onnx-external-fifo",  # never opened: a pipe would hang the read
         args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": reshape_model("w.bin"), "w.bin": Fifo()},
         message="not a regular file"),
    Case(name="onnx-external-allowed-link",  # --allow-path admits the folder a link leads to
         args=["predict", "--onnx", "m/m.onnx", "--allow-path", "{dir}/store"],
         files={"m/m.onnx": reshape_model("w.bin"), "m/w.bin": Symlink("{dir}/store/w.bin"),
                "store/w.bin": bytes([2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0])},
         exit=0, message="step time"),
    # The constant folded from the bytes inside the folder is fine; a short file is an error
    # that names offsets, not bytes.
    Case(name="onnx-external-short-file",
         args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": reshape_model("w.bin"), "w.bin": SECRET_LINE.encode()[:9]},
         message="reach past its end", check=lacks("secret")),

    # --- ONNX graph inputs of no elements ---
    Case(name="onnx-zero-dim", args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": relu_model([0, 4])},
         message="graph input 'x' dim 0 is 0; a size of an input is at least 1"),
    Case(name="onnx-zero-inner-dim", args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": relu_model([2, 0])},
         message="graph input 'x' dim 1 is 0"),
    Case(name="onnx-negative-dim", args=["predict", "--onnx", "m.onnx"],
         files={"m.onnx": relu_model([-3, 4])},
         message="graph input 'x' dim 0 is -3"),
    Case(name="onnx-symbolic-dim-set-zero",
         args=["predict", "--onnx", "m.onnx", "--batch", "2", "--set", "seq=0"],
         files={"m.onnx": relu_model(["batch", "seq"])},
         message="dim 1 is the symbolic size 'seq', bound to 0"),
    Case(name="onnx-symbolic-batch-set-zero",
         args=["predict", "--onnx", "m.onnx", "--set", "batch=0"],
         files={"m.onnx": relu_model(["N", 4])},
         message="bound to 0"),
    Case(name="onnx-symbolic-batch-zero-option", args=["predict", "--onnx", "m.onnx",
                                                       "--batch", "0"],
         files={"m.onnx": relu_model(["batch", 4])}, message="--batch"),
    Case(name="onnx-symbolic-batch-ok", args=["predict", "--onnx", "m.onnx", "--batch", "3"],
         files={"m.onnx": relu_model(["batch", 4])}, exit=0, message="step time"),

    # --- a system's measured_runs: the include rule ---
    Case(name="measured-runs-dotdot",
         args=["report", "--system", "s.yaml", "--models", "alexnet", "-o", "out"],
         files={"s.yaml": system(measured_runs="../../../../../../../../etc/passwd")},
         message=["s.yaml:8", "measured_runs", "outside the folders amdahl reads from"],
         absent=["out"], check=lacks("root:")),
    Case(name="measured-runs-absolute",
         args=["report", "--system", "s.yaml", "--models", "alexnet", "-o", "out"],
         files={"s.yaml": system(measured_runs="/etc/passwd")},
         message="outside the folders amdahl reads from", absent=["out"], check=lacks("root:")),
    Case(name="measured-runs-symlink",
         args=["report", "--system", "s.yaml", "--models", "alexnet", "-o", "out"],
         files={"s.yaml": system(measured_runs="runs.csv"), "runs.csv": Symlink("/etc/passwd")},
         message="outside the folders amdahl reads from", absent=["out"], check=lacks("root:")),
    # A CSV beside the system's folder, not in it: once silently pulled into the report.
    Case(name="measured-runs-outside-csv",
         args=["report", "--system", "sys/s.yaml", "--models", "alexnet", "-o", "out"],
         files={"sys/s.yaml": system(measured_runs="../runs.csv"),
                "runs.csv": "workload,batch,mode,precision,measured_s\nalexnet,1,train,fp32,1\n"},
         message="outside the folders amdahl reads from", absent=["out"]),
    Case(name="measured-runs-allowed",  # --allow-path admits it
         args=["validate", "--system", "sys/s.yaml", "--allow-path", "{dir}", "--measured",
               "runs.csv"],
         files={"sys/s.yaml": system(measured_runs="../runs.csv"),
                "runs.csv": "workload,batch,mode,precision,measured_s\nalexnet,1,train,fp32,1\n"},
         exit=0, message="alexnet"),
    Case(name="measured-runs-not-csv",  # inside the folder: only an excerpt of its first line
         args=["report", "--system", "s.yaml", "--models", "alexnet", "-o", "out"],
         files={"s.yaml": system(measured_runs="runs.csv"),
                "runs.csv": SECRET_LINE + "\nmore\n"},
         message="a measured-runs file names its networks", absent=["out"],
         check=lacks(SECRET_LINE, "word30")),
    Case(name="measured-csv-missing-column",  # --measured: the header is quoted as an excerpt
         args=["validate", "--system", "h200", "--measured", "runs.csv"],
         files={"runs.csv": "workload," + SECRET_LINE + "\nalexnet\n"},
         message="missing column", check=lacks("word30")),

    # --- includes through links ---
    Case(name="include-symlink-passwd",
         args=["predict", "--model", "alexnet", "--system", "s.yaml"],
         files={"s.yaml": system(device="dev.yaml"), "dev.yaml": Symlink("/etc/passwd")},
         message=["devices[0].include", "outside the folders amdahl reads from"],
         check=lacks("root:")),
    Case(name="include-symlinked-folder",
         args=["predict", "--model", "alexnet", "--system", "s.yaml"],
         files={"s.yaml": system(device="etc/passwd"), "etc": Symlink("/etc")},
         message="outside the folders amdahl reads from", check=lacks("root:")),
    Case(name="efficiency-from-symlink",
         args=["predict", "--model", "alexnet", "--system", "s.yaml"],
         files={"s.yaml": system(device="d/dev.yaml"), "d/dev.yaml": device("other.yaml"),
                "d/other.yaml": Symlink("/etc/passwd")},
         message=["efficiency_from", "outside the folders amdahl reads from"],
         check=lacks("root:")),
    Case(name="efficiency-from-dotdot",
         args=["predict", "--model", "alexnet", "--system", "s.yaml"],
         files={"s.yaml": system(device="dev.yaml"),
                "dev.yaml": device("../../../../../../../../etc/passwd")},
         message=["efficiency_from", "outside the folders amdahl reads from"],
         check=lacks("root:")),

    # --- calibrate --out, --residuals: the output rule ---
    Case(name="calibrate-out-exists",
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "dev.yaml"],
         files={"dev.yaml": OLD}, unchanged=["dev.yaml"],
         message="--out dev.yaml: exists; give --force to replace it"),
    Case(name="calibrate-residuals-exists",
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "dev.yaml",
               "--residuals", "r.csv"],
         files={"r.csv": OLD}, unchanged=["r.csv"], absent=["dev.yaml"],
         message="--residuals r.csv: exists; give --force"),
    Case(name="calibrate-out-fifo-force",  # never replaced, even with --force
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "p",
               "--force"],
         files={"p": Fifo()}, message="not a regular file (a named pipe)", check=still_fifo("p")),
    Case(name="calibrate-out-symlink-to-fifo",
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "l.yaml",
               "--force"],
         files={"p": Fifo(), "l.yaml": Symlink("p")},
         message="not a regular file (a named pipe)", check=still_fifo("p")),
    Case(name="calibrate-out-symlink-to-device",  # the /dev/full example, on /dev/null
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "l.yaml",
               "--force"],
         files={"l.yaml": Symlink("/dev/null")}, message="not a regular file (a device)"),
    Case(name="calibrate-out-folder",
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "d",
               "--force"],
         files={"d/x": OLD}, unchanged=["d/x"], message="not a regular file (a folder)"),
    Case(name="calibrate-out-symlink-no-force",  # a link to a regular file: --force needed
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "l.yaml"],
         files={"victim.yaml": OLD, "l.yaml": Symlink("victim.yaml")},
         unchanged=["victim.yaml"], message="exists; give --force",
         check=still_link("l.yaml", "victim.yaml", OLD)),
    Case(name="calibrate-residuals-is-input",  # the CSV it reads, even with --force
         args=["calibrate", "measurements", "m.csv", "--base", BASE, "--out", "dev.yaml",
               "--residuals", "m.csv", "--force"],
         files={"m.csv": Symlink(MEASUREMENTS)}, absent=["dev.yaml"],
         message="--residuals m.csv: is a file this run reads"),
    Case(name="calibrate-residuals-link-to-input",
         args=["calibrate", "measurements", "m.csv", "--base", BASE, "--out", "dev.yaml",
               "--residuals", "r.csv", "--force"],
         files={"m.csv": Symlink(MEASUREMENTS), "r.csv": Symlink("m.csv")}, absent=["dev.yaml"],
         message="--residuals r.csv: is a file this run reads"),
    Case(name="calibrate-out-is-base-no-force",  # a refit in place needs --force
         args=["calibrate", "measurements", MEASUREMENTS, "--base", "dev.yaml", "--out",
               "dev.yaml"],
         files={"dev.yaml": BASE_TEXT}, unchanged=["dev.yaml"],
         message="--out dev.yaml: exists; give --force"),
    Case(name="calibrate-residuals-is-base",
         args=["calibrate", "measurements", MEASUREMENTS, "--base", "dev.yaml", "--out",
               "new.yaml", "--residuals", "dev.yaml", "--force"],
         files={"dev.yaml": BASE_TEXT}, unchanged=["dev.yaml"], absent=["new.yaml"],
         message="--residuals dev.yaml: is a file this run reads"),
    Case(name="calibrate-out-is-measurements",
         args=["calibrate", "measurements", "m.csv", "--base", BASE, "--out", "m.csv",
               "--force"],
         files={"m.csv": MEASUREMENTS_TEXT}, unchanged=["m.csv"],
         message="--out m.csv: is a file this run reads"),
    Case(name="calibrate-out-same-as-residuals",
         args=["calibrate", "measurements", MEASUREMENTS, "--base", BASE, "--out", "x.csv",
               "--residuals", "./x.csv"],
         absent=["x.csv"], message="names the same file"),
    Case(name="calibrate-check-residuals-fifo",
         args=["calibrate", "check", BASE, "--residuals", "p", "--force", "measurements",
               MEASUREMENTS],
         files={"p": Fifo()}, message="not a regular file", check=still_fifo("p")),
    Case(name="calibrate-check-residuals-is-input",
         args=["calibrate", "check", "dev.yaml", "--residuals", "dev.yaml", "--force",
               "measurements", MEASUREMENTS],
         files={"dev.yaml": Symlink(BASE)}, message="is a file this run reads"),

    # --- -o DIR, --plot, explore's checkpoint ---
    Case(name="output-dir-fifo-force",
         args=["predict", "--model", "alexnet", "-o", "out", "--force"],
         files={"out/prediction.json": Fifo()}, message="not a regular file (a named pipe)",
         check=still_fifo("out/prediction.json"), absent=["out/timeline.json"]),
    Case(name="output-dir-link-to-input",  # a file of -o DIR that is the network read
         args=["predict", "--graph", "net.yaml", "-o", "out", "--force"],
         files={"net.yaml": Symlink("{fixtures}/graphs/dead_branch.yaml"),
                "out/config.json": Symlink("../net.yaml")},
         message="is a file this run reads", absent=["out/timeline.json"]),
    Case(name="plot-fifo-force",
         args=["sweep", "--model", "alexnet", "--vary", "batch=1,2", "--plot", "f.svg",
               "--force"],
         files={"f.csv": Fifo()}, message="f.csv: exists and is not a regular file (a named pipe)",
         check=still_fifo("f.csv"), absent=["f.svg", "f.gp"]),
    Case(name="explore-checkpoint-dangling-link",  # the link's target is never created
         args=["explore", "--models", "alexnet", "--vary", "gpu0.peak.fp32=5..10TFLOP/s:x2", "-o", "out",
               "--force"],
         files={"out/keep": OLD, "out/explore.checkpoint": Symlink("{dir}/planted")},
         message="the checkpoint", absent=["planted"]),
    Case(name="explore-checkpoint-fifo-resume",  # a pipe named like it: no hang
         args=["explore", "--models", "alexnet", "--vary", "gpu0.peak.fp32=5..10TFLOP/s:x2", "-o", "out",
               "--resume"],
         files={"out/explore.checkpoint": Fifo()}, message="not a regular file",
         check=still_fifo("out/explore.checkpoint")),
]
