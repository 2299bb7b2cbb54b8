"""Converter for ``TensorScatter`` (opset 24), the KV-cache update: each
batch's ``update`` is written into ``past_cache`` along the sequence
``axis`` from that batch's ``write_indices`` on (wrapping around in
``circular`` mode). Composed of relay ops: every cache position's offset
into the update (an ``arange`` minus the batch's write index, modulo the
cache length when circular) selects the update's entry
(``relay.gather``) where it falls inside the update and the past entry
elsewhere (``relay.where``)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    ArangeOp,
    BroadcastToOp,
    CastOp,
    FloorModOp,
    GatherOp,
    GreaterEqualOp,
    LessOp,
    LogicalAndOp,
    ReshapeOp,
    SubtractOp,
    WhereOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


class TensorScatter(OnnxOpConverter):
    """``TensorScatter(past_cache, update, write_indices?)`` →
    ``present_cache`` (see the module docstring)."""

    @classmethod
    def _impl_v24(cls, node: OnnxNode) -> SSAValue:
        past, update = node.input(0), node.input(1)
        cache_shape, update_shape = node.input_shape(0), node.input_shape(1)
        rank = len(cache_shape)
        axis = int(node.attr("axis", -2))
        if not -rank <= axis < rank:
            raise node.error(f"axis {axis} is out of range for rank {rank}")
        axis %= rank
        if axis == 0:
            raise node.error("axis must not be the batch axis 0")
        mode = node.attr("mode", "linear")
        if mode not in ("linear", "circular"):
            raise node.error(f"mode must be 'linear' or 'circular', got {mode!r}")
        if len(update_shape) != rank or any(
            u != c for d, (u, c) in enumerate(zip(update_shape, cache_shape)) if d != axis
        ) or update_shape[axis] > cache_shape[axis]:
            raise node.error(
                f"update of shape {list(update_shape)} does not fit past_cache of shape "
                f"{list(cache_shape)} along axis {axis}"
            )
        length, count = cache_shape[axis], update_shape[axis]
        at_axis = [1] * rank
        at_axis[axis] = length
        offset = node.emit(ArangeOp(0.0, float(length), 1.0, "int64"))
        offset = node.emit(ReshapeOp(offset, at_axis))  # each cache position
        if node.has_input(2):
            starts = node.emit(CastOp(node.input(2), "int64"))
            starts = node.emit(ReshapeOp(starts, [cache_shape[0]] + [1] * (rank - 1)))
            offset = node.emit(SubtractOp(offset, starts))  # into the update
        if mode == "circular":
            offset = node.emit(FloorModOp(offset, node.const(np.asarray(length, np.int64))))
        inside = node.emit(
            LogicalAndOp(
                node.emit(GreaterEqualOp(offset, node.const(np.asarray(0, np.int64)))),
                node.emit(LessOp(offset, node.const(np.asarray(count, np.int64)))),
            )
        )
        index_shape = list(update_shape)
        index_shape[axis] = length
        index = node.emit(WhereOp(inside, offset, node.const(np.asarray(0, np.int64))))
        index = node.emit(BroadcastToOp(index, index_shape))
        written = node.emit(GatherOp(update, index, axis))
        return node.emit(WhereOp(node.emit(BroadcastToOp(inside, index_shape)), written, past))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"TensorScatter": TensorScatter}
