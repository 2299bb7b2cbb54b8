"""Lowerings of comparisons, logical and bitwise ops, shifts and
``relay.where``: each op is ``topi.logical``'s function of the same name on
the op's operands."""

from __future__ import annotations

from collections.abc import Callable

from xtvm import te
from xtvm.dialects.relay.logical import (
    BitwiseAndOp,
    BitwiseNotOp,
    BitwiseOrOp,
    BitwiseXorOp,
    EqualOp,
    GreaterEqualOp,
    GreaterOp,
    LeftShiftOp,
    LessEqualOp,
    LessOp,
    LogicalAndOp,
    LogicalNotOp,
    LogicalOrOp,
    LogicalXorOp,
    NotEqualOp,
    RightShiftOp,
    WhereOp,
)
from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import logical


def _on_operands(fn: Callable[..., te.Tensor]) -> ComputeFn:
    return lambda ins, attrs, outs: fn(*ins)


PATTERNS = [
    lower(EqualOp, _on_operands(logical.equal)),
    lower(NotEqualOp, _on_operands(logical.not_equal)),
    lower(LessOp, _on_operands(logical.less)),
    lower(LessEqualOp, _on_operands(logical.less_equal)),
    lower(GreaterOp, _on_operands(logical.greater)),
    lower(GreaterEqualOp, _on_operands(logical.greater_equal)),
    lower(LogicalAndOp, _on_operands(logical.logical_and)),
    lower(LogicalOrOp, _on_operands(logical.logical_or)),
    lower(LogicalXorOp, _on_operands(logical.logical_xor)),
    lower(LogicalNotOp, _on_operands(logical.logical_not)),
    lower(BitwiseAndOp, _on_operands(logical.bitwise_and)),
    lower(BitwiseOrOp, _on_operands(logical.bitwise_or)),
    lower(BitwiseXorOp, _on_operands(logical.bitwise_xor)),
    lower(BitwiseNotOp, _on_operands(logical.bitwise_not)),
    lower(LeftShiftOp, _on_operands(logical.left_shift)),
    lower(RightShiftOp, _on_operands(logical.right_shift)),
    lower(WhereOp, _on_operands(logical.where)),
]
OPS = ops_of(PATTERNS)
