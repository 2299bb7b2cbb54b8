"""Scalar functions of the ``te`` namespace: constants, casts, selection,
integer division variants and math calls (TVM's ``tvm.tir.op``)."""

from __future__ import annotations

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


def call_extern(dtype: str, name: str, *args: Any) -> PrimExpr:
    """A call of the C function ``name`` returning ``dtype`` (``tir.call_extern``)."""
    return Call(dt.check_dtype(dtype), name, tuple(convert(a) for a in args), "extern")


def call_intrin(dtype: str, name: str, *args: Any) -> PrimExpr:
    """A call of the LLVM intrinsic ``name`` (e.g. ``"llvm.fma.f32"``) returning
    ``dtype`` (``tir.call_intrin``)."""
    if not name.startswith("llvm."):
        raise ValueError(f"an LLVM intrinsic name starts with 'llvm.', got {name!r}")
    return Call(dt.check_dtype(dtype), name, tuple(convert(a) for a in args), "intrin")
