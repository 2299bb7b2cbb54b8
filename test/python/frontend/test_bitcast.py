"""BitCast → relay.reinterpret against NumPy's ``view`` (onnxruntime has
no BitCast kernel yet): the NumPy reference and the compiled module, for
float ↔ int of 16, 32 and 64 bits (NaN and infinity patterns included),
signedness changes and bool → uint8."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model
from onnx import helper
from onnx_testing import import_error, op_names, run_relay

from xtvm.frontend.onnx import from_onnx

RNG = np.random.default_rng(11)


def _input(dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return RNG.integers(0, 2, (2, 5)).astype(bool)
    if np.issubdtype(dtype, np.floating):
        x = RNG.standard_normal((2, 5)).astype(dtype)
        x.flat[:3] = [np.inf, -0.0, np.nan]
        return x
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, (2, 5), dtype=dtype, endpoint=True)


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        (np.float32, np.int32),
        (np.int32, np.float32),
        (np.float64, np.uint64),
        (np.int64, np.float64),
        (np.float16, np.int16),
        (np.uint32, np.int32),
        (np.int8, np.uint8),
        (np.bool_, np.uint8),
    ],
)
def test_bitcast(src, dst):
    x = _input(np.dtype(src))
    feeds = {"x": x}
    to = helper.np_dtype_to_tensor_dtype(np.dtype(dst))
    model = node_model("BitCast", ["x"], feeds, opset=26, to=to)
    module, _ = from_onnx(model, freeze_params=True)
    assert op_names(module) == ["relay.reinterpret"]
    want = x.view(dst)
    for got in (run_relay(module, feeds)[0], run_compiled(model, feeds)[0]):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_bitcast_width_mismatch_is_an_error():
    feeds = {"x": np.zeros(3, np.float32)}
    to = helper.np_dtype_to_tensor_dtype(np.dtype(np.int64))
    model = node_model("BitCast", ["x"], feeds, opset=26, to=to)
    assert "the widths must be equal" in import_error(model)
