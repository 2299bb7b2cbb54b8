"""Computes of the unary maths beyond ``tensor``'s (TVM's ``topi/math.py``):
rounding, sign, trigonometric and hyperbolic functions, erf, and the float
classifications isnan / isinf / isfinite."""

from __future__ import annotations

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.topi.tensor import elemwise, float_elemwise

floor = float_elemwise("floor", te.floor)
ceil = float_elemwise("ceil", te.ceil)
round = float_elemwise("round", te.round)  # noqa: A001 (TVM's name)
trunc = float_elemwise("trunc", te.trunc)
sin = float_elemwise("sin", te.sin)
cos = float_elemwise("cos", te.cos)
tan = float_elemwise("tan", te.tan)
asin = float_elemwise("asin", te.asin)
acos = float_elemwise("acos", te.acos)
atan = float_elemwise("atan", te.atan)
sinh = float_elemwise("sinh", te.sinh)
cosh = float_elemwise("cosh", te.cosh)
asinh = float_elemwise("asinh", te.asinh)
acosh = float_elemwise("acosh", te.acosh)
atanh = float_elemwise("atanh", te.atanh)
erf = float_elemwise("erf", te.erf)


def sign(x: te.Tensor) -> te.Tensor:
    """``-1``, ``0`` or ``1`` by the sign of every element; a float NaN stays
    NaN (NumPy's ``sign``)."""
    dtype = x.dtype
    if not (dt.is_float(dtype) or dt.is_int(dtype)):
        raise TypeError(f"sign needs a numeric tensor, got {dtype}")
    one, zero = te.const(1, dtype), te.const(0, dtype)

    def fcompute(v: PrimExpr) -> PrimExpr:
        if dt.is_uint(dtype):
            return te.eager_select(v > zero, one, zero)
        rest = te.eager_select(v == v, zero, v) if dt.is_float(dtype) else zero  # NaN
        return te.eager_select(v > zero, one, te.eager_select(v < zero, te.const(-1, dtype), rest))

    return elemwise(x, fcompute, "T_sign")


# bool results
isnan = float_elemwise("isnan", te.isnan)
isinf = float_elemwise("isinf", te.isinf)
isfinite = float_elemwise("isfinite", te.isfinite)
