"""Lowerings of the unary maths of ``relay.math``: rounding, sign,
trigonometric and hyperbolic functions, erf, float classification. Each op
is ``topi.math``'s function of the same name, as in TVM."""

from __future__ import annotations

from collections.abc import Callable

from xtvm import te
from xtvm.dialects.relay.math import (
    AcoshOp,
    AcosOp,
    AsinhOp,
    AsinOp,
    AtanhOp,
    AtanOp,
    CeilOp,
    CoshOp,
    CosOp,
    ErfOp,
    FloorOp,
    IsFiniteOp,
    IsInfOp,
    IsNanOp,
    RoundOp,
    SignOp,
    SinhOp,
    SinOp,
    TanOp,
    TruncOp,
)
from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import math


def _unary(fn: Callable[[te.Tensor], te.Tensor]) -> ComputeFn:
    return lambda ins, attrs, outs: fn(ins[0])


PATTERNS = [
    lower(FloorOp, _unary(math.floor)),
    lower(CeilOp, _unary(math.ceil)),
    lower(RoundOp, _unary(math.round)),
    lower(TruncOp, _unary(math.trunc)),
    lower(SignOp, _unary(math.sign)),
    lower(SinOp, _unary(math.sin)),
    lower(CosOp, _unary(math.cos)),
    lower(TanOp, _unary(math.tan)),
    lower(AsinOp, _unary(math.asin)),
    lower(AcosOp, _unary(math.acos)),
    lower(AtanOp, _unary(math.atan)),
    lower(SinhOp, _unary(math.sinh)),
    lower(CoshOp, _unary(math.cosh)),
    lower(AsinhOp, _unary(math.asinh)),
    lower(AcoshOp, _unary(math.acosh)),
    lower(AtanhOp, _unary(math.atanh)),
    lower(ErfOp, _unary(math.erf)),
    lower(IsNanOp, _unary(math.isnan)),
    lower(IsInfOp, _unary(math.isinf)),
    lower(IsFiniteOp, _unary(math.isfinite)),
]
OPS = ops_of(PATTERNS)
