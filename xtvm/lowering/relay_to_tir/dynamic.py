"""Lowerings of the data-dependent ops and their shape functions
(``relay.nonzero``, ``relay.compress``, ``relay.unique``,
``relay.non_max_suppression`` and their ``_shape`` ops). The
ops' shape operand is an argument of the kernel that the compute does not
read: the VM allocates the result from it before the call."""

from __future__ import annotations

from xtvm.dialects.relay.dynamic import (
    CompressOp,
    CompressShapeOp,
    DynArangeOp,
    DynArangeShapeOp,
    DynBroadcastToOp,
    DynBroadcastToShapeOp,
    DynFullOp,
    DynReshapeOp,
    DynReshapeShapeOp,
    DynResizeOp,
    DynResizeShapeOp,
    DynTileOp,
    DynTileShapeOp,
    DynTopKOp,
    DynTopKShapeOp,
    NonMaxSuppressionOp,
    NonMaxSuppressionShapeOp,
    NonZeroOp,
    NonZeroShapeOp,
    UniqueOp,
    UniqueShapeOp,
)
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import dynamic

PATTERNS = [
    lower(NonZeroShapeOp, lambda ins, attrs, outs: dynamic.nonzero_shape(ins[0])),
    lower(NonZeroOp, lambda ins, attrs, outs: dynamic.nonzero(ins[0])),
    lower(
        CompressShapeOp,
        lambda ins, attrs, outs: dynamic.compress_shape(ins[0], ins[1], attrs.get("axis")),
    ),
    lower(
        CompressOp,
        lambda ins, attrs, outs: dynamic.compress(ins[0], ins[1], attrs.get("axis")),
    ),
    lower(
        UniqueShapeOp,
        lambda ins, attrs, outs: dynamic.unique_shape(
            ins[0], attrs.get("axis"), attrs["is_sorted"]
        ),
    ),
    lower(
        UniqueOp,
        lambda ins, attrs, outs: dynamic.unique(ins[0], attrs.get("axis"), attrs["is_sorted"]),
    ),
    lower(
        NonMaxSuppressionShapeOp,
        lambda ins, attrs, outs: dynamic.non_max_suppression_shape(
            *ins, attrs["center_point_box"], attrs["has_score_threshold"]
        ),
    ),
    lower(
        NonMaxSuppressionOp,
        lambda ins, attrs, outs: dynamic.non_max_suppression(
            *ins[:5], attrs["center_point_box"], attrs["has_score_threshold"]
        ),
    ),
    lower(DynArangeShapeOp, lambda ins, attrs, outs: dynamic.arange_shape(*ins)),
    lower(DynArangeOp, lambda ins, attrs, outs: dynamic.arange(ins[0], ins[1])),
    lower(DynFullOp, lambda ins, attrs, outs: dynamic.full(ins[0], len(outs[0].get_shape()))),
    lower(DynBroadcastToShapeOp, lambda ins, attrs, outs: dynamic.broadcast_to_shape(*ins)),
    lower(
        DynBroadcastToOp,
        lambda ins, attrs, outs: dynamic.broadcast_to(ins[0], len(outs[0].get_shape())),
    ),
    lower(DynTileShapeOp, lambda ins, attrs, outs: dynamic.tile_shape(*ins)),
    lower(DynTileOp, lambda ins, attrs, outs: dynamic.tile(ins[0])),
    lower(
        DynReshapeShapeOp,
        lambda ins, attrs, outs: dynamic.reshape_shape(ins[0], ins[1], attrs["allowzero"]),
    ),
    lower(DynReshapeOp, lambda ins, attrs, outs: dynamic.reshape(ins[0], len(outs[0].get_shape()))),
    lower(
        DynTopKShapeOp,
        lambda ins, attrs, outs: dynamic.topk_shape(
            ins[0], ins[1], attrs["axis"] % len(ins[0].shape)
        ),
    ),
    lower(
        DynTopKOp,
        lambda ins, attrs, outs: dynamic.topk(
            ins[0], attrs["axis"] % len(ins[0].shape), attrs["is_ascend"]
        ),
    ),
]
_RESIZE_ATTRS = (
    "method",
    "coordinate_transformation_mode",
    "rounding_method",
    "cubic_alpha",
    "cubic_exclude",
    "extrapolation_value",
)
PATTERNS += [
    lower(
        DynResizeShapeOp,
        lambda ins, attrs, outs: dynamic.resize_shape(
            ins[0], ins[1], list(attrs["axes"]), attrs["scales_given"], attrs["policy"]
        ),
    ),
    lower(
        DynResizeOp,
        lambda ins, attrs, outs: dynamic.resize(
            ins[0],
            ins[1],
            ins[2],
            list(attrs["axes"]),
            attrs["scales_given"],
            attrs["policy"],
            antialias=False,
            **{k: attrs[k] for k in _RESIZE_ATTRS},
        ),
    ),
]
OPS = ops_of(PATTERNS)
