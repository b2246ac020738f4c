#!/usr/bin/python3
"""Writes the ONNX fuzz seeds into fuzz/seeds/onnx/: small models (weights of a few KB) that
reach each part of the importer: convolution nets, GEMM and MatMul, recurrent layers, shape
subgraphs that the importer folds, einsum, symbolic dims. Run with Debian's python3-onnx:
  /usr/bin/python3 fuzz/make_onnx_seeds.py
The output is committed; rerun after changing this file."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "onnx")


def w(name, *shape):
    return nh.from_array(np.zeros(shape, np.float32), name)


def i64(name, values):
    return nh.from_array(np.array(values, np.int64), name)


def save(name, nodes, inits, inputs, outputs, opset=17):
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def value(name, dims, dtype=T.FLOAT):
    return h.make_tensor_value_info(name, dtype, dims)


def main():
    os.makedirs(OUT, exist_ok=True)
    # A small convolution net with a symbolic batch.
    save("convnet", [
        h.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c1", "g", "be", "m", "v"], ["n1"]),
        h.make_node("Relu", ["n1"], ["r1"]),
        h.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("Conv", ["p1", "w2"], ["c2"], kernel_shape=[3, 3], group=4, pads=[1, 1, 1, 1]),
        h.make_node("GlobalAveragePool", ["c2"], ["gp"]),
        h.make_node("Flatten", ["gp"], ["f"]),
        h.make_node("Gemm", ["f", "wf", "bf"], ["y0"], transB=1),
        h.make_node("Softmax", ["y0"], ["y"], axis=1),
    ], [w("w1", 8, 3, 3, 3), w("b1", 8), w("g", 8), w("be", 8), w("m", 8), w("v", 8),
        w("w2", 8, 2, 3, 3), w("wf", 10, 8), w("bf", 10)],
        [value("x", ["batch", 3, 16, 16])], [value("y", ["batch", 10])])
    # An MLP with MatMul, Add, Gelu-like elementwise ops and dropout.
    save("mlp", [
        h.make_node("MatMul", ["x", "w1"], ["a"]),
        h.make_node("Add", ["a", "b1"], ["ab"]),
        h.make_node("Tanh", ["ab"], ["t"]),
        h.make_node("Dropout", ["t"], ["d"]),
        h.make_node("MatMul", ["d", "w2"], ["y"]),
    ], [w("w1", 16, 32), w("b1", 32), w("w2", 32, 4)],
        [value("x", ["N", 16])], [value("y", ["N", 4])])
    # Recurrent layers.
    save("lstm", [
        h.make_node("LSTM", ["x", "W", "R", "B"], ["y", "yh", "yc"], hidden_size=8),
    ], [w("W", 1, 32, 4), w("R", 1, 32, 8), w("B", 1, 64)],
        [value("x", [5, "batch", 4])], [value("y", [5, 1, "batch", 8])])
    save("gru", [
        h.make_node("GRU", ["x", "W", "R"], ["y", "yh"], hidden_size=6, direction="bidirectional"),
    ], [w("W", 2, 18, 4), w("R", 2, 18, 6)],
        [value("x", [3, 2, 4])], [value("y", [3, 2, 2, 6])])
    # Attention with a shape subgraph the importer folds (Shape -> Gather -> Concat -> Reshape).
    save("attention", [
        h.make_node("Shape", ["x"], ["s"]),
        h.make_node("Gather", ["s", "i0"], ["b"], axis=0),
        h.make_node("Gather", ["s", "i1"], ["l"], axis=0),
        h.make_node("Unsqueeze", ["b", "ax"], ["bu"]),
        h.make_node("Unsqueeze", ["l", "ax"], ["lu"]),
        h.make_node("Concat", ["bu", "lu", "heads", "hd"], ["shape"], axis=0),
        h.make_node("MatMul", ["x", "wq"], ["q0"]),
        h.make_node("Reshape", ["q0", "shape"], ["q1"]),
        h.make_node("Transpose", ["q1"], ["q"], perm=[0, 2, 1, 3]),
        h.make_node("Transpose", ["q1"], ["k"], perm=[0, 2, 3, 1]),
        h.make_node("MatMul", ["q", "k"], ["s0"]),
        h.make_node("Div", ["s0", "scale"], ["s1"]),
        h.make_node("Softmax", ["s1"], ["p"], axis=-1),
        h.make_node("MatMul", ["p", "q"], ["y"]),
    ], [w("wq", 16, 16), i64("i0", 0), i64("i1", 1), i64("ax", [0]), i64("heads", [2]),
        i64("hd", [8]), nh.from_array(np.array(4.0, np.float32), "scale")],
        [value("x", ["batch", 4, 16])], [value("y", None)])
    # Einsum, LayerNormalization, ReduceMean and a Range-driven constant.
    save("einsum", [
        h.make_node("Einsum", ["x", "w"], ["e"], equation="bij,bjk->bik"),
        h.make_node("LayerNormalization", ["e", "g", "be"], ["n"], axis=-1),
        h.make_node("ReduceMean", ["n"], ["y"], axes=[1], keepdims=0),
    ], [w("w", 2, 8, 8), w("g", 8), w("be", 8)],
        [value("x", [2, 4, 8])], [value("y", None)], opset=17)
    # Embedding (Gather on a table), Range, ConstantOfShape, Expand, Where.
    save("embedding", [
        h.make_node("Gather", ["table", "ids"], ["emb"]),
        h.make_node("Range", ["start", "limit", "delta"], ["pos"]),
        h.make_node("Gather", ["ptable", "pos"], ["pemb"]),
        h.make_node("Add", ["emb", "pemb"], ["y"]),
    ], [w("table", 50, 8), w("ptable", 6, 8), i64("start", 0), i64("limit", 6), i64("delta", 1)],
        [value("ids", ["batch", 6], T.INT64)], [value("y", None)])
    print(f"wrote {len(os.listdir(OUT))} seeds into {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
