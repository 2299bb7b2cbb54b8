"""Helpers of the control-flow tests: build ONNX models with subgraphs, run
them with onnxruntime, and evaluate the imported relay module with the NumPy
references (``relay.if``/``relay.while`` included)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from xtvm.frontend import from_onnx
from xtvm.passes.relay.evaluate import evaluate_function

ort.set_default_logger_severity(3)

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def info(name: str, elem: int, shape: Sequence[int | str] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def const(name: str, value) -> onnx.NodeProto:
    """A ``Constant`` node of ``value`` (a NumPy array)."""
    array = np.asarray(value)
    return helper.make_node(
        "Constant", [], [name], value=onnx.numpy_helper.from_array(array, name + "_value")
    )


def model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[onnx.ValueInfoProto],
    opset: int = 16,
) -> onnx.ModelProto:
    graph = helper.make_graph(list(nodes), "main", list(inputs), list(outputs))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    proto.ir_version = 8
    onnx.checker.check_model(proto)
    return proto


def run_ort(proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, dict(feeds))


def evaluate(proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray], **options):
    """The imported module (verified) and what it computes on ``feeds``."""
    module, params = from_onnx(proto, freeze_params=True, **options)
    module.verify()
    return module, evaluate_function(module, "main", list(feeds.values()))


def check(proto: onnx.ModelProto, feeds: Mapping[str, np.ndarray], **options):
    """Imports ``proto``, evaluates it with the references and compares with
    onnxruntime (shape, dtype, values); the module."""
    expected = run_ort(proto, feeds)
    module, got = evaluate(proto, feeds, **options)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    return module
