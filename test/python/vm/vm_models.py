"""Helpers of the VM tests: small ONNX models built with onnx.helper, and
compiling them for the VM and the graph executor."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import xtvm
from xtvm.frontend import from_onnx


def _const(name: str, array: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(array.astype(np.float32), name)


def mlp_model() -> onnx.ModelProto:
    """x[2,16] → Gemm+Relu → MatMul+Add → Softmax, and the logits as a second output."""
    rng = np.random.default_rng(0)
    inits = [
        _const("w1", rng.standard_normal((16, 32)) * 0.3),
        _const("b1", rng.standard_normal(32) * 0.1),
        _const("w2", rng.standard_normal((32, 8)) * 0.3),
        _const("b2", rng.standard_normal(8) * 0.1),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        helper.make_node("Relu", ["hb"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["o"]),
        helper.make_node("Add", ["o", "b2"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
        [
            helper.make_tensor_value_info("probs", TensorProto.FLOAT, [2, 8]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, [2, 8]),
        ],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def conv_model() -> onnx.ModelProto:
    """x[1,3,16,16] → Conv+Relu → MaxPool → Conv+Relu → GlobalAveragePool → Flatten → Gemm."""
    rng = np.random.default_rng(1)
    inits = [
        _const("c1w", rng.standard_normal((8, 3, 3, 3)) * 0.3),
        _const("c1b", rng.standard_normal(8) * 0.1),
        _const("c2w", rng.standard_normal((16, 8, 3, 3)) * 0.2),
        _const("c2b", rng.standard_normal(16) * 0.1),
        _const("fw", rng.standard_normal((5, 16)) * 0.3),
        _const("fb", rng.standard_normal(5) * 0.1),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "c1w", "c1b"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "c2w", "c2b"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "convnet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def build_both(model: onnx.ModelProto):
    """The model compiled for the VM (an Executable) and for the graph executor."""
    mod, params = from_onnx(model)
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(mod, params=params, executor="vm")
        lib = xtvm.build(mod, params=params)
    return exe, lib


def onnxruntime_outputs(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)
