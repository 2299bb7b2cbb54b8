"""NumPy semantics of ``relay.topk``, ``relay.cumsum`` and ``relay.cumprod``."""

from __future__ import annotations

import numpy as np


def topk(data: np.ndarray, k: int, axis: int = -1, is_ascend: bool = False) -> list[np.ndarray]:
    """The ``k`` largest (smallest with ``is_ascend``) elements along
    ``axis``, sorted, and their ``int64`` positions; equal values keep their
    order (a stable sort)."""
    if is_ascend:
        order = np.argsort(data, axis=axis, kind="stable")
    else:
        # A stable ascending sort of the reversed axis, reversed, is a
        # descending sort whose ties keep the lower position first.
        n = data.shape[axis]
        order = np.flip(n - 1 - np.argsort(np.flip(data, axis), axis=axis, kind="stable"), axis)
    indices = np.take(order, np.arange(k), axis=axis).astype(np.int64)
    return [np.take_along_axis(data, indices, axis=axis), indices]


def cumsum(
    x: np.ndarray, axis: int = 0, exclusive: bool = False, reverse: bool = False
) -> np.ndarray:
    """Running sums along ``axis``, without the element itself with
    ``exclusive``, from the end with ``reverse``. The exclusive sums are
    the inclusive ones shifted by one (a leading 0), not ``cumsum - x``,
    which is NaN after an infinity (``inf - inf``)."""
    return _scan(np.cumsum, 0, x, axis, exclusive, reverse)


def cumprod(
    x: np.ndarray, axis: int = 0, exclusive: bool = False, reverse: bool = False
) -> np.ndarray:
    """Running products, as :func:`cumsum` (the exclusive ones lead with 1)."""
    return _scan(np.cumprod, 1, x, axis, exclusive, reverse)


def _scan(scan, identity: int, x: np.ndarray, axis: int, exclusive: bool, reverse: bool):
    """``scan`` (``np.cumsum``/``np.cumprod``) along ``axis``, reversed
    and/or shifted by one ``identity`` element."""
    if reverse:
        x = np.flip(x, axis)
    out = scan(x, axis=axis, dtype=x.dtype)
    n = x.shape[axis]
    if exclusive and n:
        head = np.full_like(np.take(out, [0], axis=axis), identity)
        out = np.concatenate([head, np.take(out, np.arange(n - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


REFERENCES = {
    "relay.topk": lambda ins, attrs: topk(ins[0], **attrs),
    "relay.cumsum": lambda ins, attrs: cumsum(ins[0], **attrs),
    "relay.cumprod": lambda ins, attrs: cumprod(ins[0], **attrs),
}
