"""float16 matmul, dense and convolution sum their products in float32 and
round once (``topi.nn.accumulator_dtype``), as NumPy's float16 matmul does
— which ONNX's reference uses for MatMul, Conv and Attention. A float16
running sum rounds at every addition: over 64 products most results end
an ulp or more away, so these bitwise comparisons fail without it."""

from __future__ import annotations

import numpy as np
from topi_testing import run_te

from xtvm import te, topi

RNG = np.random.default_rng(5)
K = 64


def _half(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float16)


def _rounded_once(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` summed in float32, rounded to float16 once."""
    return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)


def test_matmul_float16_rounds_once():
    a, b = _half(2, 8, K), _half(K, 8)
    ta, tb = te.placeholder(a.shape, "float16", "a"), te.placeholder(b.shape, "float16", "b")
    out = topi.matmul(ta, tb)
    assert out.dtype == "float16"
    (got,) = run_te([ta, tb, out], [a, b])
    want = _rounded_once(a, b)
    assert (want != (a @ b)).sum() == 0  # NumPy's float16 matmul is this
    np.testing.assert_array_equal(got, want)


def test_dense_float16_rounds_once():
    x, w = _half(6, K), _half(5, K)
    tx, tw = te.placeholder(x.shape, "float16", "x"), te.placeholder(w.shape, "float16", "w")
    (got,) = run_te([tx, tw, topi.dense(tx, tw)], [x, w])
    np.testing.assert_array_equal(got, _rounded_once(x, w.T))


def test_conv1d_float16_rounds_once():
    x, w = _half(1, 16, 10), _half(3, 16, 4)  # 64 products per output
    tx, tw = te.placeholder(x.shape, "float16", "x"), te.placeholder(w.shape, "float16", "w")
    (got,) = run_te([tx, tw, topi.conv(tx, tw, [1], [0, 0], [1])], [x, w])
    cols = np.stack([x[0, :, t : t + 4].reshape(-1) for t in range(7)], 1)  # [64, 7]
    want = _rounded_once(w.reshape(3, -1), cols)[None]
    np.testing.assert_array_equal(got, want)
