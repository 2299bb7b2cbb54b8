"""NumPy semantics of the pools on channel-first data with any number of
spatial axes, matching onnxruntime's ``MaxPool``/``AveragePool``
(``ceil_mode``, ``count_include_pad``, dilation)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np


def _output_size(
    size: int, before: int, after: int, window: int, stride: int, dilation: int, ceil_mode: bool
) -> int:
    """Window positions along an axis; with ``ceil_mode`` a last partial window
    counts unless it would start in the trailing padding (ONNX rule)."""
    span = (window - 1) * dilation + 1
    if not ceil_mode:
        excess = size + before + after - span  # a window larger than the padded input:
        return (excess // stride if excess >= 0 else -(-excess // stride)) + 1  # toward 0
    out = math.ceil((size + before + after - span) / stride) + 1
    return out - 1 if (out - 1) * stride >= size + before else out


def _windows(
    x: np.ndarray,
    pool_size: Sequence[int],
    strides: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    pad_value: float,
    overhang_value: float,
) -> np.ndarray:
    """``[N, C, prod(window), *out]``: every window element of every output
    position. Positions in ``padding`` hold ``pad_value``; those a
    ``ceil_mode`` window reaches beyond the padding hold ``overhang_value``."""
    n = len(pool_size)
    spatial = x.shape[2:]
    before, after = padding[:n], padding[n:]
    geometry = list(zip(spatial, before, after, pool_size, strides, dilation))
    out = [_output_size(*axis, ceil_mode) for axis in geometry]
    # Pad enough for the last window in ceil mode, too.
    extra = [
        max(0, (m - 1) * s + (k - 1) * d + 1 - (size + b + a))
        for m, (size, b, a, k, s, d) in zip(out, geometry)
    ]
    xp = np.pad(x, [(0, 0), (0, 0), *zip(before, after)], constant_values=pad_value)
    xp = np.pad(xp, [(0, 0), (0, 0), *((0, e) for e in extra)], constant_values=overhang_value)
    slices = []
    for offset in itertools.product(*(range(k) for k in pool_size)):
        index = tuple(
            slice(o * d, o * d + s * (m - 1) + 1, s) if m > 0 else slice(0, 0)
            for o, d, s, m in zip(offset, dilation, strides, out)
        )
        slices.append(xp[(slice(None), slice(None), *index)])
    return np.stack(slices, axis=2)


_GEOMETRY = ("pool_size", "strides", "dilation", "padding", "ceil_mode")


def _geometry(attrs: dict) -> dict:
    """The window attributes of a pool (the op's, defaults included)."""
    return {name: attrs[name] for name in _GEOMETRY}


def max_pool(data: np.ndarray, **attrs) -> np.ndarray:
    """Window maximum; padding is the dtype's lowest value, so it never wins."""
    lowest = -np.inf if np.issubdtype(data.dtype, np.floating) else np.iinfo(data.dtype).min
    geometry = _geometry(attrs)
    return _windows(data, *geometry.values(), lowest, lowest).max(axis=2).astype(data.dtype)


def max_pool_with_argmax(
    data: np.ndarray, column_major: bool = False, **attrs
) -> list[np.ndarray]:
    """:func:`max_pool` and the ``int64`` position of each window's first
    maximum in the flattened input (row-major, or with ``column_major`` the
    spatial axes in reverse order)."""
    lowest = -np.inf if np.issubdtype(data.dtype, np.floating) else np.iinfo(data.dtype).min
    geometry = tuple(_geometry(attrs).values())
    windows = _windows(data, *geometry, lowest, lowest)
    order = np.arange(data.size, dtype=np.float64).reshape(data.shape)
    if column_major:
        flipped = order.reshape(*data.shape[:2], *data.shape[:1:-1])
        order = flipped.transpose(0, 1, *reversed(range(2, data.ndim)))
    positions = _windows(order, *geometry, -1.0, -1.0)
    first = np.expand_dims(np.argmax(windows, axis=2), 2)
    indices = np.take_along_axis(positions, first, axis=2)[:, :, 0].astype(np.int64)
    return [windows.max(axis=2).astype(data.dtype), indices]


def avg_pool(data: np.ndarray, count_include_pad: bool = False, **attrs) -> np.ndarray:
    """Window mean. The divisor counts the window's elements in the data, or
    with ``count_include_pad`` in data and padding (not the ``ceil_mode``
    overhang beyond the padding)."""
    geometry = tuple(_geometry(attrs).values())
    sums = _windows(data.astype(np.float64), *geometry, 0.0, 0.0).sum(axis=2)
    ones = np.ones((1, 1, *data.shape[2:]))
    counts = _windows(ones, *geometry, 1.0 if count_include_pad else 0.0, 0.0).sum(axis=2)
    return (sums / counts).astype(data.dtype)


def global_max_pool2d(data: np.ndarray) -> np.ndarray:
    return data.max(axis=(2, 3), keepdims=True)


def global_avg_pool2d(data: np.ndarray) -> np.ndarray:
    return data.mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(data.dtype)


REFERENCES = {
    **{
        f"relay.nn.max_pool{n}d": lambda ins, attrs: max_pool(ins[0], **attrs)
        for n in (1, 2, 3)
    },
    **{
        f"relay.nn.avg_pool{n}d": lambda ins, attrs: avg_pool(ins[0], **attrs)
        for n in (1, 2, 3)
    },
    "relay.nn.max_pool2d_with_argmax": lambda ins, attrs: max_pool_with_argmax(ins[0], **attrs),
    "relay.nn.global_max_pool2d": lambda ins, attrs: global_max_pool2d(ins[0]),
    "relay.nn.global_avg_pool2d": lambda ins, attrs: global_avg_pool2d(ins[0]),
}
