"""Resize (TVM's ``topi.image.resize1d/2d/3d``), over any set of spatial axes.

Each spatial axis maps an output index to an input coordinate (in float64,
with the operations in the order ONNX's reference uses, so that ties of
nearest-neighbour rounding fall the same way), then reads one
(``nearest_neighbor``), two (``linear``) or four (``cubic``) neighbours,
clamped to the axis. Interpolation weighs the neighbours of all axes in
float64 and converts the sum to the data type once. See
``xtvm.dialects.relay.image`` for the modes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr

F64 = "float64"


@dataclass(frozen=True)
class AxisResize:
    """How one spatial axis is resized."""

    axis: int
    in_size: int
    out_size: int
    scale: float
    roi: tuple[float, float]


def _f(value: float) -> PrimExpr:
    return te.const(float(value), F64)


def source_coordinate(mode: str, x: PrimExpr, a: AxisResize) -> PrimExpr:
    """The float64 input coordinate of output index ``x`` along ``a``."""
    xf = x.astype(F64)
    n, length = a.in_size, a.in_size * a.scale
    if mode in ("half_pixel", "pytorch_half_pixel"):
        if mode == "pytorch_half_pixel" and length == 1:
            return _f(-0.5)
        return (xf + 0.5) / _f(a.scale) - 0.5
    if mode == "half_pixel_symmetric":
        offset = n / 2 * (1 - a.out_size / length)
        return _f(offset) + (xf + 0.5) / _f(a.scale) - 0.5
    if mode == "align_corners":
        return _f(0.0) if length == 1 else xf * _f(n - 1) / _f(length - 1)
    if mode == "asymmetric":
        return xf / _f(a.scale)
    if mode != "tf_crop_and_resize":
        raise ValueError(f"resize: unknown coordinate_transformation_mode {mode!r}")
    start, end = a.roi
    if length == 1:
        return _f((end - start) * (n - 1) / 2 + start * (n - 1))
    return xf * _f(end - start) * _f(n - 1) / _f(length - 1) + _f(start * (n - 1))


def _clamp_index(v: PrimExpr, size: int) -> PrimExpr:
    """An integral float64 position as an index clamped to ``[0, size)``
    (clamped as a float first, so the conversion never overflows)."""
    bounded = te.min(te.max(v, _f(-4.0)), _f(size + 3.0)).astype("index")
    return te.min(te.max(bounded, 0), size - 1)


def _nearest(x: PrimExpr, rounding_method: str) -> PrimExpr:
    if rounding_method == "round_prefer_floor":
        return te.ceil(x - 0.5)
    if rounding_method == "round_prefer_ceil":
        return te.floor(x + 0.5)
    if rounding_method == "floor":
        return te.floor(x)
    if rounding_method == "ceil":
        return te.ceil(x)
    raise ValueError(f"resize: unknown rounding_method {rounding_method!r}")


def _kernel(method: str, d: PrimExpr, alpha: float) -> PrimExpr:
    """The linear (triangle) or cubic (Keys) kernel at the distance ``|d|``."""
    d = te.abs(d)
    if method == "linear":
        return te.max(1.0 - d, _f(0.0))
    # The constants are folded here, in double precision, as the reference does.
    near = (d * (alpha + 2) - (alpha + 3)) * d * d + 1.0
    far = ((d * alpha - 5 * alpha) * d + 8 * alpha) * d - 4 * alpha
    return te.eager_select(d <= 1.0, near, te.eager_select(d < 2.0, far, _f(0.0)))


def _normalized(weights: list[PrimExpr]) -> list[PrimExpr]:
    total = weights[0]
    for w in weights[1:]:
        total = total + w
    return [w / total for w in weights]


def _taps(
    x: PrimExpr, a: AxisResize, attrs: Mapping[str, Any]
) -> list[tuple[PrimExpr, PrimExpr]]:
    """``(index, weight)`` of each neighbour the output at coordinate ``x``
    reads: ``x0 + start + k`` for ``x = x0 + ratio``, ``ratio`` in ``(0,
    1]``, weighted by the kernel at its distance (stretched by ``1 / scale``
    when antialiasing a downsampled axis, the weights then normalized)."""
    method = attrs["method"]
    stretch = min(a.scale, 1.0) if attrs["antialias"] else 1.0
    support = 1 if method == "linear" else 2
    start = math.floor(-support / stretch) + 1
    x0 = te.ceil(x) - 1.0
    ratio = x - x0
    offsets = range(start, 2 - start)
    distances = [-ratio if k == 0 else float(k) - ratio for k in offsets]
    if stretch != 1.0:
        distances = [d * stretch for d in distances]
    weights = [_kernel(method, d, attrs["cubic_alpha"]) for d in distances]
    if attrs["antialias"]:
        weights = _normalized(weights)
    positions = [x0 if k == 0 else x0 + float(k) for k in offsets]
    if method == "cubic" and attrs["cubic_exclude"]:
        inside = [(p >= 0.0) & (p <= a.in_size - 1.0) for p in positions]
        weights = _normalized([te.eager_select(c, w, _f(0.0)) for c, w in zip(inside, weights)])
    return [(_clamp_index(p, a.in_size), w) for p, w in zip(positions, weights)]


def resize(
    data: te.Tensor,
    axes: Sequence[int],
    size: Sequence[int],
    scales: Sequence[float] | None = None,
    roi: Sequence[float] | None = None,
    **attrs: Any,
) -> te.Tensor:
    """``data`` with spatial ``axes`` resized to ``size``; ``attrs`` are the
    relay op's (method, coordinate_transformation_mode, rounding_method,
    cubic_alpha, cubic_exclude, extrapolation_value, antialias)."""
    method, mode = attrs["method"], attrs["coordinate_transformation_mode"]
    if method not in ("nearest_neighbor", "linear", "cubic"):
        raise ValueError(f"resize: unknown method {method!r}")
    if method != "nearest_neighbor" and not dt.is_float(data.dtype):
        raise TypeError(f"resize: {method} interpolation needs float data, got {data.dtype}")
    ins = [data.shape[axis] for axis in axes]
    scales = scales or [m / n if n else 1.0 for m, n in zip(size, ins)]
    roi = roi or [0.0] * len(axes) + [1.0] * len(axes)
    plan = [
        AxisResize(axis, n, m, s, (roi[k], roi[k + len(axes)]))
        for k, (axis, n, m, s) in enumerate(zip(axes, ins, size, scales))
    ]
    shape = list(data.shape)
    for a in plan:
        shape[a.axis] = a.out_size

    def element(*i: PrimExpr) -> PrimExpr:
        coords = [source_coordinate(mode, i[a.axis], a) for a in plan]
        if method == "nearest_neighbor":
            index = list(i)
            for a, x in zip(plan, coords):
                index[a.axis] = _clamp_index(_nearest(x, attrs["rounding_method"]), a.in_size)
            value = data[index]
        else:
            value = _interpolate(data, i, plan, coords, attrs).astype(data.dtype)
        if mode != "tf_crop_and_resize":
            return value
        outside = [(x < 0.0) | (x > a.in_size - 1.0) for a, x in zip(plan, coords)]
        cond = outside[0]
        for c in outside[1:]:
            cond = cond | c
        return te.eager_select(cond, te.const(attrs["extrapolation_value"], data.dtype), value)

    return te.compute(tuple(shape), element, name="T_resize", tag="injective")


def _interpolate(
    data: te.Tensor,
    i: Sequence[PrimExpr],
    plan: Sequence[AxisResize],
    coords: Sequence[PrimExpr],
    attrs: Mapping[str, Any],
) -> PrimExpr:
    """The float64 weighted sum of the neighbours, nested with the first
    axis innermost (the order of ONNX's reference, which resizes one axis
    after the other)."""
    taps = [_taps(x, a, attrs) for a, x in zip(plan, coords)]
    index = list(i)

    def weighted(k: int) -> PrimExpr:
        total: PrimExpr | None = None
        for position, weight in taps[k]:
            index[plan[k].axis] = position
            inner = data[index].astype(F64) if k == 0 else weighted(k - 1)
            total = inner * weight if total is None else total + inner * weight
        assert total is not None
        return total

    return weighted(len(plan) - 1)
