"""MaxUnpool (relay.full + scatter_elements + reshape, padded to
output_shape) against onnxruntime after a MaxPool that makes the indices,
and against a NumPy scatter for a larger output_shape (where onnx's
reference pads the unpooled tensor and onnxruntime does not)."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model, randn
from onnx import TensorProto, helper
from onnx_testing import import_error, make_model, run_ort, tensor


@pytest.mark.parametrize(
    ("shape", "attrs"),
    [
        ((2, 3, 6, 4), {"kernel_shape": [2, 2], "strides": [2, 2]}),
        ((1, 2, 9), {"kernel_shape": [3], "strides": [3]}),
        ((1, 1, 4, 4, 4), {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]}),
    ],
)
def test_maxpool_then_unpool(shape, attrs):
    # onnxruntime's MaxPool makes the indices (xtvm's gives them for 2-d only).
    pool = helper.make_node("MaxPool", ["x"], ["p", "i"], **attrs)
    pooled = make_model(
        [pool], [tensor("x", shape)], [tensor("p", []), tensor("i", [], TensorProto.INT64)], [], 22
    )
    p, i = run_ort(pooled, {"x": randn(*shape)})
    feeds = {"p": p, "i": i}
    model = node_model("MaxUnpool", ["p", "i"], feeds, opset=22, **attrs)
    (want,) = run_ort(model, feeds)
    (got,) = run_compiled(model, feeds)
    assert got.shape == shape
    np.testing.assert_array_equal(got, want)


def test_output_shape_pads_the_unpooled_tensor():
    x = randn(1, 2, 2, 2)
    idx = np.array([[[[0, 3], [9, 14]], [[1, 2], [12, 15]]]], np.int64)
    feeds = {"x": x, "i": idx}
    model = node_model(
        "MaxUnpool",
        ["x", "i", "s"],
        feeds,
        {"s": np.array([1, 2, 5, 6], np.int64)},
        opset=22,
        kernel_shape=[2, 2],
        strides=[2, 2],
    )
    flat = np.zeros(2 * 16, np.float32)
    flat[idx.ravel()] = x.ravel()  # flat positions in the unpooled 1x2x4x4
    want = np.pad(flat.reshape(1, 2, 4, 4), [(0, 0), (0, 0), (0, 1), (0, 2)])
    (got,) = run_compiled(model, feeds)
    np.testing.assert_array_equal(got, want)


def test_output_shape_smaller_than_unpooled_is_an_error():
    feeds = {"x": randn(1, 1, 2, 2), "i": np.zeros((1, 1, 2, 2), np.int64)}
    model = node_model(
        "MaxUnpool",
        ["x", "i", "s"],
        feeds,
        {"s": np.array([1, 1, 3, 3], np.int64)},
        opset=22,
        kernel_shape=[2, 2],
        strides=[2, 2],
    )
    assert "must be at least the unpooled shape [1, 1, 4, 4]" in import_error(model)
