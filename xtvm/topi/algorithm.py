"""Sorting and scans (TVM's ``topi.topk`` and ``topi.cumsum``) as tensor
expressions. Both are written as reductions over the axis rather than as
sorts or sequential scans, since ``te`` has neither: ``O(n²)`` work per row
(``O(n * k)`` more for ``topk``), fine for the sizes classifiers and
detectors use along one axis, but not for sorting long axes."""

from __future__ import annotations

from collections.abc import Callable

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.topi import reduce


def _with(i: tuple[PrimExpr, ...], axis: int, value: PrimExpr) -> tuple[PrimExpr, ...]:
    """Index ``i`` with position ``axis`` replaced by ``value``."""
    return (*i[:axis], value, *i[axis + 1 :])


def topk(data: te.Tensor, k: int, axis: int = -1, is_ascend: bool = False) -> list[te.Tensor]:
    """The ``k`` largest (smallest with ``is_ascend``) elements along ``axis``
    and their ``int64`` positions, sorted; ties keep the lower position first.

    Three stages: each element's rank (how many elements come before it in
    the sorted order: greater ones, or equal ones at lower positions), then,
    for each of the first ``k`` ranks, the one element holding it and its
    position. NaN sorts above every number (``+inf`` included) and equal to
    NaN, as NumPy's sort and ONNX's reference do: without that order no
    element of a row with a NaN would hold some ranks, and the pick stage
    would sum nothing (a 0, or a position outside the axis)."""
    axis %= data.ndim
    n = data.shape[axis]
    r = te.reduce_axis((0, n), name="r")
    floats = dt.is_float(data.dtype)

    def greater(a: PrimExpr, b: PrimExpr) -> PrimExpr:
        return ((a > b) | (te.isnan(a) & ~te.isnan(b))) if floats else a > b

    def equal(a: PrimExpr, b: PrimExpr) -> PrimExpr:
        return ((a == b) | (te.isnan(a) & te.isnan(b))) if floats else a == b

    def rank(*i: PrimExpr) -> PrimExpr:
        x, other = data[i], data[_with(i, axis, r)]
        before = greater(x, other) if is_ascend else greater(other, x)
        earlier_tie = equal(other, x) & (r < i[axis])
        return te.sum(te.const(1, "int64"), axis=r, where=before | earlier_tie)

    ranks = te.compute(data.shape, rank, name="T_topk_rank")
    shape = _with(data.shape, axis, k)

    def pick(value: Callable[[tuple[PrimExpr, ...], PrimExpr], PrimExpr], name: str) -> te.Tensor:
        m = te.reduce_axis((0, n), name="m")
        return te.compute(
            shape,
            lambda *i: te.sum(
                value(_with(i, axis, m), m), axis=m, where=ranks[_with(i, axis, m)] == i[axis]
            ),
            name=name,
            tag="topk",
        )

    values = pick(lambda idx, m: data[idx], "T_topk_values")
    indices = pick(lambda idx, m: m.astype("int64"), "T_topk_indices")
    return [values, indices]


def cumsum(
    data: te.Tensor, axis: int = 0, exclusive: bool = False, reverse: bool = False
) -> te.Tensor:
    """Running sums along ``axis``: element ``i`` sums the elements at
    positions ``<= i`` (``< i`` with ``exclusive``; ``>=`` / ``>`` with
    ``reverse``)."""
    return _scan(data, axis, exclusive, reverse, te.sum, "cumsum")


def cumprod(
    data: te.Tensor, axis: int = 0, exclusive: bool = False, reverse: bool = False
) -> te.Tensor:
    """Running products along ``axis``, over the positions of :func:`cumsum`."""
    return _scan(data, axis, exclusive, reverse, reduce.PROD, "cumprod")


def _scan(
    data: te.Tensor, axis: int, exclusive: bool, reverse: bool, reducer, tag: str
) -> te.Tensor:
    """``reducer`` of the elements at the positions a running scan covers."""
    axis %= data.ndim
    r = te.reduce_axis((0, data.shape[axis]), name="r")

    def running(*i: PrimExpr) -> PrimExpr:
        j = i[axis]
        if reverse:
            inside = (r > j) if exclusive else (r >= j)
        else:
            inside = (r < j) if exclusive else (r <= j)
        return reducer(data[_with(i, axis, r)], axis=r, where=inside)

    return te.compute(data.shape, running, name=f"T_{tag}", tag=tag)
