"""Converters for ``Resize`` and ``Upsample`` → ``relay.image.resize1d``,
``resize2d`` or ``resize3d``.

The resized axes (those whose size or scale changes, or that a
``tf_crop_and_resize`` roi crops) must be the trailing 1 to 3 axes. When
exactly two axes lead them (``N``, ``C``), the relay op resizes the input
as it is; otherwise the leading axes are folded into one channel axis by a
``relay.reshape`` before and unfolded after.

ONNX semantics kept exactly: with ``scales`` the output size is
``floor(size * scale)`` and the coordinate mapping uses the given scale
(passed on as the relay op's ``scales``); with ``sizes`` the scale is
``size_out / size_in``, or one common scale under
``keep_aspect_ratio_policy`` (opset 18). ``antialias`` (opset 18)
applies to linear and cubic resizes only, as the ONNX specification says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import SSAValue

from xtvm.dialects.relay import ReshapeOp, Resize1dOp, Resize2dOp, Resize3dOp, ResizeOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.transform import normalize_axes

_OPS: dict[int, type[ResizeOp]] = {1: Resize1dOp, 2: Resize2dOp, 3: Resize3dOp}
_METHODS = {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}


@dataclass
class _Plan:
    """Per-axis output sizes and scales of a resize over the input's full rank."""

    sizes: list[int]
    scales: list[float]
    roi: list[float]
    scales_given: bool


def _full_rank_plan(
    node: OnnxNode,
    shape: Sequence[int],
    axes: Sequence[int],
    scales: Sequence[float] | None,
    sizes: Sequence[int] | None,
    roi: Sequence[float] | None,
) -> _Plan:
    rank = len(shape)
    full_roi = [0.0] * rank + [1.0] * rank
    if roi is not None:
        if len(roi) != 2 * len(axes):
            raise node.error(f"roi must hold {2 * len(axes)} values, got {len(roi)}")
        for k, axis in enumerate(axes):
            full_roi[axis], full_roi[rank + axis] = float(roi[k]), float(roi[len(axes) + k])
    if scales is not None:
        if len(scales) != len(axes) or any(not s > 0 or math.isinf(s) for s in scales):
            raise node.error(f"scales {list(scales)} must be {len(axes)} positive factors")
        full_scales = [1.0] * rank
        for axis, s in zip(axes, scales):
            full_scales[axis] = float(s)
        full_sizes = [int(n * s) for n, s in zip(shape, full_scales)]
        return _Plan(full_sizes, full_scales, full_roi, True)
    assert sizes is not None
    if len(sizes) != len(axes) or any(s < 0 for s in sizes):
        raise node.error(f"sizes {list(sizes)} must be {len(axes)} non-negative sizes")
    full_sizes = list(shape)
    for axis, s in zip(axes, sizes):
        full_sizes[axis] = int(s)
    full_scales = [m / n if n else 1.0 for m, n in zip(full_sizes, shape)]
    policy = node.attr("keep_aspect_ratio_policy", "stretch")
    if policy == "stretch":
        return _Plan(full_sizes, full_scales, full_roi, False)
    if policy not in ("not_larger", "not_smaller"):
        raise node.unsupported_attr(
            "keep_aspect_ratio_policy", "expected stretch, not_larger or not_smaller", "stretch"
        )
    pick = min if policy == "not_larger" else max
    scale = pick(full_scales[a] for a in axes)
    for axis in axes:
        full_scales[axis] = scale
        full_sizes[axis] = int(scale * shape[axis] + 0.5)
    return _Plan(full_sizes, full_scales, full_roi, True)


