"""Lowerings of elementwise maths, ``relay.cast`` and ``relay.shape_of``."""

from __future__ import annotations

from xtvm import topi
from xtvm.dialects.relay.tensor import (
    AbsOp,
    AddOp,
    CastOp,
    ClipOp,
    DivideOp,
    ExpOp,
    FloorModOp,
    LogOp,
    MaximumOp,
    MinimumOp,
    MultiplyOp,
    NegativeOp,
    PowerOp,
    ShapeOfOp,
    SigmoidOp,
    SqrtOp,
    SubtractOp,
    TanhOp,
    TruncModOp,
)
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of

PATTERNS = [
    lower(AddOp, lambda ins, attrs, outs: topi.add(*ins)),
    lower(SubtractOp, lambda ins, attrs, outs: topi.subtract(*ins)),
    lower(MultiplyOp, lambda ins, attrs, outs: topi.multiply(*ins)),
    lower(DivideOp, lambda ins, attrs, outs: topi.divide(*ins)),
    lower(FloorModOp, lambda ins, attrs, outs: topi.floor_mod(*ins)),
    lower(TruncModOp, lambda ins, attrs, outs: topi.trunc_mod(*ins)),
    lower(MaximumOp, lambda ins, attrs, outs: topi.maximum(*ins)),
    lower(MinimumOp, lambda ins, attrs, outs: topi.minimum(*ins)),
    lower(PowerOp, lambda ins, attrs, outs: topi.power(*ins)),
    lower(SigmoidOp, lambda ins, attrs, outs: topi.sigmoid(ins[0])),
    lower(TanhOp, lambda ins, attrs, outs: topi.tanh(ins[0])),
    lower(ExpOp, lambda ins, attrs, outs: topi.exp(ins[0])),
    lower(SqrtOp, lambda ins, attrs, outs: topi.sqrt(ins[0])),
    lower(LogOp, lambda ins, attrs, outs: topi.log(ins[0])),
    lower(NegativeOp, lambda ins, attrs, outs: topi.negative(ins[0])),
    lower(AbsOp, lambda ins, attrs, outs: topi.abs(ins[0])),
    lower(ClipOp, lambda ins, attrs, outs: topi.clip(ins[0], attrs["a_min"], attrs["a_max"])),
    lower(
        CastOp,
        lambda ins, attrs, outs: topi.cast(
            ins[0], attrs["dtype"], attrs.get("saturate", False), attrs.get("round_mode", "up")
        ),
    ),
    lower(ShapeOfOp, lambda ins, attrs, outs: topi.shape_of(ins[0], attrs["dtype"])),
]
OPS = ops_of(PATTERNS)
