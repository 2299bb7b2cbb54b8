"""Scatters as gathers (``topi.scatter_elements``, ``topi.scatter_nd``).

TVM writes scatters imperatively; here each output element *gathers* the
updates that hit it, so the kernels are plain tensor expressions: a
reduction over the candidate update positions (those whose index equals
the element's), then an elementwise combine with ``data``. That costs one
pass over the candidates per output element (``O(size(data) * size of the
indexed axis)`` for ``scatter_elements``, ``O(size(data) * number of
tuples)`` for ``scatter_nd``), fine for the sizes ONNX models scatter, and
it never writes outside the output whatever the index values: indices wrap
modulo the axis size.

``"update"`` keeps the last matching update in row-major order of the
indices (a max-reduction over its position); ``"add"``, ``"mul"``,
``"min"`` and ``"max"`` reduce the matching updates and combine the result
with the element of ``data``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import IntImm, PrimExpr
from xtvm.te.reduction import CommReducer
from xtvm.topi.indexing import wrap_index

_prod = te.comm_reducer(lambda x, y: x * y, lambda t: te.const(1, t), name="prod")

_REDUCERS: dict[str, tuple[CommReducer, Callable[[PrimExpr, PrimExpr], PrimExpr]]] = {
    "add": (te.sum, lambda a, b: a + b),
    "mul": (_prod, lambda a, b: a * b),
    "min": (te.min, te.min),
    "max": (te.max, te.max),
}

Indices = Sequence[PrimExpr]


def _all(conditions: Sequence[PrimExpr]) -> PrimExpr:
    result = conditions[0]
    for c in conditions[1:]:
        result = result & c
    return result


@dataclass(frozen=True)
class _Candidates:
    """The updates that may hit an output element ``p``: one per point ``r``
    of a grid of ``extents``. ``update(p, r)`` reads the update of candidate
    ``r``; ``hits(p, r)`` says whether it lands on ``p``."""

    extents: tuple[int, ...]
    update: Callable[[Indices, Indices], PrimExpr]
    hits: Callable[[Indices, Indices], PrimExpr]

    def number(self, r: Indices) -> PrimExpr:
        """The row-major number of candidate ``r``."""
        flat: PrimExpr = IntImm(0, "index")
        for k, n in zip(r, self.extents):
            flat = flat * n + k
        return flat

    def unravel(self, flat: PrimExpr) -> list[PrimExpr]:
        """The candidate numbered ``flat`` (non-negative)."""
        strides = [math.prod(self.extents[j + 1 :]) for j in range(len(self.extents))]
        return [te.truncmod(te.truncdiv(flat, s), n) for s, n in zip(strides, self.extents)]


def _scatter(data: te.Tensor, candidates: _Candidates, reduction: str, name: str) -> te.Tensor:
    """``data`` combined with the candidates that hit each element: a
    reduction over the candidates, then an elementwise combine."""
    shape = data.shape
    if reduction not in ("update", *_REDUCERS):
        raise ValueError(f"{name}: unknown reduction {reduction!r}")
    if math.prod(candidates.extents) == 0:  # nothing to scatter: a copy of ``data``
        return te.compute(shape, lambda *p: data[p], name=name, tag="scatter")

    def axes() -> list[te.IterVar]:
        return [te.reduce_axis((0, n), name=f"r{j}") for j, n in enumerate(candidates.extents)]

    if reduction == "update":

        def last(*p: PrimExpr) -> PrimExpr:
            r = axes()
            rv = [a.var for a in r]
            number = candidates.number(rv).astype("int64")
            return te.max(number, axis=r, where=candidates.hits(p, rv))

        hit = te.compute(shape, last, name=f"{name}_last")
        none = te.min_value("int64")

        def element(*p: PrimExpr) -> PrimExpr:
            chosen = candidates.unravel(hit[p].astype("index"))
            return te.if_then_else(hit[p] == none, data[p], candidates.update(p, chosen))

        return te.compute(shape, element, name=name, tag="scatter")
    if data.dtype == "bool":
        raise TypeError(f"{name}: reduction {reduction!r} is not defined on bool tensors")
    reducer, combine = _REDUCERS[reduction]

    def reduced(*p: PrimExpr) -> PrimExpr:
        r = axes()
        rv = [a.var for a in r]
        return reducer(candidates.update(p, rv), axis=r, where=candidates.hits(p, rv))

    acc = te.compute(shape, reduced, name=f"{name}_{reduction}")
    return te.compute(shape, lambda *p: combine(data[p], acc[p]), name=name, tag="scatter")


def scatter_elements(
    data: te.Tensor,
    indices: te.Tensor,
    updates: te.Tensor,
    axis: int = 0,
    reduction: str = "update",
) -> te.Tensor:
    """``data`` with ``updates[q]`` combined into ``data[q with q[axis] =
    indices[q]]`` (TVM's ``scatter_elements``)."""
    if not dt.is_int(indices.dtype):
        raise TypeError(f"scatter_elements: indices must be integers, got {indices.dtype}")
    if indices.shape != updates.shape or indices.ndim != data.ndim:
        raise ValueError("scatter_elements: indices and updates need one shape, of data's rank")
    axis %= data.ndim
    size = data.shape[axis]
    # Candidate r for element p: q = p along every other axis, q[axis] = r.
    # Where indices is shorter than data along an axis, p may lie outside
    # it: the read is clamped and the candidate masked out.
    short = [d for d in range(data.ndim) if d != axis and indices.shape[d] < data.shape[d]]

    def at(p: Indices, r: Indices) -> list[PrimExpr]:
        q = [
            te.min(p[d], max(indices.shape[d] - 1, 0)) if d in short else p[d]
            for d in range(data.ndim)
        ]
        q[axis] = r[0]
        return q

    def hits(p: Indices, r: Indices) -> PrimExpr:
        hit = wrap_index(indices[at(p, r)], size) == p[axis]
        return _all([*(p[d] < indices.shape[d] for d in short), hit])

    candidates = _Candidates((indices.shape[axis],), lambda p, r: updates[at(p, r)], hits)
    return _scatter(data, candidates, reduction, "T_scatter_elements")


def scatter_nd(
    data: te.Tensor, indices: te.Tensor, updates: te.Tensor, reduction: str = "update"
) -> te.Tensor:
    """TVM's ``scatter_nd``: ``indices`` of shape ``(M, Y...)`` holds index
    tuples into the leading ``M`` axes of ``data``; ``updates[y, x]`` is
    combined into ``data[indices[:, y], x]``."""
    if not dt.is_int(indices.dtype):
        raise TypeError(f"scatter_nd: indices must be integers, got {indices.dtype}")
    m, outer = indices.shape[0], indices.shape[1:]
    if updates.shape != (*outer, *data.shape[m:]):
        raise ValueError("scatter_nd: updates must have shape indices.shape[1:] + data.shape[M:]")

    def hits(p: Indices, y: Indices) -> PrimExpr:
        tuple_ = [indices[(IntImm(k, "index"), *y)] for k in range(m)]
        return _all([wrap_index(v, data.shape[k]) == p[k] for k, v in enumerate(tuple_)])

    candidates = _Candidates(outer, lambda p, y: updates[(*y, *p[m:])], hits)
    return _scatter(data, candidates, reduction, "T_scatter_nd")
