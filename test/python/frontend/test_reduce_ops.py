"""Converters of the composed reductions (ReduceL1, ReduceL2, ReduceSumSquare,
ReduceLogSum, ReduceLogSumExp), ReduceProd and ArgMax/ArgMin against
onnxruntime, evaluated with the NumPy references and compiled."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import compile_and_compare
from node_testing import node_model, randn
from onnx_testing import import_error

COMPOSED = {
    "ReduceL1": ["relay.abs", "relay.sum"],
    "ReduceL2": ["relay.multiply", "relay.sum", "relay.sqrt"],
    "ReduceSumSquare": ["relay.multiply", "relay.sum"],
    "ReduceLogSum": ["relay.sum", "relay.log"],
    "ReduceProd": ["relay.prod"],
}
LOG_SUM_EXP = [
    "relay.max", "relay.const", "relay.isfinite", "relay.where",  # the shift: max, or 0 if not finite
    "relay.subtract", "relay.exp", "relay.sum", "relay.log", "relay.add",
]  # fmt: skip


def _positive(*shape: int) -> np.ndarray:
    return (np.abs(randn(*shape)) + 0.5).astype(np.float32)


@pytest.mark.parametrize("op_type", [*COMPOSED, "ReduceLogSumExp"])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("axes", [None, [1], [0, -1]])
def test_axes_attribute_opset13(op_type, keepdims, axes):
    feeds = {"x": _positive(2, 3, 4)}
    attrs = {} if axes is None else {"axes": axes}
    model = node_model(op_type, ["x"], feeds, keepdims=keepdims, **attrs)
    ops = COMPOSED.get(op_type, LOG_SUM_EXP)
    if op_type == "ReduceLogSumExp" and not keepdims:
        ops = [*ops, "relay.reshape"]
    compile_and_compare(model, feeds, ops, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op_type", [*COMPOSED, "ReduceLogSumExp"])
def test_axes_input_opset18(op_type):
    feeds = {"x": _positive(2, 3, 4)}
    model = node_model(
        op_type, ["x", "axes"], feeds, {"axes": np.array([-2])}, opset=18, keepdims=1
    )
    compile_and_compare(model, feeds, COMPOSED.get(op_type, LOG_SUM_EXP), atol=1e-5)


def test_log_sum_exp_does_not_overflow():
    feeds = {"x": (randn(3, 5) * 100 + 500).astype(np.float32)}
    model = node_model("ReduceLogSumExp", ["x"], feeds, axes=[1], keepdims=0)
    compile_and_compare(model, feeds, [*LOG_SUM_EXP, "relay.reshape"], rtol=1e-5)


@pytest.mark.parametrize(
    ("op_type", "expected_ops"),
    [
        ("ReduceMax", []),
        ("ReduceL1", ["relay.abs", "relay.sum"]),
        ("ReduceLogSumExp", LOG_SUM_EXP),
    ],
)
def test_empty_axes_with_noop_reduce_over_no_axis(op_type, expected_ops):
    # As onnxruntime: the identity, or the elementwise part (|x| for ReduceL1).
    feeds = {"x": _positive(2, 3) - 1}
    empty = {"axes": np.array([], np.int64)}
    model = node_model(op_type, ["x", "axes"], feeds, empty, opset=18, noop_with_empty_axes=1)
    compile_and_compare(model, feeds, expected_ops)


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize(
    ("opset", "attrs"),
    [
        (11, {}),
        (11, {"axis": 1, "keepdims": 0}),
        (13, {"axis": -1}),
        (13, {"axis": 0, "select_last_index": 1}),  # ties: the last position
    ],
)
def test_arg_reductions(op_type, opset, attrs):
    feeds = {"x": np.random.default_rng(1).integers(-2, 2, (4, 3, 5)).astype(np.float32)}
    model = node_model(op_type, ["x"], feeds, opset=opset, **attrs)
    compile_and_compare(model, feeds, [f"relay.{op_type.lower()}"])


def test_reduction_errors_name_the_node():
    feeds = {"x": randn(2, 3)}
    assert import_error(node_model("ReduceL1", ["x"], feeds, axes=[2])) == (
        "node 'n' (ReduceL1, opset 13): attribute 'axes' = [2] is out of range for rank 2"
    )
    assert import_error(node_model("ReduceL2", ["x"], feeds, keepdims=3)) == (
        "node 'n' (ReduceL2, opset 13): attribute 'keepdims' = 3 is not supported: "
        "expected 0 or 1"
    )
    assert import_error(node_model("ArgMax", ["x"], feeds, axis=2)) == (
        "node 'n' (ArgMax, opset 13): attribute 'axis' = 2 is out of range for rank 2"
    )
