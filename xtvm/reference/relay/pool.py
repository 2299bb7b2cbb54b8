"""NumPy semantics of the 2-d pools (NCHW), matching onnxruntime's
``MaxPool``/``AveragePool`` (``ceil_mode``, ``count_include_pad``, dilation)."""

from __future__ import annotations

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
        return (size + before + after - span) // stride + 1
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
    """``[N, C, KH * KW, OH, OW]``: every window element of every output
    position. Positions in ``padding`` hold ``pad_value``; those a
    ``ceil_mode`` window reaches beyond the padding hold ``overhang_value``."""
    _, _, h, w = x.shape
    (kh, kw), (sh, sw), (dh, dw) = pool_size, strides, dilation
    top, left, bottom, right = padding
    oh = _output_size(h, top, bottom, kh, sh, dh, ceil_mode)
    ow = _output_size(w, left, right, kw, sw, dw, ceil_mode)
    # Pad enough for the last window in ceil mode, too.
    extra_h = max(0, (oh - 1) * sh + (kh - 1) * dh + 1 - (h + top + bottom))
    extra_w = max(0, (ow - 1) * sw + (kw - 1) * dw + 1 - (w + left + right))
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=pad_value)
    xp = np.pad(xp, ((0, 0), (0, 0), (0, extra_h), (0, extra_w)), constant_values=overhang_value)
    return np.stack(
        [
            xp[
                :,
                :,
                ky * dh : ky * dh + sh * (oh - 1) + 1 : sh,
                kx * dw : kx * dw + sw * (ow - 1) + 1 : sw,
            ]
            for ky in range(kh)
            for kx in range(kw)
        ],
        axis=2,
    )


def max_pool2d(
    data: np.ndarray,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
) -> np.ndarray:
    """Window maximum; padding is the dtype's lowest value, so it never wins."""
    lowest = -np.inf if np.issubdtype(data.dtype, np.floating) else np.iinfo(data.dtype).min
    windows = _windows(data, pool_size, strides, dilation, padding, ceil_mode, lowest, lowest)
    return windows.max(axis=2).astype(data.dtype)


def avg_pool2d(
    data: np.ndarray,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> np.ndarray:
    """Window mean. The divisor counts the window's elements in the data, or
    with ``count_include_pad`` in data and padding (not the ``ceil_mode``
    overhang beyond the padding)."""
    geometry = (pool_size, strides, dilation, padding, ceil_mode)
    sums = _windows(data.astype(np.float64), *geometry, 0.0, 0.0).sum(axis=2)
    ones = np.ones((1, 1, *data.shape[2:]))
    counts = _windows(ones, *geometry, 1.0 if count_include_pad else 0.0, 0.0).sum(axis=2)
    return (sums / counts).astype(data.dtype)


def global_max_pool2d(data: np.ndarray) -> np.ndarray:
    return data.max(axis=(2, 3), keepdims=True)


def global_avg_pool2d(data: np.ndarray) -> np.ndarray:
    return data.mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(data.dtype)


_WINDOW = ("pool_size", "strides", "dilation", "padding", "ceil_mode")

REFERENCES = {
    "relay.nn.max_pool2d": lambda ins, attrs: max_pool2d(
        ins[0], **{k: attrs[k] for k in _WINDOW if k in attrs}
    ),
    "relay.nn.avg_pool2d": lambda ins, attrs: avg_pool2d(
        ins[0], **{k: attrs[k] for k in (*_WINDOW, "count_include_pad") if k in attrs}
    ),
    "relay.nn.global_max_pool2d": lambda ins, attrs: global_max_pool2d(ins[0]),
    "relay.nn.global_avg_pool2d": lambda ins, attrs: global_avg_pool2d(ins[0]),
}
