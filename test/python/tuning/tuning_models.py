"""Small ONNX models for the tuning tests: a first-layer-like conv (3
channels, stride 2), a grouped and a depthwise conv, and a dense layer, each
with seeded random weights."""

from __future__ import annotations

import numpy as np


def conv_model(channels=3, out=16, size=18, kernel=3, stride=2, group=1, relu=True, dense=0):
    """An ONNX model: Conv(+bias)(+Relu) on ``[1, channels, size, size]``,
    then (``dense`` > 0) Flatten and a Gemm to ``dense`` units."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = rng.standard_normal((out, channels // group, kernel, kernel)).astype("float32")
    b = rng.standard_normal(out).astype("float32")
    nodes = [
        helper.make_node(
            "Conv",
            ["x", "w", "b"],
            ["c"],
            strides=[stride] * 2,
            pads=[kernel // 2] * 4,
            group=group,
        )
    ]
    last = "c"
    if relu:
        nodes.append(helper.make_node("Relu", [last], ["r"]))
        last = "r"
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    osize = (size + 2 * (kernel // 2) - kernel) // stride + 1
    oshape = [1, out, osize, osize]
    if dense:
        nodes.append(helper.make_node("Flatten", [last], ["f"]))
        wd = rng.standard_normal((dense, out * osize * osize)).astype("float32") * 0.01
        inits.append(numpy_helper.from_array(wd, "wd"))
        nodes.append(helper.make_node("Gemm", ["f", "wd"], ["y"], transB=1))
        last, oshape = "y", [1, dense]
    graph = helper.make_graph(
        nodes,
        "m",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])],
        [helper.make_tensor_value_info(last, TensorProto.FLOAT, oshape)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model


def relay_of(model):
    from xtvm.frontend import from_onnx

    return from_onnx(model)
