"""Scalar functions of the ``te`` namespace: constants, casts, selection,
integer division variants, math calls and bitwise operations (TVM's
``tvm.tir.op``).

Operations without an expression node of their own are :class:`Call` nodes of
kind ``"math"`` whose ``op`` names the ``math`` or ``arith`` op that
computes them (``"exp"``, ``"andi"``, ``"select"``; the table is in
:mod:`xtvm.te.emit`).
"""

from __future__ import annotations

import math
from typing import Any

from xtvm.te import dtype as dt
from xtvm.te.expr import (
    Call,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Mod,
    PrimExpr,
    Select,
    _operands,
    binary,
    cast,
    convert,
)


def const(value: int | float | bool, dtype: str | None = None) -> PrimExpr:
    """A constant of ``dtype`` (default ``int32`` for ints, ``float32`` for floats)."""
    if dtype is None:
        return convert(value)
    dt.check_dtype(dtype)
    if dt.is_float(dtype):
        return FloatImm(float(value), dtype)
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"the constant {value} is not an integer ({dtype})")
    return cast(dtype, IntImm(int(value), "index"))


def max_value(dtype: str) -> PrimExpr:
    """The largest finite value of ``dtype``."""
    return const(dt.max_value(dt.check_dtype(dtype)), dtype)


def min_value(dtype: str) -> PrimExpr:
    """The smallest finite value of ``dtype`` (the most negative for floats)."""
    return const(dt.min_value(dt.check_dtype(dtype)), dtype)


def if_then_else(condition: Any, true_value: Any, false_value: Any) -> PrimExpr:
    """``true_value`` where ``condition`` holds, else ``false_value``; only
    the chosen value is evaluated."""
    cond = convert(condition, "bool")
    if cond.dtype != "bool":
        raise TypeError(f"te.if_then_else needs a bool condition, got {cond!r} ({cond.dtype})")
    t, f = _operands(true_value, false_value)
    return Select(cond, t, f)


select = if_then_else
"""TVM's ``tir.Select``; here it shares ``if_then_else``'s lazy evaluation."""


def truncdiv(a: Any, b: Any) -> PrimExpr:
    """Integer division rounding toward zero (C's ``/``)."""
    return binary(Div, a, b)


def truncmod(a: Any, b: Any) -> PrimExpr:
    """Remainder of :func:`truncdiv` (C's ``%``)."""
    return binary(Mod, a, b)


def floordiv(a: Any, b: Any) -> PrimExpr:
    """Division rounding toward negative infinity (Python's ``//``)."""
    return binary(FloorDiv, a, b)


def floormod(a: Any, b: Any) -> PrimExpr:
    """Remainder of :func:`floordiv` (Python's ``%``)."""
    return binary(FloorMod, a, b)


def _math(op: str, x: Any) -> PrimExpr:
    e = convert(x)
    if not dt.is_float(e.dtype):
        raise TypeError(f"te.{op} expects a float expression, got {e!r} of dtype {e.dtype}")
    return Call(e.dtype, op, (e,), "math")


def exp(x: Any) -> PrimExpr:
    """``e ** x`` (``math.exp``)."""
    return _math("exp", x)


def floor(x: Any) -> PrimExpr:
    """Rounding toward ``-inf`` (``math.floor``)."""
    return _math("floor", x)


def ceil(x: Any) -> PrimExpr:
    """Rounding toward ``+inf`` (``math.ceil``)."""
    return _math("ceil", x)


def trunc(x: Any) -> PrimExpr:
    """Rounding toward zero (``math.trunc``)."""
    return _math("trunc", x)


def round(x: Any) -> PrimExpr:  # noqa: A001
    """Rounding to the nearest integer, halves to even (``math.roundeven``)."""
    return _math("roundeven", x)


def sin(x: Any) -> PrimExpr:
    """Sine (``math.sin``)."""
    return _math("sin", x)


def cos(x: Any) -> PrimExpr:
    """Cosine (``math.cos``)."""
    return _math("cos", x)


