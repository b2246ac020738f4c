"""Output sinks: names from input files reach generated scripts, DOT, HTML, CSV and the terminal
as data, never as code or raw control bytes (docs/reliability.md).

Policy: a hostile name is still a valid name (exit 0, the figure drawn with the name shown);
each sink encodes it (util/output_encoding.h), and gnuplot runs confined so that it cannot
start a process whatever it reads (util/confined_process.h). The names below carry, at once:
  - a backquoted command (gnuplot runs `...` inside double quotes),
  - a newline, then a gnuplot command that runs a shell command with system(),
  - a single quote that would end a single-quoted literal, then system(),
  - a terminal escape (clear the screen, set the window title), C1 CSI, a right-to-left override,
  - HTML and Markdown markup, a DOT quote and backslash, CSV quotes and commas.
Each payload creates a file PWNED_* in the case's folder (the commands run in gnuplot's
temporary folder, so they name the case's folder by its absolute path); none may appear.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

from hostile import Case

SOURCE = Path(__file__).resolve().parents[2]
CATALOG = SOURCE / "hw" / "catalog"


def payload(tag):
    """A hostile name: each way into a gnuplot script, the terminal, HTML, Markdown, DOT, CSV."""
    return (f"{tag}`touch {{dir}}/PWNED_BT_{tag}`"
            f"\nsystem('touch {{dir}}/PWNED_NL_{tag}')\n#"
            f"'.system('touch {{dir}}/PWNED_SQ_{tag}').'"
            "\x1b[2J\x1b]0;pwned\x07\u009b31m\u202e"
            "<script>alert(1)</script><img src=x onerror=alert(2)>"
            "[link](javascript:alert(3))|cell|\"q\\\",c")


PWNED = [f"PWNED_{kind}_{tag}" for kind in ("BT", "NL", "SQ")
         for tag in ("system", "cpu", "gpu", "link", "net", "layer")]


def yaml_string(text):
    """A YAML double-quoted scalar holding `text` exactly (JSON's escapes are YAML's)."""
    return json.dumps(text)


def with_name(path, name):
    """A catalog file's text with its top-level `name:` replaced."""
    text = path.read_text()
    return re.sub(r"(?m)^name: .*$", lambda m: "name: " + yaml_string(name), text, count=1)


def hostile_system():
    """Minsky with every name hostile: the system, its CPU and GPU models and its links."""
    system = with_name(CATALOG / "systems" / "minsky.yaml", payload("system"))
    for a, b in (("../devices/power8-nvl.yaml", "cpu.yaml"),
                 ("../devices/p100-sxm2.yaml", "gpu.yaml"),
                 ("../links/nvlink1-x2.yaml", "nvlink.yaml"),
                 ("../links/xbus-power8.yaml", "xbus.yaml")):
        system = system.replace(a, b)
    return {
        "sys/evil.yaml": system,
        "sys/cpu.yaml": with_name(CATALOG / "devices" / "power8-nvl.yaml", payload("cpu")),
        "sys/gpu.yaml": with_name(CATALOG / "devices" / "p100-sxm2.yaml", payload("gpu")),
        "sys/nvlink.yaml": with_name(CATALOG / "links" / "nvlink1-x2.yaml", payload("link")),
        "sys/xbus.yaml": with_name(CATALOG / "links" / "xbus-power8.yaml", payload("link")),
    }


def hostile_network():
    """A small perceptron whose name and first layer's name are hostile."""
    return ("name: " + yaml_string(payload("net")) + "\n"
            "description: a perceptron with hostile names\n"
            "source: tests/hostile/cases_sinks.py\n"
            "sizes:\n"
            "  batch: {default: 8, description: samples}\n"
            "inputs:\n"
            "  - {name: x, shape: [batch, 64], dtype: fp32}\n"
            "  - {name: labels, shape: [batch], dtype: int64}\n"
            "optimizer: momentum\n"
            "layers:\n"
            "  - {name: " + yaml_string(payload("layer")) + ", kind: linear, out_features: 32}\n"
            "  - {name: act, kind: relu}\n"
            "  - {name: fc2, kind: linear, out_features: 10}\n"
            "  - {name: loss, kind: softmax_cross_entropy, inputs: [fc2, labels]}\n")


