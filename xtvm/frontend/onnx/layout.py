"""Converters for data-movement ops: ``Expand`` (→ ``relay.broadcast_to``),
``Tile`` (→ ``relay.tile``), ``Pad`` (→ ``relay.nn.pad``), ``CenterCropPad``
(→ ``relay.strided_slice`` and ``relay.nn.pad``), ``DepthToSpace`` and
``SpaceToDepth`` (→ ``relay.nn.depth_to_space``/``space_to_depth``),
``ReverseSequence`` (→ ``relay.reverse_sequence``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    BroadcastToOp,
    DepthToSpaceOp,
    PadOp,
    ReshapeOp,
    ReverseSequenceOp,
    SpaceToDepthOp,
    StridedSliceOp,
    TileOp,
)
from xtvm.dialects.relay.base import RelayTypeError, broadcast_shapes
from xtvm.dtypes import dtype_name
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.frontend.onnx.transform import normalize_axes


class Expand(OnnxOpConverter):
    """``Expand`` → ``relay.broadcast_to`` of the shape both the input and
    ``shape`` broadcast to (ONNX broadcasts both ways: a 1 in ``shape``
    keeps the input's size)."""

    @classmethod
    def _impl_v8(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        target = node.constant_ints(1)
        if any(d < 0 for d in target):
            raise node.error(f"{node.input_label(1)} = {target} has a negative size")
        try:
            shape = broadcast_shapes("Expand", static_shape(x), target)
        except RelayTypeError:
            raise node.error(
                f"input shape {list(static_shape(x))} and {node.input_label(1)} = {target} "
                "do not broadcast"
            ) from None
        if list(static_shape(x)) == shape:
            return x
        return node.emit(BroadcastToOp(x, shape))


class Tile(OnnxOpConverter):
    """``Tile`` → ``relay.tile``: ``repeats`` (a constant, one per axis)."""

    @classmethod
    def _impl_v6(cls, node: OnnxNode) -> SSAValue:
        repeats = node.constant_ints(1)
        rank = len(node.input_shape(0))
        if len(repeats) != rank or any(r < 0 for r in repeats):
            raise node.error(
                f"{node.input_label(1)} = {repeats} must hold {rank} non-negative counts"
            )
        return node.emit(TileOp(node.input(0), repeats))


def _scalar_value(node: OnnxNode, i: int, like: SSAValue) -> SSAValue:
    """Input ``i`` (a one-element tensor of ``like``'s element type) as a
    0-d tensor."""
    value = node.input(i)
    ty = value.type
    assert isinstance(ty, TensorType) and isinstance(like.type, TensorType)
    if ty.element_type != like.type.element_type or ty.element_count() != 1:
        raise node.error(
            f"{node.input_label(i)} must be one value of the data's element type, got {ty}"
        )
    return value if not ty.get_shape() else node.emit(ReshapeOp(value, []))


class Pad(OnnxOpConverter):
    """``Pad`` → ``relay.nn.pad``. ONNX lists all begins, then all ends
    (``[x1_begin, x2_begin, ..., x1_end, x2_end, ...]``); negative pads crop.
    Modes: ``constant`` (default), ``reflect``, ``edge``, and ``wrap`` (opset
    19). The constant is an attribute before opset 11 and an optional input
    (a run-time tensor) from 11; from opset 18 ``axes`` says which axes the
    pads are for."""

    @classmethod
    def _pad(
        cls,
        node: OnnxNode,
        pads: Sequence[int],
        value: SSAValue | float,
        axes: Sequence[int] | None,
    ) -> SSAValue:
        x = node.input(0)
        rank = len(static_shape(x))
        axes = list(range(rank)) if axes is None else normalize_axes(node, axes, rank, "axes")
        if len(pads) != 2 * len(axes):
            raise node.error(f"pads {list(pads)} must hold 2 values per padded axis ({len(axes)})")
        width = [0] * (2 * rank)
        for k, axis in enumerate(axes):
            width[2 * axis], width[2 * axis + 1] = pads[k], pads[k + len(axes)]
        mode = node.attr("mode", "constant")
        if mode not in ("constant", "reflect", "edge", "wrap"):
            raise node.unsupported_attr("mode", "expected constant, reflect, edge or wrap")
        if isinstance(value, float):
            assert isinstance(x.type, TensorType)
            value = node.const(np.array(value, dtype_name(x.type.element_type)))
        return node.emit(PadOp(x, value, width, mode))

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return cls._pad(node, node.attrs["paddings"], float(node.attr("value", 0.0)), None)

    @classmethod
    def _impl_v2(cls, node: OnnxNode) -> SSAValue:
        return cls._pad(node, node.attrs["pads"], float(node.attr("value", 0.0)), None)

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        value = _scalar_value(node, 2, node.input(0)) if node.has_input(2) else 0.0
        return cls._pad(node, node.constant_ints(1), value, None)

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        value = _scalar_value(node, 2, node.input(0)) if node.has_input(2) else 0.0
        return cls._pad(node, node.constant_ints(1), value, node.optional_constant_ints(3))


class CenterCropPad(OnnxOpConverter):
    """``CenterCropPad``: each axis in ``axes`` (default: all) is cropped or
    zero-padded to the size in ``shape``, centred (an odd difference puts
    the extra element at the end) → ``relay.strided_slice`` then
    ``relay.nn.pad`` where needed."""

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        shape = list(static_shape(x))
        axes = node.attr("axes")
        rank = len(shape)
        axes = list(range(rank)) if axes is None else normalize_axes(node, axes, rank, "axes")
        sizes = node.constant_ints(1)
        if len(sizes) != len(axes) or any(s < 0 for s in sizes):
            raise node.error(f"{node.input_label(1)} = {sizes} must hold one size per axis {axes}")
        begin, end, crop_axes = [], [], []
        width = [0] * (2 * len(shape))
        for axis, size in zip(axes, sizes):
            diff = shape[axis] - size
            if diff > 0:
                crop_axes.append(axis)
                begin.append(diff // 2)
                end.append(diff // 2 + size)
            elif diff < 0:
                width[2 * axis], width[2 * axis + 1] = -diff // 2, -diff - (-diff // 2)
        if crop_axes:
            x = node.emit(StridedSliceOp(x, begin, end, axes=crop_axes))
        if any(width):
            assert isinstance(x.type, TensorType)
            zero = node.const(np.zeros((), dtype_name(x.type.element_type)))
            x = node.emit(PadOp(x, zero, width))
        return x


class DepthToSpace(OnnxOpConverter):
    """``DepthToSpace`` → ``relay.nn.depth_to_space`` (``mode`` from opset
    11; ``DCR`` before)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return node.emit(DepthToSpaceOp(node.input(0), node.attrs["blocksize"]))

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        mode = node.attr("mode", "DCR")
        return node.emit(DepthToSpaceOp(node.input(0), node.attrs["blocksize"], mode))


class SpaceToDepth(OnnxOpConverter):
    """``SpaceToDepth`` → ``relay.nn.space_to_depth`` (``mode`` from opset
    28; ``DCR`` before)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return node.emit(SpaceToDepthOp(node.input(0), node.attrs["blocksize"]))

    @classmethod
    def _impl_v28(cls, node: OnnxNode) -> SSAValue:
        mode = node.attr("mode", "DCR")
        return node.emit(SpaceToDepthOp(node.input(0), node.attrs["blocksize"], mode))


class ReverseSequence(OnnxOpConverter):
    """``ReverseSequence`` → ``relay.reverse_sequence`` (``time_axis``
    default 0, ``batch_axis`` default 1; the lengths are a run-time
    tensor)."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        time_axis, batch_axis = node.attr("time_axis", 0), node.attr("batch_axis", 1)
        op = ReverseSequenceOp(node.input(0), node.input(1), time_axis, batch_axis)
        return node.emit(op)


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Expand": Expand,
    "Tile": Tile,
    "Pad": Pad,
    "CenterCropPad": CenterCropPad,
    "DepthToSpace": DepthToSpace,
    "SpaceToDepth": SpaceToDepth,
    "ReverseSequence": ReverseSequence,
}
