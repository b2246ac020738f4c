"""Hostile inputs of the yaml area (docs/reliability.md): YAML aliases that refer to
themselves or multiply a file ("billion laughs"), and nesting deep enough to exhaust a
recursive walk. Every YAML is read by util/yaml_file.cpp, which counts the text's nodes with
the aliases expanded before yaml-cpp builds its tree (kMaxYamlNodes, kMaxYamlDepth)."""

from pathlib import Path

from hostile import Case

NETWORK = """name: tiny
description: a two-layer perceptron
source: test
sizes:
  batch: {default: 8, description: samples}
inputs:
  - {name: x, shape: [batch, 16], dtype: fp32}
  - {name: labels, shape: [batch], dtype: int64}
layers:
  - {name: fc1, kind: linear, out_features: 32}
  - {name: fc2, kind: linear, out_features: 10}
  - {name: loss, kind: softmax_cross_entropy, inputs: [fc2, labels]}
"""

DEVICE = """name: Round GPU
kind: gpu
source: fixture
parallel_units: 10
peak:
  fp32: {rate: 1 TFLOP/s}
memory:
  capacity: 16 GiB
  bandwidth: 100 GB/s
launch_latency: 2 us
calibrated: false
efficiency:
  default: {compute: 1, memory: 1}
"""

# The round-numbers system of the fixtures (it has the runtime a system needs), its device
# included from the case's folder.
SYSTEM = (Path(__file__).resolve().parents[1] / "fixtures" / "hw" / "host_runtime_system.yaml"
          ).read_text().replace("include: host_runtime_device.yaml", "include: dev.yaml")
assert "include: dev.yaml" in SYSTEM and "description: one round-numbers GPU" in SYSTEM


def laughs(levels=9, width=10, indent=""):
    """The "billion laughs": level k is a list of `width` aliases to level k - 1 (10^9 nodes
    for 9 levels of 10, in under 1 KB)."""
    lines = [indent + "lol0: &lol0 [" + ", ".join(["lol"] * width) + "]"]
    for k in range(1, levels):
        lines.append(indent + f"lol{k}: &lol{k} [" + ", ".join([f"*lol{k - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def nested(depth):
    return "[" * depth + "]" * depth


CASES = [
    # A node that contains itself: yaml-cpp links the alias to its open anchor, a cycle that
    # the duplicate-key check followed until the stack overflowed (SIGSEGV).
    Case("self_alias_network", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK.replace("description: a two-layer perceptron",
                                            "description: &d [*d]")},
         message="net.yaml:2:18: alias *d is inside the node its anchor &d (line 2) names"),
    Case("self_alias_system", ["predict", "--model", "alexnet", "--system", "./sys.yaml"],
         files={"sys.yaml": SYSTEM.replace("description: one round-numbers GPU",
                                           "description: &d [*d]"),
                "dev.yaml": DEVICE},
         message="sys.yaml:5:18: alias *d is inside the node its anchor &d"),
    Case("self_alias_device", ["predict", "--model", "alexnet", "--system", "./sys.yaml"],
         files={"sys.yaml": SYSTEM,
                "dev.yaml": DEVICE.replace("source: fixture", "source: &s {a: *s}")},
         message="dev.yaml:3:16: alias *s is inside the node its anchor &s"),
    # The cycle through a map key, and one level down.
    Case("self_alias_key", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK + "notes: &n\n  - {*n : 1}\n"},
         message=["net.yaml:14:6:", "alias *n is inside the node its anchor &n"]),
    Case("self_alias_graph", ["graph", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK.replace("description: a two-layer perceptron",
                                            "description: &d [*d]")},
         message="alias *d is inside the node its anchor &d"),
    # A billion laughs under a known key, an unknown key (the loaders never read it), and in
    # an included device file.
    Case("laughs_network", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK + "notes:\n" + laughs(indent="  ")},
         message="with its aliases expanded the file has more than 100000 nodes"),
    Case("laughs_unknown_key", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK + "bomb:\n" + laughs(indent="  ")},
         message=["net.yaml:18:", "alias *lol3 repeats the 11111 nodes of anchor &lol3"]),
    Case("laughs_system", ["predict", "--model", "alexnet", "--system", "./sys.yaml"],
         files={"sys.yaml": SYSTEM + "unused:\n" + laughs(indent="  "), "dev.yaml": DEVICE},
         message=["sys.yaml:", "more than 100000 nodes"]),
    Case("laughs_device", ["predict", "--model", "alexnet", "--system", "./sys.yaml"],
         files={"sys.yaml": SYSTEM, "dev.yaml": DEVICE + "extra:\n" + laughs(indent="  ")},
         message=["dev.yaml:", "more than 100000 nodes"]),
    # Wide rather than deep: 10 levels of 4 (about 350,000 nodes).
    Case("laughs_narrow", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK + "bomb:\n" + laughs(levels=11, width=4, indent="  ")},
         message="more than 100000 nodes"),
    # Nesting: yaml-cpp's parser recurses per level (and itself gives up only at 2,000).
    Case("deep_flow_nesting", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": "name: " + nested(100_000) + "\n"},
         message="net.yaml:1:262: lists and maps nest deeper than 256 levels"),
    Case("deep_flow_nesting_system", ["predict", "--model", "alexnet", "--system", "./sys.yaml"],
         files={"sys.yaml": SYSTEM + "x: " + nested(50_000) + "\n", "dev.yaml": DEVICE},
         message="lists and maps nest deeper than 256 levels"),
    Case("deep_block_nesting", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": "layers:\n" + "- " * 5000 + "x\n"},
         message="lists and maps nest deeper than 256 levels"),
    # An alias counts the levels of the node it repeats.
    Case("deep_alias_nesting", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK + "a: &a " + nested(200) + "\nb: " + nested(60).replace(
             "[]", "[*a]") + "\n"},
         message="alias *a (anchor &a, line 13) nests the file deeper than 256 levels"),
    # yaml-cpp reads a flow collection whole before its first event (10^7 brackets: 157 s
    # and 2.8 GB): the text's brackets and commas are counted before it reads any.
    Case("flow_nesting_10m", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": "name: " + nested(10_000_000) + "\n"},
         message="net.yaml:1:200007: more than 200000 of the characters [ ] { } ,"),
    Case("flow_list_million", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK + "notes: [" + ",".join(["0"] * 1_100_000) + "]\n"},
         message=["net.yaml:13:", "more than 200000 of the characters [ ] { } ,"]),
    # Many nodes in block style, without an alias.
    Case("many_nodes", ["predict", "--graph", "net.yaml"],
         files={"net.yaml": NETWORK + "notes:\n" + "  - 0\n" * 110_000},
         message="the file has more than 100000 nodes"),
    # An alias to a complete node is fine.
    Case("alias_ok", ["predict", "--graph", "net.yaml", "--system", "./sys.yaml"], exit=0,
         files={"net.yaml": NETWORK.replace("  - {name: fc1, kind: linear, out_features: 32}",
                                            "  - &fc {name: fc1, kind: linear, out_features: 32}"),
                "sys.yaml": SYSTEM, "dev.yaml": DEVICE},
         message="step"),
]
