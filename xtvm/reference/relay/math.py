"""NumPy semantics of the unary maths of ``relay.math``: rounding, sign,
trigonometric and hyperbolic functions, erf and float classification."""

from __future__ import annotations

import math

import numpy as np


def sign(x: np.ndarray) -> np.ndarray:
    """``-1``, ``0`` or ``1``; NaN stays NaN (NumPy's ``sign``)."""
    return np.sign(x).astype(x.dtype)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function (``math.erf`` per element, in float64)."""
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _same(fn):
    """A NumPy ufunc on the input, cast back to its dtype."""

    def reference(ins, attrs):
        with np.errstate(invalid="ignore", divide="ignore"):  # NaN and inf are results
            return fn(ins[0]).astype(ins[0].dtype)

    return reference


REFERENCES = {
    "relay.floor": _same(np.floor),
    "relay.ceil": _same(np.ceil),
    "relay.round": _same(np.round),  # halves to even
    "relay.trunc": _same(np.trunc),
    "relay.sign": lambda ins, attrs: sign(ins[0]),
    "relay.sin": _same(np.sin),
    "relay.cos": _same(np.cos),
    "relay.tan": _same(np.tan),
    "relay.asin": _same(np.arcsin),
    "relay.acos": _same(np.arccos),
    "relay.atan": _same(np.arctan),
    "relay.sinh": _same(np.sinh),
    "relay.cosh": _same(np.cosh),
    "relay.asinh": _same(np.arcsinh),
    "relay.acosh": _same(np.arccosh),
    "relay.atanh": _same(np.arctanh),
    "relay.erf": lambda ins, attrs: erf(ins[0]),
    "relay.isnan": lambda ins, attrs: np.isnan(ins[0]),
    "relay.isinf": lambda ins, attrs: np.isinf(ins[0]),
    "relay.isfinite": lambda ins, attrs: np.isfinite(ins[0]),
}
