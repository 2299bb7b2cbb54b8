"""Converters of the window functions and MelWeightMatrix against
onnxruntime: sizes fed as graph inputs, which the backend specializes on,
so the window is computed by the compiled module."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled as run_compiled_model
from node_testing import node_model
from onnx import TensorProto
from onnx_testing import import_error, run_ort

from xtvm.frontend.onnx.backend import XtvmBackend


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize(
    ("size", "dtype"), [(10, TensorProto.FLOAT), (7, TensorProto.DOUBLE)]
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


def _complex(x: np.ndarray) -> np.ndarray:
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]


@pytest.mark.parametrize(
    ("shape", "axis", "attrs", "length"),
    [
        ((2, 8, 3, 1), 1, {}, None),
        ((2, 8, 3, 2), 2, {}, 5),
        ((2, 7, 3, 2), 1, {"inverse": 1}, 9),
        ((3, 9, 1), 1, {"onesided": 1}, None),
        ((2, 5, 4, 2), 1, {"inverse": 1, "onesided": 1}, 8),
    ],
)
def test_dft(shape, axis, attrs, length):
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    inits = {"axis": np.array(axis, np.int64)}
    inputs = ["x", "", "axis"]
    if length is not None:
        inits["n"] = np.array(length, np.int64)
        inputs[1] = "n"
    model = node_model("DFT", inputs, {"x": x}, inits, opset=20, **attrs)
    (got,) = run_compiled_model(model, {"x": x})
    signal = _complex(x.astype(np.float64))
    n = length or (2 * (shape[axis] - 1) if attrs == {"inverse": 1, "onesided": 1} else shape[axis])
    if attrs.get("inverse") and attrs.get("onesided"):
        want = np.fft.irfft(signal, n=n, axis=axis)[..., None]
    else:
        fft = np.fft.ifft if attrs.get("inverse") else np.fft.fft
        y = fft(signal, n=n, axis=axis)
        if attrs.get("onesided"):
            y = np.take(y, np.arange(n // 2 + 1), axis=axis)
        want = np.stack([y.real, y.imag], axis=-1)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("windowed", [False, True])
def test_stft(windowed):
    signal = np.random.default_rng(4).standard_normal((2, 40, 1)).astype(np.float32)
    window = np.hanning(12).astype(np.float32)
    inits = {"step": np.array(5, np.int64), "len": np.array(12, np.int64)}
    inputs = ["x", "step", "", "len"]
    if windowed:
        inits["w"] = window
        inputs[2] = "w"
    model = node_model("STFT", inputs, {"x": signal}, inits, opset=17)
    (got,) = run_compiled_model(model, {"x": signal})
    frames = np.stack([signal[:, f * 5 : f * 5 + 12, 0] for f in range(6)], axis=1)
    if windowed:
        frames = frames * window
    y = np.fft.rfft(frames.astype(np.float64), axis=-1)
    want = np.stack([y.real, y.imag], axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    (ort,) = run_ort(model, {"x": signal})
    np.testing.assert_allclose(got, ort, rtol=1e-4, atol=1e-4)
