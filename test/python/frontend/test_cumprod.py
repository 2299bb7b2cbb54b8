"""CumProd → relay.cumprod (topi.cumprod) against NumPy: the NumPy
reference and the compiled module, every flag and several types.
onnxruntime has no CumProd kernel yet, so the expected values are NumPy's
running products."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_testing import run_compiled
from node_testing import node_model
from onnx_testing import op_names, run_relay

from xtvm.frontend.onnx import from_onnx

RNG = np.random.default_rng(7)


def _expected(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
    """Running products written out element by element (no shared code
    with the reference under test)."""
    x = np.moveaxis(x, axis, -1)
    out = np.empty_like(x)
    n = x.shape[-1]
    for i in range(n):
        span = range(i + 1, n) if reverse else range(i)
        if not exclusive:
            span = range(i, n) if reverse else range(i + 1)
        acc = np.ones(x.shape[:-1], x.dtype)
        for j in span:
            acc = acc * x[..., j]
        out[..., i] = acc
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize(
    ("dtype", "axis", "flags"),
    [
        (np.float32, 0, {}),
        (np.float32, -1, {"exclusive": 1}),
        (np.int64, 1, {"reverse": 1}),
        (np.int64, -1, {"exclusive": 1, "reverse": 1}),
        (np.float64, 2, {"exclusive": 1}),
    ],
)
def test_cumprod(dtype, axis, flags):
    x = RNG.integers(-3, 4, (3, 4, 2)).astype(dtype)
    feeds = {"x": x}
    model = node_model(
        "CumProd", ["x", "axis"], feeds, {"axis": np.array(axis, np.int64)}, opset=26, **flags
    )
    module, _ = from_onnx(model, freeze_params=True)
    assert "relay.cumprod" in op_names(module)
    want = _expected(x, axis % 3, bool(flags.get("exclusive")), bool(flags.get("reverse")))
    for got in (run_relay(module, feeds)[0], run_compiled(model, feeds)[0]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
