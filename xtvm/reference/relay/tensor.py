"""NumPy semantics of elementwise maths, ``relay.cast`` and ``relay.shape_of``."""

from __future__ import annotations

import math

import numpy as np


def divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """True division for floats; truncation toward zero for integers (as C and TVM)."""
    if np.issubdtype(lhs.dtype, np.integer):
        return (np.trunc(lhs / rhs)).astype(lhs.dtype)
    return np.divide(lhs, rhs).astype(lhs.dtype)


def _same(fn):
    """An elementwise NumPy function applied to ``ins``, cast back to the first
    input's dtype (NumPy would promote, relay ops keep their dtype)."""
    return lambda ins, attrs: fn(*ins).astype(ins[0].dtype)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))``, written to avoid overflow for large ``|x|``."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


def _int_bound(bound: float, info: np.iinfo, rounding) -> int:
    """A float bound as an integer of ``info``'s dtype: rounded inward, saturated."""
    if math.isinf(bound):
        return info.max if bound > 0 else info.min
    return min(max(rounding(bound), info.min), info.max)


def clip(x: np.ndarray, a_min: float, a_max: float) -> np.ndarray:
    """``min(max(x, a_min), a_max)`` with the bounds converted to ``x``'s dtype
    (for integers: rounded inward and saturated to the dtype's range)."""
    if np.issubdtype(x.dtype, np.integer):
        info = np.iinfo(x.dtype)
        a_min, a_max = _int_bound(a_min, info, math.ceil), _int_bound(a_max, info, math.floor)
    lo, hi = np.asarray(a_min).astype(x.dtype), np.asarray(a_max).astype(x.dtype)
    return np.minimum(np.maximum(x, lo), hi)


def cast(x: np.ndarray, dtype: str) -> np.ndarray:
    """Conversion to ``dtype``; float → int truncates toward zero."""
    return x.astype(dtype)


REFERENCES = {
    "relay.add": lambda ins, attrs: np.add(*ins).astype(ins[0].dtype),
    "relay.subtract": lambda ins, attrs: np.subtract(*ins).astype(ins[0].dtype),
    "relay.multiply": lambda ins, attrs: np.multiply(*ins).astype(ins[0].dtype),
    "relay.divide": lambda ins, attrs: divide(*ins),
    "relay.maximum": _same(np.maximum),
    "relay.minimum": _same(np.minimum),
    "relay.power": _same(np.power),
    "relay.sigmoid": lambda ins, attrs: sigmoid(ins[0]),
    "relay.tanh": _same(np.tanh),
    "relay.exp": _same(np.exp),
    "relay.sqrt": _same(np.sqrt),
    "relay.log": _same(np.log),
    "relay.negative": _same(np.negative),
    "relay.abs": _same(np.abs),
    "relay.clip": lambda ins, attrs: clip(ins[0], attrs["a_min"], attrs["a_max"]),
    "relay.cast": lambda ins, attrs: cast(ins[0], attrs["dtype"]),
    "relay.shape_of": lambda ins, attrs: np.array(ins[0].shape, attrs.get("dtype", "int64")),
}
