"""Elementwise maths, casts, shape_of and reductions against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from reference_testing import assert_same, random, run_onnx, run_relay

from xtvm.dialects.relay import (
    AbsOp,
    CastOp,
    ClipOp,
    ExpOp,
    LogOp,
    MaximumOp,
    MaxOp,
    MeanOp,
    MinimumOp,
    MinOp,
    NegativeOp,
    PowerOp,
    ShapeOfOp,
    SigmoidOp,
    SqrtOp,
    SumOp,
    TanhOp,
)

UNARY = {
    # op: (ONNX op, input range)
    SigmoidOp: ("Sigmoid", (-20, 20)),
    TanhOp: ("Tanh", (-5, 5)),
    ExpOp: ("Exp", (-5, 5)),
    SqrtOp: ("Sqrt", (0, 10)),
    LogOp: ("Log", (0.01, 10)),
    NegativeOp: ("Neg", (-5, 5)),
    AbsOp: ("Abs", (-5, 5)),
}


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.name)
def test_unary_matches_onnxruntime(op):
    onnx_op, (low, high) = UNARY[op]
    data = random((3, 4, 5), low=low, high=high)
    assert_same(run_relay(op, [data]), run_onnx(onnx_op, [data]))


@pytest.mark.parametrize("op", [NegativeOp, AbsOp], ids=lambda op: op.name)
def test_integer_unary_matches_onnxruntime(op):
    data = random((4, 6), "int32", -100, 100)
    assert_same(run_relay(op, [data]), run_onnx(UNARY[op][0], [data]))


@pytest.mark.parametrize(
    ("a_min", "a_max"), [(0.0, 6.0), (-0.5, 0.25), (-np.inf, 0.1), (-0.2, np.inf), (0.5, -0.5)]
)
def test_clip_matches_onnxruntime(a_min, a_max):
    data = random((4, 7), low=-2, high=2)
    ours = run_relay(lambda x: ClipOp(x, a_min, a_max), [data])
    bounds = [None if np.isinf(b) else np.array(b, np.float32) for b in (a_min, a_max)]
    assert_same(ours, run_onnx("Clip", [data, *bounds]))


def test_clip_integers_round_bounds_inward_and_saturate():
    data = np.array([-128, -3, -2, 0, 2, 3, 127], np.int8)
    (got,) = run_relay(lambda x: ClipOp(x, -2.5, np.inf), [data])
    np.testing.assert_array_equal(got, [-2, -2, -2, 0, 2, 3, 127])
    (got,) = run_relay(lambda x: ClipOp(x, -1e9, 2.5), [data])
    np.testing.assert_array_equal(got, [-128, -3, -2, 0, 2, 2, 2])


BINARY = {MaximumOp: "Max", MinimumOp: "Min", PowerOp: "Pow"}


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
@pytest.mark.parametrize(("lhs", "rhs"), [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1))])
def test_binary_matches_onnxruntime(op, lhs, rhs):
    a, b = random(lhs, low=0.1, high=3), random(rhs, low=-2, high=2)
    assert_same(run_relay(op, [a, b]), run_onnx(BINARY[op], [a, b]))


CASTS = [
    ("float32", "int32"),
    ("float32", "int8"),
    ("float32", "uint8"),
    ("float32", "float64"),
    ("float32", "bool"),
    ("int64", "float32"),
    ("int32", "int8"),
    ("bool", "float32"),
]


@pytest.mark.parametrize(("src", "dst"), CASTS)
def test_cast_matches_onnxruntime(src, dst):
    if src == "bool":
        data = random((5, 4), "int32", 0, 2).astype(bool)
    elif dst in ("int8", "uint8"):
        data = random((5, 4), src, 0, 100)  # in range: out-of-range float → int is UB in C
    else:
        data = random((5, 4), src, -100, 100)
    ours = run_relay(lambda x: CastOp(x, dst), [data])
    onnx_type = {"float32": 1, "uint8": 2, "int8": 3, "int32": 6, "bool": 9, "float64": 11}[dst]
    assert_same(ours, run_onnx("Cast", [data], to=onnx_type))


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_shape_of_matches_onnxruntime(dtype):
    data = random((2, 3, 5))
    (ours,) = run_relay(lambda x: ShapeOfOp(x, dtype), [data])
    (theirs,) = run_onnx("Shape", [data])
    assert ours.dtype == dtype
    np.testing.assert_array_equal(ours, theirs)


REDUCTIONS = {SumOp: "ReduceSum", MeanOp: "ReduceMean", MaxOp: "ReduceMax", MinOp: "ReduceMin"}


@pytest.mark.parametrize("op", REDUCTIONS, ids=lambda op: op.name)
@pytest.mark.parametrize("axis", [None, (1,), (0, -1), (2, 0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_onnxruntime(op, axis, keepdims):
    data = random((3, 4, 5))
    ours = run_relay(lambda x: op(x, axis=axis, keepdims=keepdims), [data])
    axes = None if axis is None else np.array(axis, np.int64)
    assert_same(ours, run_onnx(REDUCTIONS[op], [data, axes], keepdims=int(keepdims)))


@pytest.mark.parametrize("op", REDUCTIONS, ids=lambda op: op.name)
def test_reductions_exclude_and_empty_axis(op):
    data = random((3, 4, 5))
    # exclude: reduce every axis but 1, which onnxruntime spells axes=[0, 2].
    ours = run_relay(lambda x: op(x, axis=(1,), exclude=True), [data])
    assert_same(ours, run_onnx(REDUCTIONS[op], [data, np.array([0, 2], np.int64)], keepdims=0))
    # An empty axis list reduces nothing (ONNX: noop_with_empty_axes).
    ours = run_relay(lambda x: op(x, axis=()), [data])
    empty = np.zeros(0, np.int64)
    assert_same(ours, run_onnx(REDUCTIONS[op], [data, empty], keepdims=0, noop_with_empty_axes=1))
