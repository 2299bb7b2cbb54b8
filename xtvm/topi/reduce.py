"""Reductions over axes (TVM's ``topi/reduction.py``): sum, mean, prod, max,
min, and the index reductions argmax, argmin."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import FloatImm, IntImm, PrimExpr
from xtvm.te.reduction import CommReducer
from xtvm.te.symbolic import is_static


def _lowest(dtype: str) -> PrimExpr:
    """``max`` of nothing: ``-inf`` for floats, the smallest integer, ``false``."""
    if dtype == "bool":
        return te.const(False, "bool")
    return te.const(-math.inf, dtype) if dt.is_float(dtype) else te.min_value(dtype)


def _highest(dtype: str) -> PrimExpr:
    """``min`` of nothing: ``+inf`` for floats, the largest integer, ``true``."""
    if dtype == "bool":
        return te.const(True, "bool")
    return te.const(math.inf, dtype) if dt.is_float(dtype) else te.max_value(dtype)


def _maximum(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    return a | b if a.dtype == "bool" else te.max(a, b)


def _minimum(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    return a & b if a.dtype == "bool" else te.min(a, b)


# te.max / te.min start from the finite extremes; a reduction over an empty
# set must give the infinities (ONNX ReduceMax of nothing is -inf). On bool
# tensors, max is "any" and min is "all".
_max = te.comm_reducer(_maximum, _lowest, name="max")
_min = te.comm_reducer(_minimum, _highest, name="min")
PROD = te.comm_reducer(lambda a, b: a * b, lambda t: te.const(1, t), name="prod")
"""The product reducer (``topi.prod``, ``topi.cumprod``)."""


def _normalized(x: te.Tensor, axes: Sequence[int]) -> list[int]:
    return sorted(a % x.ndim for a in axes) if x.ndim else []


def _out_shape(x: te.Tensor, axes: Sequence[int], keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(x.shape))
    return tuple(n for d, n in enumerate(x.shape) if d not in axes)


def _full_index(
    x: te.Tensor, axes: Sequence[int], keepdims: bool, out: Sequence[PrimExpr], rvars: dict
) -> list[PrimExpr]:
    """The index into ``x`` of output element ``out`` with the reduced axes
    read from the reduction variables ``rvars``."""
    kept = iter(out[d] for d in range(x.ndim) if d not in axes) if keepdims else iter(out)
    return [rvars[d] if d in rvars else next(kept) for d in range(x.ndim)]


def _reduce(
    x: te.Tensor, axes: Sequence[int], keepdims: bool, reducer: CommReducer, name: str
) -> te.Tensor:
    """``reducer`` over the ``axes`` of ``x``."""
    axes = _normalized(x, axes)
    rvars = {d: te.reduce_axis((0, x.shape[d]), name=f"k{d}") for d in axes}

    def fcompute(*i: PrimExpr) -> PrimExpr:
        value = x[_full_index(x, axes, keepdims, i, rvars)]
        return reducer(value, axis=list(rvars.values())) if rvars else value

    return te.compute(_out_shape(x, axes, keepdims), fcompute, name=name, tag="comm_reduce")


def sum(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:  # noqa: A001
    """The sum over ``axes``."""
    return _reduce(x, axes, keepdims, te.sum, "T_sum")


def prod(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:
    """The product over ``axes``."""
    return _reduce(x, axes, keepdims, PROD, "T_prod")


def max(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:  # noqa: A001
    """The maximum over ``axes`` (``-inf`` or the smallest integer over nothing)."""
    return _reduce(x, axes, keepdims, _max, "T_max")


def min(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:  # noqa: A001
    """The minimum over ``axes`` (``+inf`` or the largest integer over nothing)."""
    return _reduce(x, axes, keepdims, _min, "T_min")


def _count(x: te.Tensor, axes: Sequence[int], dtype: str) -> PrimExpr:
    """The number of elements over ``axes`` as a ``dtype`` constant, or,
    over a dynamic axis, the product of the extents converted to ``dtype``."""
    dims = [x.shape[a % x.ndim] for a in axes]
    if is_static(dims):
        return te.const(math.prod(dims), dtype)
    count: PrimExpr = te.const(1, "int64")
    for d in dims:
        count = count * (d if isinstance(d, int) else te.cast("int64", d))
    return te.cast(dtype, count)


def mean(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:
    """The mean over ``axes``: the sum divided by the count (integers truncate;
    the count of nothing counts as 1)."""
    total = sum(x, axes, keepdims)
    count = _count(x, axes, x.dtype)
    if isinstance(count, IntImm | FloatImm):  # static: as a constant, 0 as 1
        count = te.const(count.value or 1, x.dtype)
    else:
        count = te.max(count, te.const(1, x.dtype))
    divide: Callable[[PrimExpr, PrimExpr], PrimExpr] = (
        (lambda a, b: a / b) if dt.is_float(x.dtype) else te.truncdiv
    )
    return te.compute(
        total.shape,
        lambda *i: divide(total[i], count),
        name="T_mean",
        tag="elemwise",
    )


def _arg_reduce(
    x: te.Tensor,
    axes: Sequence[int],
    keepdims: bool,
    select_last_index: bool,
    largest: bool,
) -> te.Tensor:
    """The ``int64`` position of the extreme element over ``axes`` (row-major
    over them), in two stages: the extreme value, then the smallest (largest
    with ``select_last_index``) position holding it."""
    axes = _normalized(x, axes)
    shape = _out_shape(x, axes, keepdims)
    extreme = (max if largest else min)(x, axes, keepdims)
    name = "T_argmax" if largest else "T_argmin"
    if not axes:  # a scalar: its one element is at position 0
        return te.compute(shape, lambda *i: te.const(0, "int64"), name=name, tag="elemwise")
    rvars = {d: te.reduce_axis((0, x.shape[d]), name=f"k{d}") for d in axes}
    count = _count(x, axes, "int64")

    def position(i: Sequence[PrimExpr], hit: Callable[[PrimExpr], PrimExpr]) -> PrimExpr:
        """The first (last with ``select_last_index``) flat position where
        ``hit(element)`` holds; ``count`` (``-1``) where it never does."""
        flat: PrimExpr = te.const(0, "int64")
        for d in axes:
            extent = x.shape[d] if isinstance(x.shape[d], int) else te.cast("int64", x.shape[d])
            flat = flat * extent + rvars[d].astype("int64")
        element = x[_full_index(x, axes, keepdims, i, rvars)]
        k = list(rvars.values())
        if select_last_index:
            return te.max(te.if_then_else(hit(element), flat, te.const(-1, "int64")), axis=k)
        return te.min(te.if_then_else(hit(element), flat, count), axis=k)

    if not dt.is_float(x.dtype):
        return te.compute(
            shape, lambda *i: position(i, lambda e: e == extreme[i]), name=name, tag="comm_reduce_idx"
        )
    # ONNX (and NumPy) semantics: a NaN is the extreme, so the first (last)
    # NaN of a row wins; otherwise the first (last) element equal to it.
    none = te.const(-1, "int64") if select_last_index else count
    nan_at = te.compute(
        shape, lambda *i: position(i, te.isnan), name=f"{name}_nan", tag="comm_reduce_idx"
    )
    at = te.compute(
        shape, lambda *i: position(i, lambda e: e == extreme[i]), name=f"{name}_value", tag="comm_reduce_idx"
    )
    return te.compute(
        shape,
        lambda *i: te.if_then_else(nan_at[i] == none, at[i], nan_at[i]),
        name=name,
        tag="elemwise",
    )


def argmax(
    x: te.Tensor, axes: Sequence[int], keepdims: bool = False, select_last_index: bool = False
) -> te.Tensor:
    """The position of the maximum over ``axes`` (first, or last with ``select_last_index``)."""
    return _arg_reduce(x, axes, keepdims, select_last_index, largest=True)


def argmin(
    x: te.Tensor, axes: Sequence[int], keepdims: bool = False, select_last_index: bool = False
) -> te.Tensor:
    """The position of the minimum over ``axes`` (first, or last with ``select_last_index``)."""
    return _arg_reduce(x, axes, keepdims, select_last_index, largest=False)
