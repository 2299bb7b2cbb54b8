"""Computes of comparisons, logical and bitwise ops, shifts and
``relay.where``."""

from __future__ import annotations

from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.topi import logical

_OPS = (
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "left_shift",
    "right_shift",
    "where",
)


def _row(name: str) -> ComputeFn:
    compute = getattr(logical, name)
    return lambda ins, attrs, outs: compute(*ins)


COMPUTES: dict[str, ComputeFn] = {f"relay.{name}": _row(name) for name in _OPS}
"""``relay.<name>`` → ``topi.logical.<name>`` on the op's operands."""
