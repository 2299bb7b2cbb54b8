"""Gathers and slices (TVM's ``topi.take``, ``topi.strided_slice``,
``topi.gather``, ``topi.gather_nd``). Run-time indices are clamped or
wrapped, so no index value makes a kernel read outside its data."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import IntImm, PrimExpr


def take(
    data: te.Tensor, indices: te.Tensor, axis: int | None = None, mode: str = "clip"
) -> te.Tensor:
    """``data`` entries at ``indices`` along ``axis`` (of the flattened data
    when None). ``mode`` ``"clip"`` clamps indices to the axis, ``"wrap"``
    takes them modulo its size (so -1 is the last entry)."""
    if not dt.is_int(indices.dtype):
        raise TypeError(f"take: indices must be integers, got {indices.dtype}")
    if mode not in ("clip", "wrap"):
        raise ValueError(f"take: mode must be clip or wrap, got {mode!r}")
    flat = axis is None
    source_shape = (_size(data.shape),) if flat else data.shape
    axis = 0 if flat else axis % data.ndim
    size = source_shape[axis]
    shape = (*source_shape[:axis], *indices.shape, *source_shape[axis + 1 :])

    def element(*i: PrimExpr) -> PrimExpr:
        raw = indices[i[axis : axis + indices.ndim]].astype("index")
        index = te.min(te.max(raw, 0), size - 1) if mode == "clip" else te.floormod(raw, size)
        position = (*i[:axis], index, *i[axis + indices.ndim :])
        return data[_unravel(position[0], data.shape)] if flat else data[position]

    return te.compute(shape, element, name="T_take", tag="injective")


def _size(shape: Sequence[int]) -> int:
    size = 1
    for d in shape:
        size *= d
    return size


def _unravel(flat: PrimExpr, shape: Sequence[int]) -> list[PrimExpr]:
    """Row-major indices of the non-negative ``flat`` offset into ``shape``."""
    index, stride = [], _size(shape)
    for d, n in enumerate(shape):
        stride //= n
        q = te.truncdiv(flat, stride)
        index.append(q if d == 0 else te.truncmod(q, n))
    return index


def strided_slice(
    x: te.Tensor, begin: Sequence[int], strides: Sequence[int], shape: Sequence[int]
) -> te.Tensor:
    """``out[i] = x[begin + i * strides]`` per axis (bounds already resolved
    and clamped); ``shape`` is the output's."""
    if not len(begin) == len(strides) == len(shape) == x.ndim:
        raise ValueError("strided_slice: one begin, stride and size per axis")
    return te.compute(
        tuple(shape),
        lambda *i: x[[IntImm(b, "index") + k * s for k, b, s in zip(i, begin, strides)]],
        name="T_strided_slice",
        tag="injective",
    )


def wrap_index(raw: PrimExpr, size: int) -> PrimExpr:
    """An integer index taken modulo ``size`` as an ``index`` in ``[0,
    size)``: negative indices count from the end, and no value reads outside
    the axis. (An empty axis is never read: its size counts as 1.)"""
    return te.floormod(raw.astype("index"), max(size, 1))


def _check_indices(op: str, indices: te.Tensor) -> None:
    if not dt.is_int(indices.dtype):
        raise TypeError(f"{op}: indices must be integers, got {indices.dtype}")


def gather(data: te.Tensor, indices: te.Tensor, axis: int) -> te.Tensor:
    """``out[p] = data[p with p[axis] = indices[p]]`` (TVM's ``gather``);
    indices wrap modulo the axis size."""
    _check_indices("gather", indices)
    if indices.ndim != data.ndim:
        raise ValueError(f"gather: indices rank {indices.ndim} differs from data rank {data.ndim}")
    axis %= data.ndim
    size = data.shape[axis]

    def element(*p: PrimExpr) -> PrimExpr:
        return data[(*p[:axis], wrap_index(indices[p], size), *p[axis + 1 :])]

    return te.compute(indices.shape, element, name="T_gather", tag="injective")


def gather_nd(data: te.Tensor, indices: te.Tensor, batch_dims: int = 0) -> te.Tensor:
    """TVM's ``gather_nd``: ``indices`` of shape ``(M, Y...)`` holds index
    tuples into data axes ``batch_dims ..``; ``out[y, x] = data[y[:batch_dims],
    indices[:, y], x]``, indices wrapping modulo the axis sizes."""
    _check_indices("gather_nd", indices)
    m, outer = indices.shape[0], indices.shape[1:]
    tail = data.shape[batch_dims + m :]
    k = len(outer)

    def element(*i: PrimExpr) -> PrimExpr:
        y, x = i[:k], i[k:]
        tup = [
            wrap_index(indices[(IntImm(j, "index"), *y)], data.shape[batch_dims + j])
            for j in range(m)
        ]
        return data[(*y[:batch_dims], *tup, *x)]

    return te.compute((*outer, *tail), element, name="T_gather_nd", tag="injective")
