"""Elementwise computes: broadcasting binary arithmetic (TVM's
``topi/broadcast.py``), unary maths, clip, cast, shape_of, identity, full.
More unary maths are in ``math``; comparisons, logical and bitwise ops
and ``where`` in ``logical``."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import IntImm, PrimExpr
from xtvm.te.reduced_float import convert_float
from xtvm.te.symbolic import Dim, format_dim


def broadcast_shape(lhs: Sequence[Dim], rhs: Sequence[Dim]) -> tuple[Dim, ...]:
    """NumPy broadcasting of two shapes. Two different shape variables at one
    axis must be equal at run time (:func:`te.assume_equal`: the kernel's
    entry checks it); a shape variable against a static extent ``k`` other
    than 1 gives ``k`` and must be 1 or ``k`` at run time
    (:func:`broadcast_extent`)."""
    rank = max(len(lhs), len(rhs))
    a = [1] * (rank - len(lhs)) + list(lhs)
    b = [1] * (rank - len(rhs)) + list(rhs)
    out: list[Dim] = []
    for x, y in zip(a, b):
        if isinstance(x, int) and isinstance(y, int):
            if x != y and 1 not in (x, y):
                raise ValueError(f"cannot broadcast shapes {list(lhs)} and {list(rhs)}")
            out.append(y if x == 1 else x)
        elif x is y or (isinstance(y, int) and y == 1):
            out.append(x)
        elif isinstance(x, int) and x == 1:
            out.append(y)
        elif isinstance(x, int) or isinstance(y, int):
            out.append(broadcast_extent(y if isinstance(x, int) else x, x if isinstance(x, int) else y))
        else:
            out.append(te.assume_equal(x, y, f"broadcasting {list(lhs)} and {list(rhs)}"))
    return tuple(out)


def broadcast_extent(dim: PrimExpr, target: int) -> int:
    """A dynamic extent broadcast to the static ``target``: the kernel checks
    that it is 1 or ``target`` when called (:func:`te.require`), and its
    reads pick index 0 when it is 1 (:func:`broadcast_indices`)."""
    te.require(
        (dim == 1) | (dim == target),
        f"a dynamic extent ({format_dim(dim)}) broadcast to {target} must be 1 or {target}",
    )
    return target


def broadcast_indices(
    shape: Sequence[Dim], out_shape: Sequence[Dim], indices: Sequence[PrimExpr]
) -> list[PrimExpr]:
    """The indices into a tensor of ``shape`` broadcast to ``out_shape``, for
    the output element at ``indices``: leading output axes the tensor lacks are
    dropped, its size-1 axes read index 0, and a dynamic axis broadcast to a
    static one reads index 0 when it is 1 at run time."""
    offset = len(out_shape) - len(shape)
    result: list[PrimExpr] = []
    for d, size in enumerate(shape):
        out, index = out_shape[offset + d], indices[offset + d]
        if isinstance(size, int):
            result.append(IntImm(0, "index") if size == 1 and out != 1 else index)
        elif isinstance(out, int) and out != 1:
            result.append(te.if_then_else(size == 1, IntImm(0, "index"), index))
        else:
            result.append(index)
    return result


def broadcast_compute(
    lhs: te.Tensor,
    rhs: te.Tensor,
    fcompute: Callable[[PrimExpr, PrimExpr], PrimExpr],
    name: str,
) -> te.Tensor:
    """``fcompute`` applied elementwise with NumPy broadcasting."""
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"{name}: operand dtypes differ ({lhs.dtype} and {rhs.dtype})")
    shape = broadcast_shape(lhs.shape, rhs.shape)
    return te.compute(
        shape,
        lambda *i: fcompute(
            lhs[broadcast_indices(lhs.shape, shape, i)], rhs[broadcast_indices(rhs.shape, shape, i)]
        ),
        name=name,
        tag="broadcast",
    )


def add(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``lhs + rhs`` with broadcasting."""
    return broadcast_compute(lhs, rhs, lambda a, b: a + b, "T_add")