def _resize(
    node: OnnxNode,
    scales: Sequence[float] | None,
    sizes: Sequence[int] | None,
    roi: Sequence[float] | None = None,
    coordinate_mode: str | None = None,
    rounding: str | None = None,
    mode_attr: str | None = None,
) -> SSAValue:
    """The relay resize of input 0; ``coordinate_mode``, ``rounding`` and
    ``mode_attr`` override the node's attributes (the legacy ops fix them)."""
    x = node.input(0)
    shape = list(node.input_shape(0))
    rank = len(shape)
    axes = node.attr("axes")
    if axes is None:
        axes = list(range(rank))
    else:
        axes = normalize_axes(node, axes, rank, "attribute 'axes'")
    mode = coordinate_mode or node.attr("coordinate_transformation_mode", "half_pixel")
    plan = _full_rank_plan(node, shape, axes, scales, sizes, roi)
    cropping = mode == "tf_crop_and_resize"
    resized = [
        d
        for d in range(rank)
        if plan.sizes[d] != shape[d]
        or plan.scales[d] != 1.0
        or (cropping and (plan.roi[d], plan.roi[rank + d]) != (0.0, 1.0))
    ]
    if not resized:
        return x
    count = len(resized)
    if resized != list(range(rank - count, rank)) or count > 3:
        raise node.error(
            f"resizing axes {resized} of a rank-{rank} input is not supported: only the "
            "last 1 to 3 axes may be resized"
        )
    method = _METHODS.get(mode_attr or node.attr("mode", "nearest"))
    if method is None:
        raise node.unsupported_attr("mode", "expected nearest, linear or cubic", "nearest")
    lead = shape[: rank - count]
    spatial = [plan.sizes[d] for d in resized]
    data = x
    if len(lead) != 2:
        folded = [1, math.prod(lead), *shape[rank - count :]]
        data = node.emit(ReshapeOp(x, folded))
    roi = None
    if cropping:
        roi = [plan.roi[d] for d in resized] + [plan.roi[rank + d] for d in resized]
    op = _OPS[count](
        data,
        spatial,
        scales=[plan.scales[d] for d in resized] if plan.scales_given else None,
        roi=roi,
        method=method,
        coordinate_transformation_mode=mode,
        rounding_method=rounding or node.attr("nearest_mode", "round_prefer_floor"),
        cubic_alpha=node.attr("cubic_coeff_a", -0.75),
        cubic_exclude=bool(node.attr("exclude_outside", 0)),
        extrapolation_value=node.attr("extrapolation_value", 0.0),
        antialias=bool(node.attr("antialias", 0)) and method != "nearest_neighbor",
    )
    out = node.emit(op)
    if len(lead) != 2:
        out = node.emit(ReshapeOp(out, [*lead, *spatial]))
    return out


def _legacy_rounding(node: OnnxNode, scales: Sequence[float]) -> str:
    """Nearest-neighbour rounding of ``Upsample`` and ``Resize``-10, as
    onnxruntime: down (``floor``) when upsampling, up (``ceil``) when
    downsampling."""
    changed = [s for s in scales if s != 1.0]
    if all(s >= 1.0 for s in changed):
        return "floor"
    if all(s < 1.0 for s in changed):
        return "ceil"
    raise node.error(f"scales {list(scales)} both up- and downsample, which is not supported")


def _legacy(node: OnnxNode, scales: Sequence[float]) -> SSAValue:
    """``Upsample`` and ``Resize``-10: ``scales`` for every axis, asymmetric
    coordinates, ``nearest`` or ``linear``."""
    mode = node.attr("mode", "nearest")
    if mode not in ("nearest", "linear", "bilinear"):
        raise node.unsupported_attr("mode", "expected nearest or linear", "nearest")
    rounding = _legacy_rounding(node, scales)
    mode = "linear" if mode == "bilinear" else mode
    return _resize(node, scales, None, None, "asymmetric", rounding, mode)


class Resize(OnnxOpConverter):
    """``Resize`` → a relay resize. Opset 10: ``scales`` only, asymmetric
    coordinates; from 11: ``roi``, ``scales`` or ``sizes`` and the
    coordinate, nearest and cubic attributes; from 18: ``axes``,
    ``keep_aspect_ratio_policy``, ``antialias``; 19 adds
    ``half_pixel_symmetric``. ``roi``, ``scales`` and ``sizes`` are
    compile-time constants."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        return _legacy(node, [float(s) for s in node.constant_input(1)])

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        mode = node.attr("coordinate_transformation_mode", "half_pixel")
        roi = None
        if mode == "tf_crop_and_resize":
            value = node.optional_constant_input(1)
            roi = None if value is None or value.size == 0 else [float(v) for v in value]
            if roi is None:
                raise node.error("tf_crop_and_resize needs input 'roi'")
        scales = node.optional_constant_input(2)
        if scales is not None and scales.size:
            if node.has_input(3):
                raise node.error("inputs 'scales' and 'sizes' exclude each other")
            return _resize(node, [float(s) for s in scales], None, roi)
        sizes = node.optional_constant_ints(3)
        if sizes is None:
            raise node.error("needs input 'scales' or 'sizes'")
        return _resize(node, None, sizes, roi)


class Upsample(OnnxOpConverter):
    """``Upsample`` (deprecated in opset 10 for ``Resize``): ``scales`` for
    every axis (an attribute in opset 7, an input from 9), asymmetric
    coordinates."""

    @classmethod
    def _impl_v7(cls, node: OnnxNode) -> SSAValue:
        return _legacy(node, [float(s) for s in node.attrs["scales"]])

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        return _legacy(node, [float(s) for s in node.constant_input(1)])


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Resize": Resize,
    "Upsample": Upsample,
}
