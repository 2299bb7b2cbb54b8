"""NumPy semantics of ``relay.image.resize1d/2d/3d`` (see
``xtvm.dialects.relay.image`` for the coordinate modes and methods),
computed in float64 one spatial axis at a time."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def source_coordinates(
    mode: str, out_size: int, in_size: int, scale: float, roi: tuple[float, float]
) -> np.ndarray:
    """The input coordinate of each output position along one axis."""
    x = np.arange(out_size, dtype=np.float64)
    length = in_size * scale
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = in_size / 2 * (1 - out_size / length)
        return offset + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return np.full(out_size, -0.5) if length == 1 else (x + 0.5) / scale - 0.5
    if mode == "align_corners":
        return np.zeros(out_size) if length == 1 else x * (in_size - 1) / (length - 1)
    if mode == "asymmetric":
        return x / scale
    start, end = roi
    if length == 1:
        return np.full(out_size, (end - start) * (in_size - 1) / 2 + start * (in_size - 1))
    return start * (in_size - 1) + x * (end - start) * (in_size - 1) / (length - 1)


def nearest_index(x: np.ndarray, rounding_method: str) -> np.ndarray:
    """``x`` rounded to an integer position by ``rounding_method``."""
    if rounding_method == "round_prefer_floor":
        return np.ceil(x - 0.5)
    if rounding_method == "round_prefer_ceil":
        return np.floor(x + 0.5)
    return np.floor(x) if rounding_method == "floor" else np.ceil(x)


def kernel(method: str, d: np.ndarray, alpha: float) -> np.ndarray:
    """The linear (triangle) or cubic (Keys) kernel at distances ``d``."""
    d = np.abs(d)
    if method == "linear":
        return np.clip(1 - d, 0, 1)
    near = ((alpha + 2) * d - (alpha + 3)) * d * d + 1
    far = ((alpha * d - 5 * alpha) * d + 8 * alpha) * d - 4 * alpha
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def taps(
    x: np.ndarray, in_size: int, scale: float, attrs: Mapping[str, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, weights)`` of shape ``(len(x), taps)``: the input
    positions (clamped to the axis) each output reads and their weights.

    Interpolation reads the neighbours ``x0 + start .. x0 + start + count - 1``
    of ``x = x0 + ratio`` with ``ratio`` in ``(0, 1]``, weighted by the kernel
    at their distance; ``antialias`` stretches the kernel by ``1 / scale``
    when downsampling and normalizes the weights."""
    method = attrs["method"]
    if method == "nearest_neighbor":
        index = nearest_index(x, attrs["rounding_method"])[:, None]
        return np.clip(index, 0, in_size - 1).astype(np.int64), np.ones_like(index)
    stretch = min(scale, 1.0) if attrs["antialias"] else 1.0
    support = 1 if method == "linear" else 2
    start = math.floor(-support / stretch) + 1
    offsets = np.arange(start, 2 - start)
    x0 = np.ceil(x) - 1
    index = x0[:, None] + offsets
    weights = kernel(method, (offsets - (x - x0)[:, None]) * stretch, attrs["cubic_alpha"])
    if attrs["antialias"]:
        weights = weights / weights.sum(axis=-1, keepdims=True)
    if method == "cubic" and attrs["cubic_exclude"]:
        weights = np.where((index < 0) | (index >= in_size), 0.0, weights)
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.clip(index, 0, in_size - 1).astype(np.int64), weights


def resize(data: np.ndarray, size: Sequence[int], **attrs: Any) -> np.ndarray:
    """Each spatial axis of ``data`` resized in turn; nearest-neighbour
    sampling copies elements, interpolation computes in float64. ``attrs``
    are the op's, defaults included."""
    layout = attrs["layout"]
    axes = [i for i, c in enumerate(layout) if c in "DHW"]
    in_sizes = [data.shape[a] for a in axes]
    scales = attrs.get("scales") or [m / n if n else 1.0 for m, n in zip(size, in_sizes)]
    roi = attrs.get("roi") or [0.0] * len(axes) + [1.0] * len(axes)
    mode = attrs["coordinate_transformation_mode"]
    nearest = attrs["method"] == "nearest_neighbor"
    result = data if nearest else data.astype(np.float64)
    outside = np.zeros([1] * data.ndim, bool)
    for k, (axis, out_size, in_size) in enumerate(zip(axes, size, in_sizes)):
        x = source_coordinates(mode, out_size, in_size, scales[k], (roi[k], roi[k + len(axes)]))
        index, weights = taps(x, in_size, scales[k], attrs)
        gathered = np.take(result, index, axis=axis)  # (..., out, taps, ...)
        if nearest:
            result = gathered.squeeze(axis + 1)
        else:
            shape = [1] * gathered.ndim
            shape[axis : axis + 2] = weights.shape
            result = (gathered * weights.reshape(shape)).sum(axis=axis + 1)
        if mode == "tf_crop_and_resize":
            mask_shape = [1] * data.ndim
            mask_shape[axis] = out_size
            outside = outside | ((x < 0) | (x > in_size - 1)).reshape(mask_shape)
    value = np.asarray(attrs["extrapolation_value"]).astype(data.dtype)
    return np.where(outside, value, result.astype(data.dtype))


REFERENCES = {
    f"relay.image.resize{d}d": (lambda ins, attrs: resize(ins[0], **attrs)) for d in (1, 2, 3)
}
