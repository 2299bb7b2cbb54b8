"""Converters for the unary maths: ``Floor``, ``Ceil``, ``Round``, ``Sign``,
``Reciprocal``, the trigonometric and hyperbolic functions and their
inverses, ``Erf``, ``IsNaN`` and ``IsInf`` (→ ``relay.floor``, ...).

Later versions of these ops only add element types (bfloat16, float8), so
one method covers every version.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AcoshOp,
    AcosOp,
    AsinhOp,
    AsinOp,
    AtanhOp,
    AtanOp,
    CeilOp,
    CoshOp,
    CosOp,
    DivideOp,
    ErfOp,
    FloorOp,
    GreaterOp,
    IsInfOp,
    IsNanOp,
    LessOp,
    LogicalAndOp,
    RoundOp,
    SignOp,
    SinhOp,
    SinOp,
    TanOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.tensor import UnaryConverter, element_dtype


class Floor(UnaryConverter):
    OP = FloorOp


class Ceil(UnaryConverter):
    OP = CeilOp


class Round(UnaryConverter):
    """``Round``: halves to even."""

    OP = RoundOp


class Sign(UnaryConverter):
    OP = SignOp


class Sin(UnaryConverter):
    OP = SinOp


class Cos(UnaryConverter):
    OP = CosOp


class Tan(UnaryConverter):
    OP = TanOp


class Asin(UnaryConverter):
    OP = AsinOp


class Acos(UnaryConverter):
    OP = AcosOp


class Atan(UnaryConverter):
    OP = AtanOp


class Sinh(UnaryConverter):
    OP = SinhOp


class Cosh(UnaryConverter):
    OP = CoshOp


class Asinh(UnaryConverter):
    OP = AsinhOp


class Acosh(UnaryConverter):
    OP = AcoshOp


class Atanh(UnaryConverter):
    OP = AtanhOp


class Erf(UnaryConverter):
    OP = ErfOp


class IsNaN(UnaryConverter):
    OP = IsNanOp


class Reciprocal(OnnxOpConverter):
    """``Reciprocal``: ``1 / x`` → ``relay.divide`` of a constant 1."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        one = node.const(np.array(1, element_dtype(x)))
        return node.emit(DivideOp(one, x))


class IsInf(OnnxOpConverter):
    """``IsInf`` → ``relay.isinf``, and with only one sign detected, that
    and ``x > 0`` (or ``x < 0``); detecting neither is ``x < x`` (false).
    No infinite constant is involved: xDSL 0.75 prints a splat ``inf`` as a
    hex literal that it parses back as an integer."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        positive, negative = node.attr("detect_positive", 1), node.attr("detect_negative", 1)
        if not (positive or negative):
            return node.emit(LessOp(x, x))
        inf = node.emit(IsInfOp(x))
        if positive and negative:
            return inf
        zero = node.const(np.array(0, element_dtype(x)))
        sign = node.emit(GreaterOp(x, zero) if positive else LessOp(x, zero))
        return node.emit(LogicalAndOp(inf, sign))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Floor": Floor,
    "Ceil": Ceil,
    "Round": Round,
    "Sign": Sign,
    "Sin": Sin,
    "Cos": Cos,
    "Tan": Tan,
    "Asin": Asin,
    "Acos": Acos,
    "Atan": Atan,
    "Sinh": Sinh,
    "Cosh": Cosh,
    "Asinh": Asinh,
    "Acosh": Acosh,
    "Atanh": Atanh,
    "Erf": Erf,
    "IsNaN": IsNaN,
    "IsInf": IsInf,
    "Reciprocal": Reciprocal,
}