def tan(x: Any) -> PrimExpr:
    """Tangent (``math.tan``)."""
    return _math("tan", x)


def asin(x: Any) -> PrimExpr:
    """Arcsine (``math.asin``)."""
    return _math("asin", x)


def acos(x: Any) -> PrimExpr:
    """Arccosine (``math.acos``)."""
    return _math("acos", x)


def atan(x: Any) -> PrimExpr:
    """Arctangent (``math.atan``)."""
    return _math("atan", x)


def sinh(x: Any) -> PrimExpr:
    """Hyperbolic sine (``math.sinh``)."""
    return _math("sinh", x)


def cosh(x: Any) -> PrimExpr:
    """Hyperbolic cosine (``math.cosh``)."""
    return _math("cosh", x)


def asinh(x: Any) -> PrimExpr:
    """Inverse hyperbolic sine (``math.asinh``)."""
    return _math("asinh", x)


def acosh(x: Any) -> PrimExpr:
    """Inverse hyperbolic cosine (``math.acosh``)."""
    return _math("acosh", x)


def atanh(x: Any) -> PrimExpr:
    """Inverse hyperbolic tangent (``math.atanh``)."""
    return _math("atanh", x)


def erf(x: Any) -> PrimExpr:
    """The Gauss error function (``math.erf``)."""
    return _math("erf", x)


def copysign(x: Any, y: Any) -> PrimExpr:
    """``|x|`` with the sign of ``y`` (``math.copysign``, floats)."""
    a, b = _operands(x, y)
    if not dt.is_float(a.dtype):
        raise TypeError(f"te.copysign expects float expressions, got {a!r} of dtype {a.dtype}")
    return Call(a.dtype, "copysign", (a, b), "math")


def isnan(x: Any) -> PrimExpr:
    """Whether a float is NaN (``x != x``)."""
    e = _float("isnan", x)
    return e != e


def isinf(x: Any) -> PrimExpr:
    """Whether a float is ``+inf`` or ``-inf``."""
    return abs(_float("isinf", x)) == math.inf


def isfinite(x: Any) -> PrimExpr:
    """Whether a float is neither infinite nor NaN (NaN compares false)."""
    return abs(_float("isfinite", x)) < math.inf


def _float(op: str, x: Any) -> PrimExpr:
    e = convert(x)
    if not dt.is_float(e.dtype):
        raise TypeError(f"te.{op} expects a float expression, got {e!r} of dtype {e.dtype}")
    return e


def _bitwise(op: str, name: str, x: Any, y: Any) -> PrimExpr:
    a, b = _operands(x, y)
    if not dt.is_int(a.dtype) or a.dtype == "index":
        raise TypeError(f"te.{name} expects integer expressions, got {a!r} of dtype {a.dtype}")
    return Call(a.dtype, op, (a, b), "math")


def bitwise_and(x: Any, y: Any) -> PrimExpr:
    """``x & y`` on integers (``arith.andi``)."""
    return _bitwise("andi", "bitwise_and", x, y)


def bitwise_or(x: Any, y: Any) -> PrimExpr:
    """``x | y`` on integers (``arith.ori``)."""
    return _bitwise("ori", "bitwise_or", x, y)


def bitwise_xor(x: Any, y: Any) -> PrimExpr:
    """``x ^ y`` on integers (``arith.xori``)."""
    return _bitwise("xori", "bitwise_xor", x, y)


def bitwise_not(x: Any) -> PrimExpr:
    """``~x`` on integers: ``x ^ -1``."""
    e = convert(x)
    return bitwise_xor(e, const(-1, e.dtype))


def shift_left(x: Any, y: Any) -> PrimExpr:
    """``x << y`` on integers (``arith.shli``); undefined unless ``0 <= y <
    bits`` (see ``topi.left_shift`` for the NumPy semantics)."""
    return _bitwise("shli", "shift_left", x, y)


