"""Lowerings of shape ops: reshapes, transposes, concatenation and splits,
squeeze and expand_dims, ``relay.full``. (``relay.tuple``,
``relay.tuple_get`` and ``relay.call_lowered`` compute nothing: they stay.)"""

from __future__ import annotations

from xtvm import topi
from xtvm.dialects.relay.transform import (
    ConcatenateOp,
    ExpandDimsOp,
    FullOp,
    ReshapeOp,
    SplitOp,
    SqueezeOp,
    TransposeOp,
)
from xtvm.lowering.relay_to_tir.base import static_or_none
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi.transform import resolve_reshape


def _copied(attrs: dict) -> int:
    """How many leading axes a reshape's ``newshape`` copies (``0`` without
    ``allowzero``)."""
    if attrs["allowzero"]:
        return 0
    newshape = list(attrs["newshape"])
    return next((k for k, d in enumerate(newshape) if d != 0), len(newshape))


PATTERNS = [
    # The result type holds the resolved shape (no 0 or -1 left).
    lower(
        ReshapeOp,
        lambda ins, attrs, outs: topi.reshape(
            ins[0], resolve_reshape(ins[0].shape, static_or_none(outs[0]), _copied(attrs))
        ),
    ),
    lower(TransposeOp, lambda ins, attrs, outs: topi.transpose(ins[0], attrs.get("axes"))),
    lower(ConcatenateOp, lambda ins, attrs, outs: topi.concatenate(ins, attrs["axis"])),
    lower(
        SplitOp,
        lambda ins, attrs, outs: topi.split(
            ins[0],
            SplitOp.bounds(ins[0].shape[attrs["axis"]], attrs["indices_or_sections"]),
            attrs["axis"],
        ),
    ),
    lower(SqueezeOp, lambda ins, attrs, outs: topi.squeeze(ins[0], attrs.get("axis"))),
    lower(
        ExpandDimsOp,
        lambda ins, attrs, outs: topi.expand_dims(ins[0], attrs["axis"], attrs["num_newaxis"]),
    ),
    lower(
        FullOp,
        lambda ins, attrs, outs: topi.full(
            outs[0].get_shape(), attrs.get("dtype") or ins[0].dtype, ins[0]
        ),
    ),
]
OPS = ops_of(PATTERNS)
