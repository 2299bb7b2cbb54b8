"""Converters of the window functions and MelWeightMatrix against
onnxruntime: sizes fed as graph inputs, which the backend specializes on,
so the window is computed by the compiled module."""

from __future__ import annotations

import numpy as np
import pytest
from node_testing import node_model
from onnx import TensorProto
from onnx_testing import import_error, run_ort

from xtvm.frontend.onnx.backend import XtvmBackend


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize(
    ("size", "dtype"), [(10, TensorProto.FLOAT), (7, TensorProto.DOUBLE), (1, TensorProto.FLOAT)]
)
def test_window(op, periodic, size, dtype):
    feeds = {"size": np.array(size, np.int64)}
    model = node_model(op, ["size"], feeds, opset=17, periodic=periodic, output_datatype=dtype)
    model.graph.output[0].type.tensor_type.elem_type = dtype  # not inferred from a fed size
    (actual,) = XtvmBackend.prepare(model).run(list(feeds.values()))
    (expected,) = run_ort(model, feeds)
    assert actual.dtype == expected.dtype and actual.shape == (size,)
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("bins", "dft", "rate", "low", "high"),
    [(8, 16, 8192, 0.0, 4096.0), (5, 32, 16000, 100.0, 7000.0)],
)
def test_mel_weight_matrix(bins, dft, rate, low, high):
    feeds = {
        "bins": np.array(bins, np.int64),
        "dft": np.array(dft, np.int64),
        "rate": np.array(rate, np.int64),
        "low": np.array(low, np.float32),
        "high": np.array(high, np.float32),
    }
    model = node_model("MelWeightMatrix", list(feeds), feeds, opset=17)
    (actual,) = XtvmBackend.prepare(model).run(list(feeds.values()))
    (expected,) = run_ort(model, feeds)
    assert actual.shape == (dft // 2 + 1, bins)
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


def test_window_size_must_be_positive():
    feeds = {"size": np.array(0, np.int64)}
    model = node_model("HannWindow", ["size"], {}, {"size": feeds["size"]}, opset=17)
    assert "must be >= 1" in import_error(model)
