"""Converters for ``AffineGrid`` (opset 20) and ``GridSample`` (opsets
16-22), decomposed exactly into existing relay ops.

``AffineGrid``: the sampling grid of ``theta`` is the product
(``relay.nn.matmul``) of the normalized base grid — a constant of the
compile-time ``size`` — with each batch's affine matrix.

``GridSample``: the grid's coordinates are denormalized, rounded
(``nearest``) and brought inside the image (``border``: clipped;
``reflection``: reflected) with elementwise ops; each interpolation tap
(1 for ``nearest``, ``2^k`` for ``linear``, ``4^k`` for ``cubic`` over
``k`` spatial axes) reads its pixels with ``relay.gather`` at flat
positions, out-of-image pixels being 0 (``zeros``) or clipped/reflected
positions, and the taps are summed with their separable weights — onnx's
reference, written with tensors.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    AddOp,
    BroadcastToOp,
    CastOp,
    ClipOp,
    DivideOp,
    FloorOp,
    GatherOp,
    GreaterEqualOp,
    GreaterOp,
    LessEqualOp,
    LessOp,
    LogicalAndOp,
    LogicalOrOp,
    MatmulOp,
    MaximumOp,
    MaxOp,
    MeanOp,
    MultiplyOp,
    ReshapeOp,
    RoundOp,
    StridedSliceOp,
    SubtractOp,
    TakeOp,
    WhereOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def normalized_coordinates(size: int, align_corners: bool) -> np.ndarray:
    """The ``size`` sample positions along an axis in ``[-1, 1]``: the
    corner pixels' centres at -1 and 1 with ``align_corners``, else the
    pixels' centres of a ``[-1, 1]`` span split in ``size``. A single
    sample with ``align_corners`` is at -1, as onnx's reference (PyTorch
    puts it at 0, onnxruntime at 1)."""
    i = np.arange(size, dtype=np.float64)
    if align_corners:
        return i * (2.0 / (size - 1)) - 1 if size > 1 else np.full(size, -1.0)
    return (2 * i + 1) / size - 1


def base_grid(sizes: list[int], align_corners: bool) -> np.ndarray:
    """``[prod(sizes), k + 1]``: the homogeneous coordinates ``(x, y[, z],
    1)`` of every output position, ``x`` along the last of ``sizes``."""
    axes = [normalized_coordinates(s, align_corners) for s in sizes]
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]
    return np.stack([*coords, np.ones(int(np.prod(sizes)))], axis=1)


class AffineGrid(OnnxOpConverter):
    """``AffineGrid(theta [N, k, k + 1], size)``: ``grid[n, ..., :] =
    theta[n] @ (x, y[, z], 1)`` over the ``k``-d output ``size`` (``[N, C,
    H, W]`` or ``[N, C, D, H, W]``, needed at compile time)."""

    @classmethod
    def _impl_v20(cls, node: OnnxNode) -> SSAValue:
        align_corners = node.attr("align_corners", 0)
        if align_corners not in (0, 1):
            raise node.unsupported_attr("align_corners", "expected 0 or 1", 0)
        size = node.constant_ints(1)
        theta = node.input(0)
        tshape = node.input_shape(0)
        k = len(size) - 2
        if k not in (2, 3) or tshape != (size[0], k, k + 1) or min(size) < 1:
            raise node.error(
                f"expected size [N, C, H, W] or [N, C, D, H, W] and theta [N, k, k + 1], "
                f"got size {size} and theta {list(tshape)}"
            )
        ty = theta.type
        assert isinstance(ty, TensorType)
        dtype = numpy_dtype(ty.get_element_type())
        base = node.const(base_grid(size[2:], bool(align_corners)).astype(dtype))
        grid = node.emit(MatmulOp(base, theta, transpose_b=True))  # [N, prod(size), k]
        return node.emit(ReshapeOp(grid, [size[0], *size[2:], k]))


def reflection_table(size: int, lo: float, hi: float) -> np.ndarray:
    """The pixel read for integral positions ``-3 .. size + 2`` under
    ``reflection`` padding: the position reflected into ``[lo, hi]``
    (onnx's ``_gs_reflect``), truncated, clipped to the image."""
    out = []
    for m in range(-3, size + 3):
        v, span = float(m), hi - lo
        if span > 0 and not lo <= v <= hi:
            below = v < lo
            dx = lo - v if below else v - hi
            n = int(dx / span)
            r = dx - n * span
            if below:
                v = lo + r if n % 2 == 0 else hi - r
            else:
                v = hi - r if n % 2 == 0 else lo + r
        out.append(min(max(int(v), 0), size - 1))
    return np.array(out, np.int64)


CUBIC_ALPHA = -0.75
"""The cubic convolution's parameter (Keys), as onnx's reference and PyTorch."""


class _Emitter:
    """Elementwise arithmetic on values of one float type, with Python
    scalars as constants."""

    def __init__(self, node: OnnxNode, dtype: np.dtype):
        self.node, self.dtype = node, dtype

    def value(self, v: SSAValue | float) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        return self.node.const(np.array(v, self.dtype))

    def op(self, cls: type, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self.node.emit(cls(self.value(a), self.value(b)))

    def add(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self.op(AddOp, a, b)

    def sub(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self.op(SubtractOp, a, b)

    def mul(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self.op(MultiplyOp, a, b)

    def div(self, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self.op(DivideOp, a, b)

    def where(self, cond: SSAValue, a: SSAValue | float, b: SSAValue | float) -> SSAValue:
        return self.node.emit(WhereOp(cond, self.value(a), self.value(b)))

    def unary(self, cls: type, a: SSAValue) -> SSAValue:
        return self.node.emit(cls(a))

    def reflect(self, v: SSAValue, lo: float, hi: float) -> SSAValue:
        """``v`` reflected at ``lo`` and ``hi`` until inside ``[lo, hi]``
        (onnx's ``_gs_reflect``)."""
        below, above = self.op(LessOp, v, lo), self.op(GreaterOp, v, hi)
        span = hi - lo
        dx = self.where(below, self.sub(lo, v), self.sub(v, hi))
        n = self.unary(FloorOp, self.div(dx, span)) if span else self.value(0.0)
        r = self.sub(dx, self.mul(n, span))
        half = self.unary(FloorOp, self.mul(n, 0.5))
        odd = self.op(GreaterOp, self.sub(n, self.mul(half, 2.0)), 0.5)
        signed_r = self.where(below, r, self.sub(0.0, r))
        near = self.add(self.where(below, lo, hi), signed_r)
        far = self.sub(self.where(below, hi, lo), signed_r)
        inside = self.node.emit(LogicalOrOp(below, above))
        return self.where(inside, self.where(odd, far, near), v)


def _linear_taps(e: _Emitter, t: SSAValue) -> list[tuple[int, SSAValue]]:
    return [(0, e.sub(1.0, t)), (1, t)]


def _cubic_taps(e: _Emitter, t: SSAValue) -> list[tuple[int, SSAValue]]:
    """Keys' cubic weights of the taps at ``floor - 1 .. floor + 2``."""
    a = CUBIC_ALPHA

    def outer(x: SSAValue) -> SSAValue:  # 1 < |x| < 2
        return e.sub(e.mul(e.add(e.mul(e.sub(e.mul(x, a), 5 * a), x), 8 * a), x), 4 * a)

    def inner(x: SSAValue) -> SSAValue:  # |x| <= 1
        return e.add(e.mul(e.mul(e.sub(e.mul(x, a + 2), a + 3), x), x), 1.0)

    u = e.sub(1.0, t)
    return [(-1, outer(e.add(t, 1.0))), (0, inner(t)), (1, inner(u)), (2, outer(e.add(u, 1.0)))]


class GridSample(OnnxOpConverter):
    """``GridSample(X [N, C, *D], grid [N, *O, k])`` → ``[N, C, *O]``:
    ``mode`` ``linear``/``bilinear`` (default), ``nearest`` or
    ``cubic``/``bicubic``; ``padding_mode`` ``zeros`` (default),
    ``border`` or ``reflection``; ``align_corners``. The grid's last axis
    holds ``(x, y[, z])``, ``x`` along the last spatial axis."""

    MODES: ClassVar[dict[str, str]] = {
        "linear": "linear",
        "bilinear": "linear",
        "nearest": "nearest",
        "cubic": "cubic",
        "bicubic": "cubic",
    }

    @classmethod
    def _impl_v16(cls, node: OnnxNode) -> SSAValue:
        mode = cls.MODES.get(node.attr("mode", "linear" if node.opset >= 20 else "bilinear"))
        if mode is None:
            raise node.unsupported_attr("mode", "expected linear, nearest or cubic")
        padding = node.attr("padding_mode", "zeros")
        if padding not in ("zeros", "border", "reflection"):
            raise node.unsupported_attr("padding_mode", "expected zeros, border or reflection")
        align = bool(node.attr("align_corners", 0))
        x, grid = node.input(0), node.input(1)
        xshape, gshape = node.input_shape(0), node.input_shape(1)
        k = len(xshape) - 2
        if k < 1 or len(gshape) != k + 2 or gshape[0] != xshape[0] or gshape[-1] != k:
            raise node.error(
                f"expected X [N, C, *D] and grid [N, *O, {max(k, 1)}] of as many spatial axes, "
                f"got {list(xshape)} and {list(gshape)}"
            )
        if mode == "cubic" and k != 2:
            raise node.unsupported_attr("mode", "cubic sampling is defined for 2-d images only")
        ty = x.type
        assert isinstance(ty, TensorType)
        e = _Emitter(node, numpy_dtype(ty.get_element_type()))
        grid_ty = grid.type
        assert isinstance(grid_ty, TensorType)
        if grid_ty.get_element_type() != ty.get_element_type():
            grid = node.emit(CastOp(grid, str(e.dtype)))
        batch, channels, dims = xshape[0], xshape[1], list(xshape[2:])
        out_dims = list(gshape[1:-1])
        points = int(np.prod(out_dims))
        flat_grid = node.emit(ReshapeOp(grid, [batch, points, k]))
        coords = []
        for i, size in enumerate(dims):  # grid component k - 1 - i is axis i
            c = k - 1 - i
            comp = node.emit(StridedSliceOp(flat_grid, [0, 0, c], [batch, points, c + 1]))
            comp = node.emit(ReshapeOp(comp, [batch, points]))
            if align:
                v = e.mul(e.add(comp, 1.0), (size - 1) / 2.0)
            else:
                v = e.div(e.sub(e.mul(e.add(comp, 1.0), float(size)), 1.0), 2.0)
            if mode == "nearest":
                v = e.unary(RoundOp, v)
            lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
            if padding == "border":
                v = node.emit(ClipOp(v, 0.0, size - 1.0))
            elif padding == "reflection":
                v = e.reflect(v, lo, hi)
            coords.append((v, lo, hi))
        data = node.emit(ReshapeOp(x, [batch, channels, int(np.prod(dims))]))

        def fetch(positions: list[SSAValue]) -> SSAValue:
            """The pixels at integral float ``positions`` (one per axis),
            ``[N, C, P]``: 0 outside the image for ``zeros``."""
            flat, valid = None, None
            for i, p in enumerate(positions):
                size = dims[i]
                if padding == "zeros":
                    inside = node.emit(
                        LogicalAndOp(e.op(GreaterOp, p, -0.5), e.op(LessOp, p, size - 0.5))
                    )
                    valid = inside if valid is None else node.emit(LogicalAndOp(valid, inside))
                p = node.emit(CastOp(node.emit(ClipOp(p, -3.0, size + 2.0)), "int64"))
                if padding == "reflection":
                    # A tap lies within 2 pixels of an already reflected
                    # coordinate: look its reflection up in a constant table.
                    table = reflection_table(size, coords[i][1], coords[i][2])
                    shifted = node.emit(AddOp(p, node.const(np.array(3, np.int64))))
                    p = node.emit(TakeOp(node.const(table), shifted, axis=0))
                else:
                    p = node.emit(ClipOp(p, 0.0, size - 1.0))
                stride = int(np.prod(dims[i + 1 :]))
                if stride != 1:
                    p = node.emit(MultiplyOp(p, node.const(np.array(stride, np.int64))))
                flat = p if flat is None else node.emit(AddOp(flat, p))
            assert flat is not None
            index = node.emit(ReshapeOp(flat, [batch, 1, points]))
            index = node.emit(BroadcastToOp(index, [batch, channels, points]))
            pixels = node.emit(GatherOp(data, index, axis=2))
            if valid is None:
                return pixels
            mask = node.emit(ReshapeOp(valid, [batch, 1, points]))
            return e.where(mask, pixels, 0.0)

        if mode == "nearest":
            out = fetch([v for v, _, _ in coords])
        else:
            taps_of: Callable[[_Emitter, SSAValue], list[tuple[int, SSAValue]]] = (
                _linear_taps if mode == "linear" else _cubic_taps
            )
            per_axis = []
            for v, _, _ in coords:
                base = e.unary(FloorOp, v)
                t = e.sub(v, base)
                per_axis.append([(e.add(base, float(j)), w) for j, w in taps_of(e, t)])
            out = None
            for combo in itertools.product(*per_axis):
                weight = combo[0][1]
                for _, w in combo[1:]:
                    weight = e.mul(weight, w)
                pixels = fetch([p for p, _ in combo])
                term = e.mul(pixels, node.emit(ReshapeOp(weight, [batch, 1, points])))
                out = term if out is None else e.add(out, term)
            assert out is not None
        return node.emit(ReshapeOp(out, [batch, channels, *out_dims]))


class RoiAlign(OnnxOpConverter):
    """``RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R])`` →
    ``[R, C, output_height, output_width]``: each output bin averages (or
    takes the max of) ``sampling_ratio``² bilinear samples of its region
    (onnx's reference, including its clamping at the image's edges).
    ``sampling_ratio`` 0 (a sample count that depends on each region's
    size) is not supported."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        # Before opset 16 regions were not shifted by half a pixel.
        return cls._roi_align(node, "output_half_pixel")

    @classmethod
    def _impl_v16(cls, node: OnnxNode) -> SSAValue:
        return cls._roi_align(node, "half_pixel")

    @classmethod
    def _roi_align(cls, node: OnnxNode, default_transform: str) -> SSAValue:
        mode = node.attr("mode", "avg")
        if mode not in ("avg", "max"):
            raise node.unsupported_attr("mode", "expected avg or max", "avg")
        transform = node.attr("coordinate_transformation_mode", default_transform)
        if transform not in ("half_pixel", "output_half_pixel"):
            raise node.unsupported_attr(
                "coordinate_transformation_mode", "expected half_pixel or output_half_pixel"
            )
        half_pixel = transform == "half_pixel"
        oh, ow = int(node.attr("output_height", 1)), int(node.attr("output_width", 1))
        s = int(node.attr("sampling_ratio", 0))
        if s < 1:
            raise node.unsupported_attr(
                "sampling_ratio", "the sample count of each region would depend on its size", 0
            )
        scale = float(node.attr("spatial_scale", 1.0))
        x, rois, batch_indices = node.input(0), node.input(1), node.input(2)
        xshape, rshape = node.input_shape(0), node.input_shape(1)
        if len(xshape) != 4 or len(rshape) != 2 or rshape[1] != 4:
            raise node.error(
                f"expected X [N, C, H, W] and rois [R, 4], got {list(xshape)} and {list(rshape)}"
            )
        if node.input_shape(2) != rshape[:1]:
            raise node.error(
                f"batch_indices must be [{rshape[0]}], got {list(node.input_shape(2))}"
            )
        _, channels, height, width = xshape
        count = rshape[0]
        ty = x.type
        assert isinstance(ty, TensorType)
        e = _Emitter(node, numpy_dtype(ty.get_element_type()))
        offset = 0.5 if half_pixel else 0.0

        def column(j: int) -> SSAValue:
            c = node.emit(StridedSliceOp(rois, [0, j], [count, j + 1]))  # [R, 1]
            return e.sub(e.mul(c, scale), offset)

        def axis_samples(start: SSAValue, end: SSAValue, bins: int, size: int, shape: list[int]):
            """Per region, the low/high pixel and weights of the ``bins * s``
            samples along one axis, reshaped to ``shape`` for broadcasting."""
            extent = e.sub(end, start)
            if not half_pixel:
                extent = e.op(MaximumOp, extent, 1.0)
            steps = (np.arange(bins)[:, None] + (np.arange(s)[None, :] + 0.5) / s).reshape(1, -1)
            v = e.add(start, e.mul(e.div(extent, float(bins)), e.value(steps.astype(e.dtype))))
            valid = node.emit(
                LogicalAndOp(e.op(GreaterEqualOp, v, -1.0), e.op(LessEqualOp, v, float(size)))
            )
            v = e.op(MaximumOp, v, 0.0)
            low = e.unary(FloorOp, v)
            top = e.op(GreaterEqualOp, low, size - 1.0)
            low = e.where(top, size - 1.0, low)
            high = e.where(top, size - 1.0, e.add(low, 1.0))
            frac = e.sub(e.where(top, low, v), low)
            keep = node.emit(CastOp(valid, str(e.dtype)))
            parts = [low, high, e.mul(e.sub(1.0, frac), keep), e.mul(frac, keep)]
            return [node.emit(ReshapeOp(p, shape)) for p in parts]

        ylo, yhi, wy0, wy1 = axis_samples(column(1), column(3), oh, height, [count, oh * s, 1])
        xlo, xhi, wx0, wx1 = axis_samples(column(0), column(2), ow, width, [count, 1, ow * s])
        samples = oh * s * ow * s
        data = node.emit(ReshapeOp(x, [xshape[0], channels, height * width]))
        data = node.emit(TakeOp(data, batch_indices, axis=0))  # [R, C, H * W]
        taps = []
        for yy, wy in ((ylo, wy0), (yhi, wy1)):
            for xx, wx in ((xlo, wx0), (xhi, wx1)):
                flat = e.add(e.mul(yy, float(width)), xx)  # [R, oh*s, ow*s]
                flat = node.emit(CastOp(node.emit(ReshapeOp(flat, [count, 1, samples])), "int64"))
                index = node.emit(BroadcastToOp(flat, [count, channels, samples]))
                pixels = node.emit(GatherOp(data, index, axis=2))
                weight = node.emit(ReshapeOp(e.mul(wy, wx), [count, 1, samples]))
                taps.append(e.mul(pixels, weight))
        combine = AddOp if mode == "avg" else MaximumOp
        value = taps[0]
        for t in taps[1:]:
            value = node.emit(combine(value, t))
        value = node.emit(ReshapeOp(value, [count, channels, oh, s, ow, s]))
        reduce = MeanOp if mode == "avg" else MaxOp
        return node.emit(reduce(value, [3, 5]))


class DeformConv(OnnxOpConverter):
    """``DeformConv(X [N, C, H, W], W [oC, C / group, kH, kW], offset [N,
    og * kH * kW * 2, oH, oW], B?, mask?)`` (2-d): each kernel tap reads
    ``X`` bilinearly (zero outside the image) at its position moved by its
    offset, scaled by ``mask``; the columns so sampled (``relay.gather`` of
    4 corners, vectorized over taps) are multiplied with the weights by a
    grouped ``relay.nn.matmul``, as onnx's reference."""

    @classmethod
    def _impl_v19(cls, node: OnnxNode) -> SSAValue:
        x, w, offset = node.input(0), node.input(1), node.input(2)
        xshape, wshape, oshape = (node.input_shape(i) for i in range(3))
        if len(xshape) != 4 or len(wshape) != 4 or len(oshape) != 4:
            raise node.error(
                f"only 2-d DeformConv is supported: X {list(xshape)}, W {list(wshape)}, "
                f"offset {list(oshape)}"
            )
        batch, channels, height, width = xshape
        out_channels, _, kh, kw = wshape
        group, og = int(node.attr("group", 1)), int(node.attr("offset_group", 1))
        strides = node.attr("strides", [1, 1])
        dilations = node.attr("dilations", [1, 1])
        pads = node.attr("pads", [0, 0, 0, 0])
        taps = kh * kw
        _, _, oh, ow = oshape
        points = oh * ow
        if (
            channels % group
            or out_channels % group
            or wshape[1] * group != channels
            or channels % og
            or oshape[:2] != (batch, og * taps * 2)
        ):
            raise node.error(
                f"shapes do not fit group {group} and offset_group {og}: X {list(xshape)}, "
                f"W {list(wshape)}, offset {list(oshape)}"
            )
        ty = x.type
        assert isinstance(ty, TensorType)
        e = _Emitter(node, numpy_dtype(ty.get_element_type()))
        tap_y, tap_x = np.meshgrid(
            np.arange(kh) * dilations[0], np.arange(kw) * dilations[1], indexing="ij"
        )
        out_y, out_x = np.meshgrid(
            np.arange(oh) * strides[0] - pads[0],
            np.arange(ow) * strides[1] - pads[1],
            indexing="ij",
        )
        offsets = node.emit(ReshapeOp(offset, [batch, og, taps, 2, points]))

        def position(c: int, taps_at: np.ndarray, outs_at: np.ndarray) -> SSAValue:
            base = (taps_at.reshape(-1, 1) + outs_at.reshape(1, -1)).astype(e.dtype)
            moved = node.emit(
                StridedSliceOp(offsets, [0, 0, 0, c, 0], [batch, og, taps, c + 1, points])
            )
            moved = node.emit(ReshapeOp(moved, [batch, og, taps * points]))
            return e.add(moved, e.value(base.reshape(-1)))

        ys, xs = position(0, tap_y, out_y), position(1, tap_x, out_x)
        data = node.emit(ReshapeOp(x, [batch, og, channels // og, height * width]))
        samples = taps * points
        corners = []
        for v, size in ((ys, height), (xs, width)):
            low = e.unary(FloorOp, v)
            frac = e.sub(v, low)
            corners.append([(low, e.sub(1.0, frac)), (e.add(low, 1.0), frac)])
        cols = None
        for (yy, wy), (xx, wx) in itertools.product(*corners):
            valid = None
            for p, size in ((yy, height), (xx, width)):
                inside = node.emit(
                    LogicalAndOp(e.op(GreaterOp, p, -0.5), e.op(LessOp, p, size - 0.5))
                )
                valid = inside if valid is None else node.emit(LogicalAndOp(valid, inside))
            assert valid is not None
            yi = node.emit(ClipOp(yy, 0.0, height - 1.0))
            xi = node.emit(ClipOp(xx, 0.0, width - 1.0))
            flat = node.emit(CastOp(e.add(e.mul(yi, float(width)), xi), "int64"))
            flat = node.emit(ReshapeOp(flat, [batch, og, 1, samples]))
            index = node.emit(BroadcastToOp(flat, [batch, og, channels // og, samples]))
            pixels = node.emit(GatherOp(data, index, axis=3))
            weight = e.where(valid, e.mul(wy, wx), 0.0)
            term = e.mul(pixels, node.emit(ReshapeOp(weight, [batch, og, 1, samples])))
            cols = term if cols is None else e.add(cols, term)
        assert cols is not None
        if node.has_input(4):
            mask = node.emit(ReshapeOp(node.input(4), [batch, og, 1, samples]))
            cols = e.mul(cols, mask)
        per_group = channels // group * taps
        cols = node.emit(ReshapeOp(cols, [batch, group, per_group, points]))
        weights = node.emit(ReshapeOp(w, [group, out_channels // group, per_group]))
        y = node.emit(MatmulOp(weights, cols))  # [N, group, oC / group, P]
        y = node.emit(ReshapeOp(y, [batch, out_channels, oh, ow]))
        if node.has_input(3):
            y = e.add(y, node.emit(ReshapeOp(node.input(3), [1, out_channels, 1, 1])))
        return y


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "AffineGrid": AffineGrid,
    "GridSample": GridSample,
    "RoiAlign": RoiAlign,
    "DeformConv": DeformConv,
}
