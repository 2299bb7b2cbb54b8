"""NumPy semantics of ``relay.take`` and ``relay.strided_slice``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def take(
    data: np.ndarray, indices: np.ndarray, axis: int | None = None, mode: str = "clip"
) -> np.ndarray:
    """Entries of ``data`` at ``indices`` along ``axis`` (flattened data when
    ``axis`` is None); ``"clip"`` clamps indices to the axis, ``"wrap"`` takes
    them modulo its size."""
    if axis is None:
        data, axis = data.reshape(-1), 0
    size = data.shape[axis]
    index = np.clip(indices, 0, size - 1) if mode == "clip" else np.mod(indices, size)
    return np.take(data, index, axis=axis)


def _slice(size: int, begin: int, end: int, stride: int) -> slice:
    """The Python slice of ONNX ``Slice`` bounds: negative values count from
    the end, then are clamped to the axis (``[-1, size - 1]`` for ``end``
    with a negative stride, where -1 means "before the first element")."""
    begin = begin + size if begin < 0 else begin
    end = end + size if end < 0 else end
    if stride > 0:
        return slice(min(max(begin, 0), size), min(max(end, 0), size), stride)
    begin, end = min(max(begin, 0), size - 1), min(max(end, -1), size - 1)
    return slice(begin, None if end < 0 else end, stride)


def strided_slice(
    x: np.ndarray,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
) -> np.ndarray:
    strides = strides or [1] * len(begin)
    axes = range(len(begin)) if axes is None else axes
    index = [slice(None)] * x.ndim
    for axis, b, e, s in zip(axes, begin, end, strides):
        index[axis % x.ndim] = _slice(x.shape[axis % x.ndim], b, e, s)
    return x[tuple(index)]


REFERENCES = {
    "relay.take": lambda ins, attrs: take(*ins, **attrs),
    "relay.strided_slice": lambda ins, attrs: strided_slice(ins[0], **attrs),
}