FILES = dict(hostile_system(), **{"net.yaml": hostile_network()})
SYSTEM = "{dir}/sys/evil.yaml"

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")


def written_files_clean(out, need):
    """A check: every file in `need` exists under the case's folder/`out`; no text file there
    holds a raw control byte; HTML holds no live markup from a name; the Markdown none either;
    every gnuplot script holds the names only inside single-quoted literals."""
    def check(folder, result):
        root = folder / out
        for rel in need:
            if not (root / rel).is_file() or (root / rel).stat().st_size == 0:
                return f"{out}/{rel} missing or empty"
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if path.suffix in (".png",):
                continue
            text = path.read_bytes().decode("utf-8", "replace")
            rel = path.relative_to(folder)
            if RAW_CONTROL.search(text):
                return f"{rel} holds a raw control character"
            if path.suffix == ".md":
                # Code spans show their text literally; elsewhere markup is backslash-escaped.
                text = re.sub(r"(?<![`\\])(`+)(?!`).*?(?<!`)\1(?!`)", "", text, flags=re.S)
                if re.search(r"(?<!\\)<(script|img)", text, re.I) or re.search(
                        r"(?<!\\)\[link(?<!\\)\]\(", text):
                    return f"{rel} holds live Markdown or HTML from a name"
            if path.suffix in (".html", ".svg") and re.search(r"<(script|img)", text, re.I):
                return f"{rel} holds live markup from a name"
            if path.suffix == ".gp":
                for line in text.splitlines():
                    if line.lstrip().startswith(("system", "#'", "!")) or "\"" + "evil" in line:
                        return f"{rel}: a name escaped its literal: {line[:80]!r}"
                if "`touch" in re.sub(r"'(?:[^']|'')*'", "", text):
                    return f"{rel}: a backquote outside a single-quoted literal"
        return None
    return check


def svg_shows_names(rel):
    """A check: the figure rel was drawn, and the hostile name is in it as text."""
    def check(folder, result):
        path = folder / rel
        if not path.is_file():
            return f"{rel} not drawn"
        text = path.read_text(errors="replace")
        if "touch {}/PWNED".format(folder) not in text.replace("&#39;", "'"):
            return f"{rel} does not show the hostile name"
        return None
    return check


def both(*checks):
    def check(folder, result):
        for c in checks:
            why = c(folder, result)
            if why:
                return why
        return None
    return check


def dot_parses(folder, result):
    """A check: stdout is one DOT graph that Graphviz reads, the names inside quoted IDs."""
    if "\x1b" in result.out or "digraph \"net`touch" not in result.out:
        return "the DOT graph's name is not a quoted ID"
    if not shutil.which("dot"):
        return None
    r = subprocess.run(["dot", "-Tsvg"], input=result.out.encode(), capture_output=True,
                       timeout=30)
    if r.returncode != 0:
        return "Graphviz rejects the DOT: " + r.stderr.decode(errors="replace")[:300]
    if b"<script" in r.stdout:
        return "Graphviz's SVG holds live markup"
    return None


def json_parses(folder, result):
    try:
        json.loads(result.out)
    except ValueError as e:
        return f"stdout is not JSON: {e}"
    return None


def csv_rows_intact(columns):
    """A check: stdout is CSV whose every row has `columns` fields (no name broke a row)."""
    import csv
    import io

    def check(folder, result):
        rows = list(csv.reader(io.StringIO(result.out)))
        bad = [r for r in rows if r and len(r) != columns]
        return f"CSV rows with a field count other than {columns}: {bad[:2]}" if bad else None
    return check


def _varint(data, at):
    value = shift = 0
    while True:
        b = data[at]
        at += 1
        value |= (b & 0x7f) << shift
        shift += 7
        if b < 0x80:
            return value, at


def _put_varint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7f) | (0x80 if v > 0x7f else 0))
        v >>= 7
        if not v:
            return bytes(out)


def _field(number, value):
    return _put_varint(number << 3 | 2) + _put_varint(len(value)) + value


