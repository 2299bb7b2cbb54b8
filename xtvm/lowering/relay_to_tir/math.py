"""Computes of the unary maths of ``relay.math``: rounding, sign,
trigonometric and hyperbolic functions, erf, float classification."""

from __future__ import annotations

from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.topi import math

_UNARY = (
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "isnan",
    "isinf",
    "isfinite",
)


def _unary(name: str) -> ComputeFn:
    compute = getattr(math, name)
    return lambda ins, attrs, outs: compute(ins[0])


COMPUTES: dict[str, ComputeFn] = {f"relay.{name}": _unary(name) for name in _UNARY}
"""``relay.<name>`` → ``topi.math.<name>``: one name per op, as in TVM."""
