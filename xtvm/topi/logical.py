"""Computes of comparisons, logical and bitwise ops, shifts and ``where``
(TVM's ``topi/broadcast.py`` and ``topi.where``), all with NumPy
broadcasting."""

from __future__ import annotations

from collections.abc import Callable

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.topi.tensor import broadcast_compute, broadcast_indices, broadcast_shape, elemwise


def _compare(name: str, fcompute: Callable[[PrimExpr, PrimExpr], PrimExpr]):
    def compute(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
        return broadcast_compute(lhs, rhs, fcompute, f"T_{name}")

    compute.__doc__ = f"``{name}(lhs, rhs)`` with broadcasting: a bool tensor."
    return compute


equal = _compare("equal", lambda a, b: a == b)
not_equal = _compare("not_equal", lambda a, b: a != b)
less = _compare("less", lambda a, b: a < b)
less_equal = _compare("less_equal", lambda a, b: a <= b)
greater = _compare("greater", lambda a, b: a > b)
greater_equal = _compare("greater_equal", lambda a, b: a >= b)


def _check(name: str, x: te.Tensor, want: str) -> None:
    ok = x.dtype == "bool" if want == "bool" else dt.is_int(x.dtype)
    if not ok:
        raise TypeError(f"{name} needs {want} tensors, got {x.dtype}")


def _binary(name: str, want: str, fcompute: Callable[[PrimExpr, PrimExpr], PrimExpr]):
    def compute(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
        _check(name, lhs, want)
        return broadcast_compute(lhs, rhs, fcompute, f"T_{name}")

    compute.__doc__ = f"``{name}(lhs, rhs)`` of {want} tensors, with broadcasting."
    return compute


logical_and = _binary("logical_and", "bool", lambda a, b: a & b)
logical_or = _binary("logical_or", "bool", lambda a, b: a | b)
logical_xor = _binary("logical_xor", "bool", lambda a, b: a != b)
bitwise_and = _binary("bitwise_and", "integer", te.bitwise_and)
bitwise_or = _binary("bitwise_or", "integer", te.bitwise_or)
bitwise_xor = _binary("bitwise_xor", "integer", te.bitwise_xor)


def logical_not(x: te.Tensor) -> te.Tensor:
    """``not x`` of a bool tensor."""
    _check("logical_not", x, "bool")
    return elemwise(x, lambda v: ~v, "T_logical_not")


def bitwise_not(x: te.Tensor) -> te.Tensor:
    """``~x`` of an integer tensor."""
    _check("bitwise_not", x, "integer")
    return elemwise(x, te.bitwise_not, "T_bitwise_not")


def _out_of_range(shift: PrimExpr) -> PrimExpr:
    """Whether a shift amount is negative or at least the bit width: one
    unsigned comparison (a negative amount reads as a huge unsigned one)."""
    dtype = shift.dtype
    unsigned = shift if dt.is_uint(dtype) else shift.astype(f"u{dtype}")
    return unsigned >= dt.bits(dtype)


def left_shift(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``lhs << rhs`` with broadcasting; bits shifted out are lost and an
    amount out of ``[0, bits)`` gives 0 (NumPy, ONNX ``BitShift``)."""
    _check("left_shift", lhs, "integer")

    def fcompute(a: PrimExpr, b: PrimExpr) -> PrimExpr:
        # the shift runs on a clamped amount: LLVM's shl of >= bits is poison
        outside = _out_of_range(b)
        safe = te.eager_select(outside, te.const(0, b.dtype), b)
        return te.eager_select(outside, te.const(0, a.dtype), te.shift_left(a, safe))

    return broadcast_compute(lhs, rhs, fcompute, "T_left_shift")


def right_shift(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``lhs >> rhs`` with broadcasting: arithmetic for signed integers,
    logical for unsigned ones; an amount out of ``[0, bits)`` shifts every
    bit out (0, or -1 for a negative signed value)."""
    _check("right_shift", lhs, "integer")
    top = dt.bits(lhs.dtype) - 1

    def fcompute(a: PrimExpr, b: PrimExpr) -> PrimExpr:
        outside = _out_of_range(b)
        shifted = te.shift_right(a, te.eager_select(outside, te.const(top, b.dtype), b))
        if not dt.is_uint(a.dtype):
            return shifted  # shifting by bits - 1 fills with the sign
        return te.eager_select(outside, te.const(0, a.dtype), shifted)

    return broadcast_compute(lhs, rhs, fcompute, "T_right_shift")


def where(condition: te.Tensor, x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """``x`` where ``condition`` holds, else ``y``; the three broadcast
    together. Both values are read (branch-free: the reads are in bounds)."""
    if condition.dtype != "bool":
        raise TypeError(f"where needs a bool condition, got {condition.dtype}")
    if x.dtype != y.dtype:
        raise TypeError(f"where: x and y dtypes differ ({x.dtype} and {y.dtype})")
    shape = broadcast_shape(broadcast_shape(condition.shape, x.shape), y.shape)

    def fcompute(*i: PrimExpr) -> PrimExpr:
        c, a, b = (t[broadcast_indices(t.shape, shape, i)] for t in (condition, x, y))
        return te.eager_select(c, a, b)

    return te.compute(shape, fcompute, name="T_where", tag="broadcast")