def subtract(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``lhs - rhs`` with broadcasting."""
    return broadcast_compute(lhs, rhs, lambda a, b: a - b, "T_subtract")


def multiply(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``lhs * rhs`` with broadcasting."""
    return broadcast_compute(lhs, rhs, lambda a, b: a * b, "T_multiply")


def divide(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``lhs / rhs`` with broadcasting: true division for floats, truncating
    for integers (as C and TVM)."""
    if dt.is_float(lhs.dtype):
        return broadcast_compute(lhs, rhs, lambda a, b: a / b, "T_divide")
    return broadcast_compute(lhs, rhs, te.truncdiv, "T_divide")


def maximum(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``max(lhs, rhs)`` with broadcasting (NaN propagates)."""
    return broadcast_compute(lhs, rhs, te.max, "T_maximum")


def minimum(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``min(lhs, rhs)`` with broadcasting (NaN propagates)."""
    return broadcast_compute(lhs, rhs, te.min, "T_minimum")


def floor_mod(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """The remainder of ``lhs / rhs`` rounded toward ``-inf`` (sign of
    ``rhs``, NumPy's ``mod``), with broadcasting."""
    return broadcast_compute(lhs, rhs, te.floormod, "T_floor_mod")


def trunc_mod(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """The remainder of ``lhs / rhs`` rounded toward zero (sign of ``lhs``,
    C's ``%`` and ``fmod``), with broadcasting."""
    return broadcast_compute(lhs, rhs, te.truncmod, "T_trunc_mod")


def power(lhs: te.Tensor, rhs: te.Tensor) -> te.Tensor:
    """``lhs ** rhs`` with broadcasting. Integers are raised in ``float64``
    and converted back (truncating and saturating), as onnxruntime does."""
    if dt.is_float(lhs.dtype):
        return broadcast_compute(lhs, rhs, te.power, "T_power")
    if not dt.is_int(lhs.dtype):
        raise TypeError(f"power needs numeric tensors, got {lhs.dtype}")

    def fcompute(a: PrimExpr, b: PrimExpr) -> PrimExpr:
        wide = te.power(a.astype("float64"), b.astype("float64"))
        return wide.astype(lhs.dtype)

    return broadcast_compute(lhs, rhs, fcompute, "T_power")


def elemwise(x: te.Tensor, fcompute: Callable[[PrimExpr], PrimExpr], name: str) -> te.Tensor:
    """``fcompute`` applied to every element of ``x``."""
    return te.compute(x.shape, lambda *i: fcompute(x[i]), name=name, tag="elemwise")


def float_elemwise(
    name: str, fcompute: Callable[[PrimExpr], PrimExpr]
) -> Callable[[te.Tensor], te.Tensor]:
    """The compute applying ``fcompute`` to every element of a float tensor
    (a ``TypeError`` for other dtypes), named ``T_<name>``."""

    def compute(x: te.Tensor) -> te.Tensor:
        if not dt.is_float(x.dtype):
            raise TypeError(f"{name} needs a float tensor, got {x.dtype}")
        return elemwise(x, fcompute, f"T_{name}")

    compute.__doc__ = f"``{name}(x)`` elementwise (float tensors)."
    return compute


exp = float_elemwise("exp", te.exp)
log = float_elemwise("log", te.log)
sqrt = float_elemwise("sqrt", te.sqrt)
tanh = float_elemwise("tanh", te.tanh)
sigmoid = float_elemwise("sigmoid", te.sigmoid)


def negative(x: te.Tensor) -> te.Tensor:
    """``-x`` elementwise (integers wrap)."""
    return elemwise(x, lambda v: -v, "T_negative")


def abs(x: te.Tensor) -> te.Tensor:  # noqa: A001
    """``|x|`` elementwise."""
    return elemwise(x, te.abs, "T_abs")


def _int_bound(bound: float, dtype: str, rounding: Callable[[float], int]) -> int:
    """A float bound as an integer of ``dtype``: rounded inward, saturated."""
    lo, hi = dt.min_value(dtype), dt.max_value(dtype)
    if math.isinf(bound):
        return int(hi if bound > 0 else lo)
    return int(min(max(rounding(bound), lo), hi))


def clip(x: te.Tensor, a_min: float, a_max: float) -> te.Tensor:
    """``min(max(x, a_min), a_max)``; integer tensors round the bounds inward
    and saturate them to the dtype; an infinite float bound is no bound."""
    if dt.is_float(x.dtype):
        lo = None if a_min == -math.inf else te.const(a_min, x.dtype)
        hi = None if a_max == math.inf else te.const(a_max, x.dtype)
    else:
        lo = te.const(_int_bound(a_min, x.dtype, math.ceil), x.dtype)
        hi = te.const(_int_bound(a_max, x.dtype, math.floor), x.dtype)

    def fcompute(v: PrimExpr) -> PrimExpr:
        if lo is not None:
            v = te.max(v, lo)
        return v if hi is None else te.min(v, hi)

    return elemwise(x, fcompute, "T_clip")


def cast(x: te.Tensor, dtype: str, saturate: bool = False, round_mode: str = "up") -> te.Tensor:
    """``x`` converted to ``dtype`` (float to int truncates toward zero). To a
    storage-only float (bfloat16, float8) ``saturate`` clamps overflow to the
    largest finite value and ``round_mode`` rounds to ``float8_e8m0fnu``
    (:func:`xtvm.te.reduced_float.convert_float`)."""
    if dt.is_reduced_float(dtype) or dt.is_reduced_float(x.dtype):
        return elemwise(x, lambda v: convert_float(v, dtype, saturate, round_mode), "T_cast")
    return elemwise(x, lambda v: te.cast(dtype, v), "T_cast")


def shape_of(x: te.Tensor, dtype: str = "int64") -> te.Tensor:
    """The 1-d tensor of ``x``'s shape (a dynamic extent read at run time)."""

    def fcompute(i: PrimExpr) -> PrimExpr:
        value = te.const(0, dtype)
        for axis in reversed(range(x.ndim)):
            extent = x.shape[axis]
            size = te.const(extent, dtype) if isinstance(extent, int) else te.cast(dtype, extent)
            value = te.if_then_else(i == axis, size, value)
        return value

    return te.compute((x.ndim,), fcompute, name="T_shape_of", tag="injective")


def identity(x: te.Tensor, name: str = "T_identity") -> te.Tensor:
    """A copy of ``x``."""
    return te.compute(x.shape, lambda *i: x[i], name=name, tag="elemwise")


def full(
    shape: Sequence[int], dtype: str, value: int | float | te.Tensor, name: str = "T_full"
) -> te.Tensor:
    """A tensor of ``shape`` filled with ``value`` (a number, or the element of
    a 0-d tensor) converted to ``dtype``."""
    if isinstance(value, te.Tensor):
        fill = value
        return te.compute(shape, lambda *i: te.cast(dtype, fill[()]), name=name, tag="elemwise")
    return te.compute(shape, lambda *i: te.const(value, dtype), name=name, tag="elemwise")
