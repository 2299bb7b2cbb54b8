"""Col2Im (scatter-add of constant positions, pads sliced off) against
onnxruntime: strides, dilations, pads, several channels and a batch."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model
from onnx_testing import import_error, run_ort


@pytest.mark.parametrize(
    ("shape", "image", "block", "attrs"),
    [
        ((2, 2 * 4, 16), [5, 5], [2, 2], {}),
        ((1, 3 * 4, 9), [5, 5], [2, 2], {"strides": [2, 2], "pads": [1, 0, 0, 1]}),
        ((2, 6, 6), [6, 5], [3, 1], {"dilations": [2, 1], "strides": [1, 2]}),
    ],
)
def test_col2im(shape, image, block, attrs):
    feeds = {"x": np.random.default_rng(3).standard_normal(shape).astype(np.float32)}
    inits = {"image": np.array(image, np.int64), "block": np.array(block, np.int64)}
    model = node_model("Col2Im", ["x", "image", "block"], feeds, inits, opset=18, **attrs)
    (got,) = run_compiled(model, feeds)
    (want,) = run_ort(model, feeds)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_col2im_column_count_is_checked():
    feeds = {"x": np.zeros((1, 4, 10), np.float32)}
    inits = {"image": np.array([5, 5], np.int64), "block": np.array([2, 2], np.int64)}
    model = node_model("Col2Im", ["x", "image", "block"], feeds, inits, opset=18)
    assert "expected [N, C * 4, 16]" in import_error(model)
