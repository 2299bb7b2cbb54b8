"""NumPy semantics of ``relay.take``, ``relay.strided_slice``,
``relay.gather`` and ``relay.gather_nd``."""

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




def gather(data: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """``out[p] = data[p with p[axis] = indices[p]]``, indices modulo the axis size."""
    axis %= data.ndim
    window = tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(indices.shape))
    index = np.mod(indices.astype(np.int64), max(data.shape[axis], 1))
    return np.take_along_axis(data[window], index, axis=axis)


def gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int = 0) -> np.ndarray:
    """TVM's ``gather_nd``: index tuples on the first axis of ``indices``,
    modulo the sizes of the axes they index."""
    m, outer = indices.shape[0], indices.shape[1:]
    tail = data.shape[batch_dims + m :]
    out = np.empty(outer + tail, data.dtype)
    sizes = np.array(data.shape[batch_dims : batch_dims + m], np.int64)
    for y in np.ndindex(*outer):
        tup = tuple(np.mod(indices[(slice(None), *y)].astype(np.int64), sizes))
        out[y] = data[(*y[:batch_dims], *tup)]
    return out


REFERENCES = {
    "relay.take": lambda ins, attrs: take(*ins, **attrs),
    "relay.strided_slice": lambda ins, attrs: strided_slice(ins[0], **attrs),
    "relay.gather": lambda ins, attrs: gather(*ins, attrs["axis"]),
    "relay.gather_nd": lambda ins, attrs: gather_nd(*ins, attrs["batch_dims"]),
}