def _rewrite(data, changes, drop=()):
    """Protobuf `data` with each length-delimited field whose number is in `changes` replaced
    by changes[number](its bytes), those in `drop` left out; every other field copied."""
    out = b""
    at = 0
    while at < len(data):
        key, after_key = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 2:
            length, start = _varint(data, after_key)
            value = data[start:start + length]
            at = start + length
            if number in drop:
                continue
            if number in changes:
                value = changes[number](value)
            out += _field(number, value)
            continue
        end = after_key
        if wire == 0:
            _, end = _varint(data, after_key)
        elif wire in (1, 5):
            end += 8 if wire == 1 else 4
        else:
            raise ValueError(f"protobuf wire type {wire}")
        out += data[at:end]
        at = end
    return out


def onnx_bytes(graph_name: bytes, node_name: bytes):
    """The committed MLP seed (fuzz/seeds/onnx/mlp.onnx) with its graph's name replaced and
    each node named node_name + its index, re-encoded by hand (ModelProto.graph = 7,
    GraphProto.node = 1, GraphProto.name = 2, NodeProto.name = 3): no python3-onnx needed, and
    any bytes, invalid UTF-8 included, can be written."""
    seed = (SOURCE / "fuzz" / "seeds" / "onnx" / "mlp.onnx").read_bytes()
    count = iter(range(1000))
    node = lambda n: _rewrite(n, {}, drop={3}) + _field(3, node_name + str(next(count)).encode())
    graph = lambda g: _rewrite(g, {1: node, 2: lambda _: graph_name})
    return _rewrite(seed, {7: graph})


ONNX_NAME = payload("net").replace("{dir}", "DIR").encode() + b"\xff\xfe invalid \xc3("

