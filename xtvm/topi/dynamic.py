"""Data-dependent ops (``nonzero``, ``compress``) and their shape
functions as tensor expressions.

``te`` has no sequential scans, so an element's place in the result is a
count: the position of the ``j``-th selected element is the one with ``j``
selected elements before it (a reduction over the elements before it).
``O(n²)`` work in the number of elements (``O(n * count)`` more to pick),
fine for the masks and small tensors these ops take in models; the
result's ``?`` extent is a shape variable bound by the output buffer, which
the VM allocates from the shape function's result."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr


def _static(data: te.Tensor, what: str) -> list[int]:
    dims = [d for d in data.shape if isinstance(d, int)]
    if len(dims) != len(data.shape):
        raise ValueError(f"{what} needs static input extents, got {list(data.shape)}")
    return dims


def _flat(index: Sequence[PrimExpr], dims: Sequence[int]) -> PrimExpr:
    """The row-major flat position of ``index`` in ``dims``."""
    flat: PrimExpr = index[0]
    for i, d in zip(index[1:], dims[1:]):
        flat = flat * d + i
    return flat


def _nonzero(value: PrimExpr) -> PrimExpr:
    return value != te.const(0, value.dtype)


def _shape_of(dims: Sequence[PrimExpr | int], count: te.Tensor, name: str) -> te.Tensor:
    """The 1-d ``int64`` shape ``dims``, where an entry that is None is the
    count (``count[0]``)."""
    def entry(i: PrimExpr) -> PrimExpr:
        value: PrimExpr = count[0]
        for k, d in enumerate(dims):
            if d is not None:
                value = te.select(i == k, te.const(d, "int64"), value)
        return value

    return te.compute((len(dims),), entry, name=name)


def _count(flags: te.Tensor, extent: int, name: str) -> te.Tensor:
    """``[number of true flags among the first extent]``, as ``int64``."""
    r = te.reduce_axis((0, extent), name="r")
    return te.compute(
        (1,), lambda _: te.sum(te.const(1, "int64"), axis=r, where=flags[r]), name=name
    )


def _ranks(flags: te.Tensor, extent: int, name: str) -> te.Tensor:
    """For each flag, how many true flags come before it."""
    r = te.reduce_axis((0, extent), name="r")
    return te.compute(
        (extent,),
        lambda i: te.sum(te.const(1, "int64"), axis=r, where=flags[r] & (r < i)),
        name=name,
    )


def _nonzero_flags(data: te.Tensor) -> tuple[te.Tensor, list[int], int]:
    dims = _static(data, "nonzero")
    size = 1
    for d in dims:
        size *= d

    def flag(m: PrimExpr) -> PrimExpr:
        index, rest = [], m
        for d in reversed(dims):
            index.append(te.floormod(rest, d))
            rest = te.floordiv(rest, d)
        return _nonzero(data[tuple(reversed(index))])

    return te.compute((size,), flag, name="T_nonzero_flag"), dims, size


def nonzero_shape(data: te.Tensor) -> te.Tensor:
    """``[rank, number of nonzero elements]``."""
    flags, dims, size = _nonzero_flags(data)
    return _shape_of([len(dims), None], _count(flags, size, "T_nonzero_count"), "T_nonzero_shape")


def nonzero(data: te.Tensor) -> te.Tensor:
    """The ``rank x count`` positions of the nonzero elements, row-major;
    ``count`` a shape variable."""
    flags, dims, size = _nonzero_flags(data)
    ranks = _ranks(flags, size, "T_nonzero_rank")
    count = te.var("nonzero_count")
    m = te.reduce_axis((0, size), name="m")

    def position(d: PrimExpr, j: PrimExpr) -> PrimExpr:
        stride = 1
        coordinate: PrimExpr = te.const(0, "int64")
        for k in reversed(range(len(dims))):
            here = te.floormod(te.floordiv(m, stride), dims[k]).astype("int64")
            coordinate = te.select(d == k, here, coordinate)
            stride *= dims[k]
        return te.sum(coordinate, axis=m, where=flags[m] & (ranks[m] == j.astype("int64")))

    return te.compute((len(dims), count), position, name="T_nonzero", tag="nonzero")


def _compress_flags(
    data: te.Tensor, condition: te.Tensor, axis: int | None
) -> tuple[te.Tensor, list[int], int]:
    dims = _static(data, "compress")
    (length,) = _static(condition, "compress")
    extent = 1
    if axis is None:
        for d in dims:
            extent *= d
    else:
        extent = dims[axis]
    used = min(length, extent)
    flags = te.compute((used,), lambda i: _nonzero(condition[i]), name="T_compress_flag")
    return flags, dims, used


def compress_shape(data: te.Tensor, condition: te.Tensor, axis: int | None) -> te.Tensor:
    """The data's shape with the count of true conditions at ``axis``
    (``[count]`` without an axis)."""
    flags, dims, used = _compress_flags(data, condition, axis)
    count = _count(flags, used, "T_compress_count")
    shape = [None] if axis is None else [None if k == axis else d for k, d in enumerate(dims)]
    return _shape_of(shape, count, "T_compress_shape")


def compress(data: te.Tensor, condition: te.Tensor, axis: int | None) -> te.Tensor:
    """The slices along ``axis`` (elements of the flattened data without
    one) whose condition is true; the selected extent a shape variable."""
    flags, dims, used = _compress_flags(data, condition, axis)
    ranks = _ranks(flags, used, "T_compress_rank")
    count = te.var("compress_count")
    m = te.reduce_axis((0, used), name="m")

    def pick(*i: PrimExpr) -> PrimExpr:
        if axis is None:
            index: list[PrimExpr] = []
            rest: PrimExpr = m
            for d in reversed(dims):
                index.append(te.floormod(rest, d))
                rest = te.floordiv(rest, d)
            source = data[tuple(reversed(index))]
            j = i[0]
        else:
            source = data[(*i[:axis], m, *i[axis + 1 :])]
            j = i[axis]
        return te.sum(source, axis=m, where=flags[m] & (ranks[m] == j.astype("int64")))

    shape = [count] if axis is None else [count if k == axis else d for k, d in enumerate(dims)]
    return te.compute(shape, pick, name="T_compress", tag="compress")
