"""NumPy semantics of comparisons, logical and bitwise ops, shifts and
``relay.where``."""

from __future__ import annotations

import numpy as np


def _out_of_range(shift: np.ndarray, bits: int) -> np.ndarray:
    return (shift < 0) | (shift >= bits)


def left_shift(x: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``x << shift``, bits shifted out lost; a shift out of ``[0, bits)``
    gives 0."""
    bits = 8 * x.dtype.itemsize
    x, shift = np.broadcast_arrays(x, shift)
    safe = np.where(_out_of_range(shift, bits), 0, shift).astype(x.dtype)
    shifted = np.left_shift(x, safe).astype(x.dtype)
    return np.where(_out_of_range(shift, bits), np.zeros_like(x), shifted)


def right_shift(x: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``x >> shift`` (arithmetic for signed, logical for unsigned dtypes); a
    shift out of ``[0, bits)`` shifts every bit out (0, or -1 below zero)."""
    bits = 8 * x.dtype.itemsize
    x, shift = np.broadcast_arrays(x, shift)
    fill = bits - 1 if np.issubdtype(x.dtype, np.signedinteger) else 0
    amount = np.where(_out_of_range(shift, bits), fill, shift).astype(x.dtype)
    shifted = np.right_shift(x, amount).astype(x.dtype)
    if np.issubdtype(x.dtype, np.signedinteger):
        return shifted
    return np.where(_out_of_range(shift, bits), np.zeros_like(x), shifted)


def _same(fn):
    """A binary NumPy function keeping the first input's dtype."""
    return lambda ins, attrs: fn(*ins).astype(ins[0].dtype)


def _compare(fn):
    return lambda ins, attrs: np.asarray(fn(*ins), dtype=bool)


REFERENCES = {
    "relay.equal": _compare(np.equal),
    "relay.not_equal": _compare(np.not_equal),
    "relay.less": _compare(np.less),
    "relay.less_equal": _compare(np.less_equal),
    "relay.greater": _compare(np.greater),
    "relay.greater_equal": _compare(np.greater_equal),
    "relay.logical_and": _compare(np.logical_and),
    "relay.logical_or": _compare(np.logical_or),
    "relay.logical_xor": _compare(np.logical_xor),
    "relay.logical_not": lambda ins, attrs: np.logical_not(ins[0]),
    "relay.bitwise_and": _same(np.bitwise_and),
    "relay.bitwise_or": _same(np.bitwise_or),
    "relay.bitwise_xor": _same(np.bitwise_xor),
    "relay.bitwise_not": lambda ins, attrs: np.invert(ins[0]),
    "relay.left_shift": lambda ins, attrs: left_shift(*ins),
    "relay.right_shift": lambda ins, attrs: right_shift(*ins),
    "relay.where": lambda ins, attrs: np.where(*ins).astype(ins[1].dtype),
}
