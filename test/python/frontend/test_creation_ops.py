"""Converters of Range, OneHot, Trilu, EyeLike and Size against
onnxruntime, by the NumPy references and compiled."""

from __future__ import annotations

import numpy as np
import pytest
from shape_op_testing import check, run_compiled
from node_testing import node_model, randn
from onnx import TensorProto
from onnx_testing import import_error, op_names

from xtvm.frontend import from_onnx


@pytest.mark.parametrize(
    ("start", "limit", "delta"),
    [
        (np.int64(1), np.int64(10), np.int64(3)),
        (np.int32(10), np.int32(6), np.int32(-3)),
        (np.float32(0.5), np.float32(-1.0), np.float32(-0.25)),
        (np.float64(1.0), np.float64(1.0), np.float64(2.0)),  # empty
    ],
)
def test_range(start, limit, delta):
    """Bounds given at run time compile to ``relay.arange``, specialized on their values."""
    feeds = {"s": np.array(start), "l": np.array(limit), "d": np.array(delta)}
    want = [np.arange(start, limit, delta, dtype=np.asarray(start).dtype)]
    model = node_model("Range", ["s", "l", "d"], feeds, opset=11)
    module, _ = from_onnx(model, input_values=feeds)
    assert "relay.arange" in op_names(module)
    got = run_compiled(model, feeds)
    assert got[0].dtype == want[0].dtype
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)


def test_range_of_constant_bounds_folds():
    inits = {"s": np.array(2), "l": np.array(9), "d": np.array(3)}
    model = node_model("Range", ["s", "l", "d"], {}, inits, opset=11)
    check(model, {}, ["relay.const"], expected=[np.array([2, 5, 8])])


def test_range_of_a_graph_input_bound_is_computed_at_run_time():
    # docs/data-dependent-ops.md: the length is a shape function's result.
    inits = {"l": np.array(2.0, np.float32), "d": np.array(1.0, np.float32)}
    model = node_model("Range", ["s", "l", "d"], {"s": np.array(0.0, np.float32)}, inits, opset=11)
    assert op_names(from_onnx(model)[0]) == ["relay.dyn.arange_shape", "relay.dyn.arange"]


@pytest.mark.parametrize(
    ("indices", "axis", "opset"),
    [
        (np.array([[0, 3], [-1, 7]]), -1, 9),
        (np.array([1, -4, 9, -6], np.int32), 0, 11),
        (np.array([[1.0, 3.9], [-2.0, 0.0]], np.float32), 1, 11),  # truncated to integers
    ],
)
def test_one_hot(indices, axis, opset):
    feeds = {"i": indices, "v": np.array([-1.0, 2.5], np.float32)}
    inits = {"d": np.array(5.0, np.float32)}
    model = node_model("OneHot", ["i", "d", "v"], feeds, inits, opset=opset, axis=axis)
    slices = ["relay.strided_slice", "relay.reshape"] * 2
    ops = [*slices, "relay.one_hot"]
    if indices.dtype.kind == "f":
        ops.insert(0, "relay.cast")
    check(model, feeds, ops)


@pytest.mark.parametrize(("upper", "k"), [(1, 0), (0, 0), (1, -1), (0, 2), (1, 5)])
def test_trilu(upper, k):
    feeds = {"x": randn(2, 3, 4)}
    model = node_model("Trilu", ["x", "k"], feeds, {"k": np.array(k)}, opset=14, upper=upper)
    check(model, feeds, ["relay.trilu"])


def test_trilu_default_k():
    feeds = {"x": np.arange(12, dtype=np.int64).reshape(3, 4)}
    model = node_model("Trilu", ["x"], feeds, opset=14, upper=0)
    check(model, feeds, ["relay.trilu"])


@pytest.mark.parametrize(
    ("shape", "k", "dtype"),
    [((3, 3), 0, None), ((3, 5), 2, TensorProto.DOUBLE), ((4, 2), -1, TensorProto.INT32)],
)
def test_eye_like(shape, k, dtype):
    feeds = {"x": randn(*shape)}
    attrs = {"k": k} | ({} if dtype is None else {"dtype": dtype})
    model = node_model("EyeLike", ["x"], feeds, opset=9, **attrs)
    check(model, feeds, ["relay.const", "relay.const", "relay.const", "relay.one_hot"])


def test_size_is_a_constant():
    feeds = {"x": randn(3, 4, 5)}
    model = node_model("Size", ["x"], feeds)
    check(model, feeds, ["relay.const"])
