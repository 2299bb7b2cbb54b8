"""NumPy semantics of ``relay.arange``, ``relay.one_hot`` and ``relay.trilu``."""

from __future__ import annotations

import math

import numpy as np


def arange_length(start: float, stop: float, step: float) -> int:
    """``max(ceil((stop - start) / step), 0)``, exact for integral bounds."""
    if all(float(v).is_integer() for v in (start, stop, step)):
        return max(-((int(start) - int(stop)) // int(step)), 0)
    return max(math.ceil((stop - start) / step), 0)


def arange(start: float, stop: float, step: float, dtype: str) -> np.ndarray:
    """Element ``i`` is ``start + i * step`` computed in ``dtype``."""
    i = np.arange(arange_length(start, stop, step))
    if np.issubdtype(np.dtype(dtype), np.integer):
        return (int(start) + i * int(step)).astype(dtype)
    return np.asarray(start, dtype) + i.astype(dtype) * np.asarray(step, dtype)


def one_hot(
    indices: np.ndarray, on_value: np.ndarray, off_value: np.ndarray, depth: int, axis: int = -1
) -> np.ndarray:
    """``on_value`` where the new axis' position equals the index (negative
    indices count from the end), ``off_value`` elsewhere."""
    axis %= indices.ndim + 1
    index = indices.astype(np.int64)
    index = np.where(index < 0, index + depth, index)
    positions = np.arange(depth).reshape((depth,) + (1,) * (indices.ndim - axis))
    hot = np.expand_dims(index, axis) == positions
    return np.where(hot, on_value, off_value).astype(on_value.dtype)


def trilu(data: np.ndarray, upper: bool = True, k: int = 0) -> np.ndarray:
    return np.triu(data, k) if upper else np.tril(data, k)


REFERENCES = {
    "relay.arange": lambda ins, attrs: arange(**attrs),
    "relay.one_hot": lambda ins, attrs: one_hot(*ins, **attrs),
    "relay.trilu": lambda ins, attrs: trilu(ins[0], **attrs),
}
