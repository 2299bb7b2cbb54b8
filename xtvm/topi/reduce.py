"""Reductions over axes (TVM's ``topi/reduction.py``): sum, mean, max, min."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.te.reduction import CommReducer


def _reduce(
    x: te.Tensor, axes: Sequence[int], keepdims: bool, reducer: CommReducer, name: str
) -> te.Tensor:
    """``reducer`` over the (sorted, non-negative) ``axes`` of ``x``."""
    axes = sorted(a % x.ndim for a in axes) if x.ndim else []
    if keepdims:
        shape = tuple(1 if d in axes else n for d, n in enumerate(x.shape))
    else:
        shape = tuple(n for d, n in enumerate(x.shape) if d not in axes)
    rvars = {d: te.reduce_axis((0, x.shape[d]), name=f"k{d}") for d in axes}

    def fcompute(*i: PrimExpr) -> PrimExpr:
        kept = iter(i[d] for d in range(x.ndim) if d not in axes) if keepdims else iter(i)
        index = [rvars[d] if d in rvars else next(kept) for d in range(x.ndim)]
        if not rvars:
            return x[index]
        return reducer(x[index], axis=list(rvars.values()))

    return te.compute(shape, fcompute, name=name, tag="comm_reduce")


def sum(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:  # noqa: A001
    """The sum over ``axes``."""
    return _reduce(x, axes, keepdims, te.sum, "T_sum")


def max(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:  # noqa: A001
    """The maximum over ``axes``."""
    return _reduce(x, axes, keepdims, te.max, "T_max")


def min(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:  # noqa: A001
    """The minimum over ``axes``."""
    return _reduce(x, axes, keepdims, te.min, "T_min")


def mean(x: te.Tensor, axes: Sequence[int], keepdims: bool = False) -> te.Tensor:
    """The mean over ``axes``: the sum divided by the count (integers truncate)."""
    total = sum(x, axes, keepdims)
    count = math.prod(x.shape[a % x.ndim] for a in axes) or 1
    divide: Callable[[PrimExpr, PrimExpr], PrimExpr] = (
        (lambda a, b: a / b) if dt.is_float(x.dtype) else te.truncdiv
    )
    return te.compute(
        total.shape,
        lambda *i: divide(total[i], te.const(count, x.dtype)),
        name="T_mean",
        tag="elemwise",
    )
