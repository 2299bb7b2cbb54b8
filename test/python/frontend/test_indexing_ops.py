"""Converters of GatherElements, GatherND, ScatterElements, Scatter and
ScatterND against onnxruntime, by the NumPy references and compiled; and
run-time indices out of range, which must never make a kernel access
memory outside its tensors."""

from __future__ import annotations

import numpy as np
import pytest
from shape_op_testing import check, run_compiled
from node_testing import node_model, randn
from onnx_testing import import_error

I64 = np.int64
INTS = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


@pytest.mark.parametrize(
    ("data_shape", "indices", "axis"),
    [
        ((3, 4), np.array([[0, -1], [2, 3], [-4, 1]]), 1),
        ((4, 3), np.array([[3, 0, 1], [-1, -2, 2]], np.int32), 0),
        ((2, 3, 4), np.array([[[1], [0], [2]]]), -2),
    ],
)
def test_gather_elements(data_shape, indices, axis):
    feeds = {"x": randn(*data_shape), "i": indices}
    model = node_model("GatherElements", ["x", "i"], feeds, axis=axis)
    check(model, feeds, ["relay.gather"])


@pytest.mark.parametrize(
    ("data", "indices", "batch_dims", "opset"),
    [
        (randn(2, 3, 4), np.array([[0, 1], [1, -1]]), 0, 11),
        (INTS, np.array([[[1, 2, 3]], [[0, 0, -1]]]), 0, 13),
        (randn(2, 3, 4), np.array([[1], [2]]), 1, 12),
        (randn(2, 3, 4), np.array([[[0, 1]], [[2, 3]]]), 1, 13),
    ],
)
def test_gather_nd(data, indices, batch_dims, opset):
    feeds = {"x": data, "i": indices}
    attrs = {"batch_dims": batch_dims} if batch_dims else {}
    model = node_model("GatherND", ["x", "i"], feeds, opset=opset, **attrs)
    ops = ["relay.gather_nd"] if indices.ndim == 1 else ["relay.transpose", "relay.gather_nd"]
    check(model, feeds, ops)


@pytest.mark.parametrize(
    ("reduction", "opset", "axis"),
    [
        ("none", 11, 0),
        ("none", 13, 1),
        ("add", 16, 1),
        ("mul", 16, 0),
        ("max", 18, -1),
        ("min", 18, 0),
    ],
)
def test_scatter_elements(reduction, opset, axis):
    feeds = {"x": randn(3, 4), "i": np.array([[1, 0, -1], [2, -3, 1]]), "u": randn(2, 3)}
    attrs = {"axis": axis} | ({} if reduction == "none" else {"reduction": reduction})
    model = node_model("ScatterElements", ["x", "i", "u"], feeds, opset=opset, **attrs)
    check(model, feeds, ["relay.scatter_elements"])


def test_scatter_elements_duplicates_keep_the_last_update():
    feeds = {"x": np.zeros(4, np.float32), "i": np.array([1, 1, 3, 1]), "u": randn(4)}
    model = node_model("ScatterElements", ["x", "i", "u"], feeds)
    want = np.array([0, feeds["u"][3], 0, feeds["u"][2]], np.float32)
    check(model, feeds, ["relay.scatter_elements"], expected=[want])


def test_scatter_opset_9():
    feeds = {"x": randn(3, 3), "i": np.array([[1, 0, 2], [0, 2, 1]]), "u": randn(2, 3)}
    model = node_model("Scatter", ["x", "i", "u"], feeds, opset=9)
    check(model, feeds, ["relay.scatter_elements"])


@pytest.mark.parametrize(
    ("indices", "updates_shape", "reduction", "opset"),
    [
        (np.array([[1], [-1]]), (2, 3, 2), "none", 11),
        (np.array([[0, 1], [2, -2]]), (2, 2), "add", 16),
        (np.array([[[0, 0, 1]], [[1, 2, 0]]]), (2, 1), "mul", 16),
        (np.array([[1], [0]]), (2, 3, 2), "max", 18),
        (np.array([[2, 1]]), (1, 2), "min", 18),
    ],
)
def test_scatter_nd(indices, updates_shape, reduction, opset):
    feeds = {"x": randn(3, 3, 2), "i": indices, "u": randn(*updates_shape)}
    attrs = {} if reduction == "none" else {"reduction": reduction}
    model = node_model("ScatterND", ["x", "i", "u"], feeds, opset=opset, **attrs)
    check(model, feeds, ["relay.transpose", "relay.scatter_nd"])


def test_reduction_needs_its_opset():
    feeds = {"x": randn(3), "i": np.array([0]), "u": randn(1)}
    model = node_model("ScatterElements", ["x", "i", "u"], feeds, opset=16, reduction="max")
    assert import_error(model) == (
        "node 'n' (ScatterElements, opset 16): attribute 'reduction' = 'max' is not "
        "supported: opset 16 allows none, add, mul"
    )


def test_out_of_range_indices_wrap_instead_of_escaping():
    """ONNX leaves out-of-range indices undefined; the kernels wrap them
    modulo the axis size, whatever their value."""
    data = np.arange(5, dtype=np.float32)
    far = np.array([7, -13, 2**40, -(2**62)], I64)
    gather = node_model("GatherElements", ["x", "i"], {"x": data, "i": far})
    (got,) = run_compiled(gather, {"x": data, "i": far})
    np.testing.assert_array_equal(got, data[far % 5])
    updates = np.full(4, 9, np.float32)
    feeds = {"x": data, "i": far, "u": updates}
    scatter = node_model("ScatterElements", ["x", "i", "u"], feeds)
    (got,) = run_compiled(scatter, feeds)
    want = data.copy()
    want[far % 5] = 9
    np.testing.assert_array_equal(got, want)