CASES = [
    # report: every name in report.md, report.html, the CSVs, the figures' scripts and SVGs.
    Case(name="report-hostile-names",
         args=["report", "--models", "{dir}/net.yaml", "--system", SYSTEM, "-o", "{dir}/out"],
         exit=0, files=FILES, absent=PWNED, seconds=30,
         check=both(written_files_clean("out", ["report.html", "report.md", "summary.csv",
                                                "figures/classes_train.svg",
                                                "figures/classes_train.gp"]),
                    svg_shows_names("out/figures/classes_train.svg"))),
    # sweep --plot: the network's and the system's names in the title, the CPU's in a series.
    Case(name="sweep-plot-hostile-names",
         args=["sweep", "--graph", "{dir}/net.yaml", "--system", SYSTEM, "--vary", "batch=1,2,4",
               "--plot", "{dir}/plot.svg"],
         exit=0, files=FILES, absent=PWNED,
         check=both(written_files_clean(".", ["plot.svg", "plot.png", "plot.gp", "plot.csv"]),
                    svg_shows_names("plot.svg"))),
    # validate --plot: the system's name in the title.
    Case(name="validate-plot-hostile-names",
         args=["validate", "--measured", "{dir}/runs.csv", "--system", SYSTEM,
               "--plot", "{dir}/v.svg"],
         exit=0, absent=PWNED,
         files=dict(FILES, **{"runs.csv": "workload,batch,mode,precision,measured_s\n"
                                          "alexnet,32,train,fp32,0.05\n"
                                          "alexnet,64,train,fp32,0.09\n"}),
         check=both(written_files_clean(".", ["v.svg", "v.png", "v.gp", "v.csv"]),
                    svg_shows_names("v.svg"))),
    # explore -o: the system's name in the Pareto figure's title, the names in every CSV.
    Case(name="explore-hostile-names",
         args=["explore", "--models", "{dir}/net.yaml", "--system", SYSTEM,
               "--vary", "gpu0.peak.fp32=5..20TFLOP/s:x2", "-o", "{dir}/out"],
         exit=0, files=FILES, absent=PWNED,
         check=both(written_files_clean("out", ["figures/pareto.svg", "explore.csv"]),
                    svg_shows_names("out/figures/pareto.svg"))),
    # The terminal: tables, header lines and warnings carry no raw escape (the driver checks
    # every byte of stdout and stderr); a name's newline does not break a table row.
    Case(name="predict-hostile-names",
         args=["predict", "--graph", "{dir}/net.yaml", "--system", SYSTEM], exit=0,
         files=FILES, absent=PWNED, message="\\x1b[2J"),
    Case(name="predict-hostile-names-multi-gpu",
         args=["predict", "--graph", "{dir}/net.yaml", "--system", SYSTEM, "--gpus", "4"],
         exit=0, files=FILES, message="\\x1b[2J"),
    Case(name="breakdown-hostile-names",
         args=["breakdown", "--graph", "{dir}/net.yaml", "--system", SYSTEM], exit=0,
         files=FILES, message="\\x1b[2J"),
    Case(name="predict-hostile-names-csv",
         args=["predict", "--graph", "{dir}/net.yaml", "--system", SYSTEM, "--format", "csv"],
         exit=0, files=FILES, check=csv_rows_intact(12)),
    Case(name="breakdown-hostile-names-csv",
         args=["breakdown", "--graph", "{dir}/net.yaml", "--system", SYSTEM, "--format", "csv"],
         exit=0, files=FILES, check=csv_rows_intact(4)),
    Case(name="predict-hostile-names-json",
         args=["predict", "--graph", "{dir}/net.yaml", "--system", SYSTEM, "--format", "json",
               "-o", "{dir}/out"],
         exit=0, files=FILES,
         check=both(json_parses, written_files_clean("out", ["prediction.json"]))),
    Case(name="whatif-hostile-names",
         args=["whatif", "--graph", "{dir}/net.yaml", "--system", SYSTEM, "--speedup", "gemm=2"],
         exit=0, files=FILES),
    # DOT: the network's and the layers' names are quoted IDs Graphviz reads back.
    Case(name="graph-dot-hostile-names",
         args=["graph", "--graph", "{dir}/net.yaml", "--format", "dot", "-o", "{dir}/out"],
         exit=0, files={"net.yaml": hostile_network()}, check=both(
             dot_parses, written_files_clean("out", ["graph.dot", "graph.json"]))),
    # ONNX: a graph and node names with every payload and bytes of invalid UTF-8; JSON output
    # replaces them (nlohmann would throw type_error 316: an internal error).
    Case(name="onnx-hostile-names-json",
         args=["graph", "--onnx", "{dir}/evil.onnx", "--batch", "2", "--format", "json"], exit=0,
         files={"evil.onnx": onnx_bytes(ONNX_NAME, b"node\x1b[2J\n\xff")}, check=json_parses),
    Case(name="onnx-hostile-names-predict-json",
         args=["predict", "--onnx", "{dir}/evil.onnx", "--batch", "2", "--format", "json"], exit=0,
         files={"evil.onnx": onnx_bytes(ONNX_NAME, b"node\x1b[2J\n\xff")}, check=json_parses),
    Case(name="onnx-hostile-names-breakdown",
         args=["breakdown", "--onnx", "{dir}/evil.onnx", "--batch", "2"], exit=0,
         files={"evil.onnx": onnx_bytes(ONNX_NAME, b"node\x1b[2J\n\xff")}),
    Case(name="onnx-hostile-names-dot",
         args=["graph", "--onnx", "{dir}/evil.onnx", "--batch", "2", "--format", "dot"], exit=0,
         files={"evil.onnx": onnx_bytes(ONNX_NAME, b"node\x1b[2J\n\xff\"\\")}),
    # --plot's own name is the command line's: one gnuplot would read as a command ('<' reads
    # a command's output) is written './<...' and drawn; one with a control byte is refused.
    Case(name="plot-name-starts-with-pipe",
         args=["sweep", "--model", "alexnet", "--vary", "batch=1,2", "--plot",
               "{dir}/<touch PWNED_PLOT; x.svg"],
         exit=0, check=written_files_clean(".", ["<touch PWNED_PLOT; x.svg",
                                                 "<touch PWNED_PLOT; x.png"])),
    Case(name="plot-name-control-byte",
         args=["sweep", "--model", "alexnet", "--vary", "batch=1,2", "--plot",
               "{dir}/a\x1b[2J\nb.svg"],
         message=["--plot", "control characters", "\\x1b[2J"], absent=["a\x1b[2J\nb.svg"]),
]
