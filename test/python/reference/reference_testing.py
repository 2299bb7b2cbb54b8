"""Helpers for checking relay ops against onnxruntime.

``run_relay`` builds one relay op with its Python builder on block arguments
of the inputs' types, verifies it, runs its NumPy reference on the inputs and
checks that the reference's outputs have the types the op's type rule
inferred. ``run_onnx`` runs a single-node ONNX model with onnxruntime. A test
builds both for one case and compares the outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnxruntime as ort
from onnx import ValueInfoProto, helper
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, SSAValue

from xtvm.dialects.relay import RelayOp
from xtvm.dtypes import element_type
from xtvm.reference.relay import evaluate_results

ort.set_default_logger_severity(3)

OPSET = 19
RNG = np.random.default_rng(0)


def tensor_type(array: np.ndarray) -> TensorType:
    return TensorType(element_type(str(array.dtype)), array.shape)


def run_relay(build: Callable[..., RelayOp], inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Outputs of the op ``build(*values)`` on ``inputs`` by its reference,
    after checking that they match the op's inferred result types."""
    block = Block(arg_types=[tensor_type(a) for a in inputs])
    values: list[SSAValue] = list(block.args)
    op = build(*values)
    block.add_op(op)
    op.verify()
    outputs = evaluate_results(op.name, inputs, op.attrs)
    got = [tensor_type(o) for o in outputs]
    assert got == list(op.result_types), (
        f"{op.name}: reference gives {got}, type rule {op.result_types}"
    )
    return outputs


def run_onnx(
    op_type: str,
    inputs: Sequence[np.ndarray | None],
    n_outputs: int = 1,
    opset: int = OPSET,
    **attrs: Any,
) -> list[np.ndarray]:
    """Outputs of one ONNX node on ``inputs`` (``None`` leaves an optional
    input out), run by onnxruntime."""
    inputs = list(inputs)
    while inputs and inputs[-1] is None:  # onnxruntime wants trailing optionals left out
        inputs.pop()
    names = [f"in{i}" if a is not None else "" for i, a in enumerate(inputs)]
    feeds = {n: a for n, a in zip(names, inputs) if a is not None}
    outputs = [f"out{i}" for i in range(n_outputs)]
    node = helper.make_node(op_type, names, outputs, **attrs)
    graph = helper.make_graph(
        [node],
        op_type.lower(),
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in feeds.items()
        ],
        [ValueInfoProto(name=o) for o in outputs],  # types left to onnxruntime
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 9
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def assert_same(
    ours: Sequence[np.ndarray], theirs: Sequence[np.ndarray], rtol: float = 1e-5, atol: float = 1e-6
) -> None:
    """Equal count, shapes and dtypes, values within tolerance (exact for integers)."""
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
        if np.issubdtype(a.dtype, np.floating):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(a, b)


def random(
    shape: Sequence[int], dtype: str = "float32", low: float = -1, high: float = 1
) -> np.ndarray:
    if np.issubdtype(np.dtype(dtype), np.integer):
        return RNG.integers(int(low), int(high), size=shape).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)
