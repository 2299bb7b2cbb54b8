"""Lowerings of the data-dependent ops and their shape functions
(``relay.nonzero``, ``relay.compress``, ``relay.unique``,
``relay.non_max_suppression`` and their ``_shape`` ops). The
ops' shape operand is an argument of the kernel that the compute does not
read: the VM allocates the result from it before the call."""

from __future__ import annotations

from xtvm.dialects.relay.dynamic import (
    CompressOp,
    CompressShapeOp,
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
        lambda ins, attrs, outs: dynamic.unique_shape(ins[0], attrs.get("axis"), attrs["is_sorted"]),
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
]
OPS = ops_of(PATTERNS)