def shift_right(x: Any, y: Any) -> PrimExpr:
    """``x >> y`` on integers: arithmetic for signed dtypes (``arith.shrsi``),
    logical for unsigned ones (``arith.shrui``); undefined unless ``0 <= y <
    bits``."""
    a, _ = _operands(x, y)
    return _bitwise("shrui" if dt.is_uint(a.dtype) else "shrsi", "shift_right", x, y)


def eager_select(condition: Any, true_value: Any, false_value: Any) -> PrimExpr:
    """``true_value`` where ``condition`` holds, else ``false_value``, both
    always evaluated (``arith.select``, TVM's ``tir.Select``): branch-free,
    for values that cannot fault, such as in-bounds loads. Use
    :func:`if_then_else` when the value not chosen must not be computed."""
    cond = convert(condition, "bool")
    if cond.dtype != "bool":
        raise TypeError(f"te.eager_select needs a bool condition, got {cond!r} ({cond.dtype})")
    t, f = _operands(true_value, false_value)
    return Call(t.dtype, "select", (cond, t, f), "math")


def log(x: Any) -> PrimExpr:
    """Natural logarithm (``math.log``)."""
    return _math("log", x)


def sqrt(x: Any) -> PrimExpr:
    """Square root (``math.sqrt``)."""
    return _math("sqrt", x)


def tanh(x: Any) -> PrimExpr:
    """Hyperbolic tangent (``math.tanh``)."""
    return _math("tanh", x)


def abs(x: Any) -> PrimExpr:  # noqa: A001
    """``|x|`` (``math.absf`` or ``math.absi``)."""
    e = convert(x)
    if e.dtype == "bool" or dt.is_uint(e.dtype):
        return e
    return Call(e.dtype, "absf" if dt.is_float(e.dtype) else "absi", (e,), "math")


def power(x: Any, y: Any) -> PrimExpr:
    """``x ** y`` on floats (``math.powf``)."""
    a, b = _operands(x, y)
    if not dt.is_float(a.dtype):
        raise TypeError(f"te.power expects float expressions, got {a!r} of dtype {a.dtype}")
    return Call(a.dtype, "powf", (a, b), "math")


def sigmoid(x: Any) -> PrimExpr:
    """``1 / (1 + exp(-x))``."""
    e = convert(x)
    return 1.0 / (1.0 + exp(-e))


def reinterpret(dtype: str, x: Any) -> PrimExpr:
    """The bits of ``x`` read as ``dtype`` of the same width (a bitcast:
    float32 1.0 → int32 0x3f800000). ``bool`` and the 8-bit types convert
    (a bool is stored as the byte 0 or 1)."""
    e, dtype = convert(x), dt.check_dtype(dtype)
    if "bool" in (e.dtype, dtype):
        if dt.bits(dtype if e.dtype == "bool" else e.dtype) != 8:
            raise ValueError(f"reinterpret: bool is 8 bits wide, {e.dtype} → {dtype} is not")
        return e.astype(dtype)
    if dt.bits(e.dtype) != dt.bits(dtype):
        raise ValueError(f"reinterpret: {e.dtype} and {dtype} differ in width")
    return e if e.dtype == dtype else Call(dtype, "reinterpret", (e,), "math")


def call_extern(dtype: str, name: str, *args: Any) -> PrimExpr:
    """A call of the C function ``name`` returning ``dtype`` (``tir.call_extern``)."""
    return Call(dt.check_dtype(dtype), name, tuple(convert(a) for a in args), "extern")


def call_intrin(dtype: str, name: str, *args: Any) -> PrimExpr:
    """A call of the LLVM intrinsic ``name`` (e.g. ``"llvm.fma.f32"``) returning
    ``dtype`` (``tir.call_intrin``)."""
    if not name.startswith("llvm."):
        raise ValueError(f"an LLVM intrinsic name starts with 'llvm.', got {name!r}")
    return Call(dt.check_dtype(dtype), name, tuple(convert(a) for a in args), "intrin")
