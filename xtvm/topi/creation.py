"""Computes of ops whose values come from positions: arange, one_hot, trilu
(TVM's ``topi.arange``, ``topi.one_hot``, ``topi.trilu``)."""

from __future__ import annotations

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr


def arange(start: float, step: float, length: int, dtype: str) -> te.Tensor:
    """``start + i * step`` for ``i < length``, computed in ``dtype``."""
    exact = float if dt.is_float(dtype) else int
    first, delta = te.const(exact(start), dtype), te.const(exact(step), dtype)
    return te.compute(
        (length,), lambda i: first + i.astype(dtype) * delta, name="T_arange", tag="injective"
    )


def one_hot(
    indices: te.Tensor, on_value: te.Tensor, off_value: te.Tensor, depth: int, axis: int = -1
) -> te.Tensor:
    """``on_value[()]`` where the new axis' position equals the index
    (negative indices count from the end), ``off_value[()]`` elsewhere."""
    if not dt.is_int(indices.dtype):
        raise TypeError(f"one_hot: indices must be integers, got {indices.dtype}")
    axis %= indices.ndim + 1
    shape = (*indices.shape[:axis], depth, *indices.shape[axis:])

    def element(*i: PrimExpr) -> PrimExpr:
        raw = indices[(*i[:axis], *i[axis + 1 :])].astype("index")
        index = te.eager_select(raw < 0, raw + depth, raw)
        return te.eager_select(index == i[axis], on_value[()], off_value[()])

    return te.compute(shape, element, name="T_one_hot", tag="injective")


def trilu(x: te.Tensor, upper: bool = True, k: int = 0) -> te.Tensor:
    """The upper (``j - i >= k``) or lower (``j - i <= k``) triangle of the
    last two axes; the other elements are 0."""
    if x.ndim < 2:
        raise ValueError(f"trilu: needs rank >= 2, got {x.ndim}")
    zero = te.const(0, x.dtype) if x.dtype != "bool" else te.const(False, "bool")

    def element(*i: PrimExpr) -> PrimExpr:
        offset = i[-1] - i[-2]
        keep = offset >= k if upper else offset <= k
        return te.eager_select(keep, x[i], zero)

    return te.compute(x.shape, element, name="T_trilu", tag="elemwise")
