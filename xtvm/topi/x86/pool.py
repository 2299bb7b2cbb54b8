"""Pooling for x86 (TVM's ``schedule_pool``, made vector code): max and
average pools on channel-first data (``NCW``, ``NCHW``, ``NCDHW``, and the
blocked ``[N, C/c, H, W, c]`` that ``relay-int8-nchwc``-style passes pool as
a 3-d pool with a window of 1 along ``c``).

The generic compute (:func:`xtvm.topi.pool.pool`) guards every window
element (``where`` padding and the ``ceil_mode`` overhang are outside the
data): a branch per element, which keeps the loop scalar. Here the data is
padded once instead — a materialized stage holding the fill (``-inf`` for
a maximum, 0 for a sum) around the data, only where some window reads
outside it — so the window loops read without guards, and the schedule
tiles the output like the depthwise convolution: ``rows × R`` output
elements accumulated in vector registers, ``R`` along the row::

    pad (parallel over rows)                  # only if some window leaves the data
    parallel for (n, c, yo) fused:
      for xo:
        acc[rows][R] = fill
        for ry, rx:
          for yi in rows (unrolled):
            for xi in R (vectorized):  acc[yi] = max(acc[yi], pad[c, y*s+ry*d, x*s+rx*d : +R])
        for yi in rows (unrolled):
          for xi in R (vectorized):    out = epilogue(acc)      # avg: acc / count[y, x]

A stride of 2 to 4 is one wide load and a shuffle per vector (see the
vectorizer). On blocked data (the last axis pooled with a window and a
stride of 1) the vector runs along that axis instead, ``c`` channels of one
pixel, with ``R`` pixels of the row unrolled; there the data is not copied:
each window element is read at its position clamped into the data and
replaced by the fill outside it, a select that is the same for the ``c``
lanes. The average's divisor depends
only on the output position: a small ``[*spatial]`` stage of the window
counts, computed once per call, or a constant when every window is full.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import pairwise

from xtvm import te
from xtvm.arith import int_constant
from xtvm.target import MAX_VECTOR_LANES
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.te.placement import plan_stages, topological_order
from xtvm.te.symbolic import is_static
from xtvm.topi.pool import (
    all_of,
    global_avg_pool2d,
    global_max_pool2d,
    window_axes,
    window_geometry,
)
from xtvm.topi.pool import pool as generic_pool
from xtvm.topi.reduce import _lowest, _max
from xtvm.topi.x86.config import lanes, row_block, use_threads
from xtvm.topi.x86.injective import schedule_default, schedule_injective
from xtvm.topi.x86.tiling import vectorize_tile

MAX_TILE = 64
"""Largest number of output elements of one register tile (rows × row)."""

WIDE_ROW = 16
"""Output rows wider than this, with a stride over 1 along them, are not
read with strided vectors (odd-length wide loads and shuffles), which lose
to LLVM's own vectorization of the generic compute's row. Overlapping
stride-2 windows (``3 × 3 / 2``) read a copy of the padded data whose rows
are stored as their even then odd halves, where consecutive outputs read
consecutive elements: 20-40% faster than the generic compute on 27- to
28-wide outputs. Other wide strided rows (``2 × 2 / 2``, where every input
is read once and the copy does not pay) keep the generic compute."""


def _nan_max_combine(acc: PrimExpr, x: PrimExpr) -> PrimExpr:
    """``max(acc, x)`` of a window reduction, NaN-propagating, in two
    instructions on the accumulator's dependency chain: ``x > acc ? x :
    acc`` is one ``vmaxps x, acc`` (which gives ``acc`` when either is NaN,
    so a NaN accumulator stays), plus ``isnan(x) ? NaN : 0`` (a compare
    and a zeroing masked move off the chain, shared by the overlapping
    windows that read ``x``), which makes a NaN element the result.
    ``arith.maximumf`` (``llvm.maximum``) also orders -0 below +0, which
    costs six instructions an element on x86. A zero result is +0 (``-0 +
    0``): onnxruntime's pools do not order zeros either (and drop a NaN
    unless it is the last element their vector max reduces; propagating
    every NaN is numpy's and ONNX's reference semantics)."""
    nan = te.eager_select(te.isnan(x), te.const(math.nan, x.dtype), te.const(0.0, x.dtype))
    return te.eager_select(x > acc, x, acc) + nan


def _nan_max_select(acc: PrimExpr, x: PrimExpr) -> PrimExpr:
    """The same maximum as :func:`_nan_max_combine` (without its +0 of a zero) as a
    select pair, ``isnan(x) ? x : (x > acc ? x : acc)``, which LLVM merges
    into two compares, a mask ``or`` and a masked move, all on the chain.
    Where windows do not overlap (``2 × 2 / 2``) no element's NaN compare
    is shared, and this form was faster (VGG's ``[1,4,224,224,16]`` pool
    0.18 against 0.21 ms); where they overlap (``3 × 3 / 2``) it ran at
    half the speed (SqueezeNet's ``[1,4,111,111,16]``: 0.086 against
    0.042 ms, one thread, loaded machine)."""
    return te.eager_select(te.isnan(x), x, te.eager_select(x > acc, x, acc))


_nan_max = te.comm_reducer(_nan_max_combine, _lowest, name="max")
"""The float window maximum of blocked pools whose windows overlap."""
_nan_max_disjoint = te.comm_reducer(_nan_max_select, _lowest, name="max")
"""The float window maximum of blocked pools whose windows do not overlap."""


def _max_reducer(dtype: str, blocked: bool, overlapping: bool):
    """The reducer of a max pool of ``dtype`` data: on blocked data (the
    vector along the channel block) :data:`_nan_max` where windows overlap
    (``overlapping``: some window shares elements with the next), else
    :data:`_nan_max_disjoint`; elsewhere the generic maximum
    (``arith.maximumf``), which measured faster on the row-vectorized NCHW
    pools than either (GoogLeNet's ``[1,192,55,55]`` 3 × 3 / 2: 0.18-0.19 ms
    against 0.20 (select pair) and 0.26 (sum); ``[1,192,27,27]`` 3 × 3 / 1:
    0.14 against 0.16 and 0.21), and for integers (no NaN, no signed zero)."""
    if not (blocked and dt.is_float(dtype)):
        return _max
    return _nan_max if overlapping else _nan_max_disjoint


def _padded_reader(
    data: te.Tensor, fill: PrimExpr, before: Sequence[int], extents: Sequence[int]
) -> Callable[..., PrimExpr] | None:
    """``(b, c, *p) -> value`` of ``data`` at spatial position ``p - before``,
    for ``p`` over ``extents``: ``fill`` outside the data; None when every
    such position is inside it.

    Branch-free: the element at the index clamped into the data, or the
    fill (``eager_select``). A condition on an axis other than the last is
    the same for a whole row (one vector select)."""
    spatial = data.shape[2:]
    if not any(before) and all(e <= s for e, s in zip(extents, spatial)):
        return None
    guarded = [i for i, (b, e, s) in enumerate(zip(before, extents, spatial)) if b or e > s]

    def read(b: PrimExpr, c: PrimExpr, *p: PrimExpr) -> PrimExpr:
        idx = list(p)
        for i in guarded:
            idx[i] = te.min(te.max(p[i] - before[i], 0), spatial[i] - 1)
        inside = all_of([(p[i] >= before[i]) & (p[i] < before[i] + spatial[i]) for i in guarded])
        return te.eager_select(inside, data[(b, c, *idx)], fill)

    return read


def _padded(data: te.Tensor, read: Callable[..., PrimExpr], before: int, extents) -> te.Tensor:
    """The padded data :func:`_padded_reader` reads, materialized; along the
    row :func:`_schedule_padding` splits its loop into the borders and the
    interior, where the clamps and the condition simplify away (``before``:
    the padding at the start of the row)."""
    shape = (*data.shape[:2], *extents)
    attrs = {"materialize": True, "pool_pad": (before, data.shape[-1])}
    return te.compute(shape, read, name="T_pool_pad", tag="pad", attrs=attrs)


def _halves(
    data: te.Tensor, fill: PrimExpr, before: Sequence[int], extents: Sequence[int]
) -> te.Tensor:
    """The padded data (as :func:`_padded`) with each row stored as its even
    then its odd positions (``[..., 2, ceil(W / 2)]``): a stride-2 window
    element of consecutive outputs is then consecutive in one half (one
    contiguous vector load instead of a wide load and a shuffle)."""
    half = -(-extents[-1] // 2)
    read = _padded_reader(data, fill, before, [*extents[:-1], 2 * half])
    if read is None:
        read = lambda b, c, *p: data[(b, c, *p)]
    shape = (*data.shape[:2], *extents[:-1], 2, half)
    return te.compute(
        shape,
        lambda b, c, *p: read(b, c, *p[:-2], p[-1] * 2 + p[-2]),
        name="T_pool_pad",
        tag="pad",
        attrs={"materialize": True, "pool_halves": (before[-1], data.shape[-1])},
    )


def pool(
    data: te.Tensor,
    kind: str,
    pool_size: Sequence[int],
    strides: Sequence[int] | None = None,
    dilation: Sequence[int] | None = None,
    padding: Sequence[int] | None = None,
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> te.Tensor:
    """:func:`xtvm.topi.pool.pool` (same arguments and results) as a
    guard-free, vectorized kernel (see the module). Data with a dynamic
    shape, bool data and wide rows pooled with a stride (:data:`WIDE_ROW`)
    get the generic compute."""
    n = len(pool_size)
    generic = data.dtype == "bool" or kind not in ("max", "avg") or data.ndim != n + 2
    if generic or not is_static(data.shape):
        return generic_pool(
            data, kind, pool_size, strides, dilation, padding, ceil_mode, count_include_pad
        )
    spatial = data.shape[2:]
    geometry = window_geometry(spatial, pool_size, strides, dilation, padding, ceil_mode)
    strides, dilation, before, after, out = geometry
    vector_axis = pool_size[-1] == 1 and strides[-1] == 1 and n >= 2
    wide = strides[-1] > 1 and out[-1] > WIDE_ROW and not vector_axis
    # overlapping stride-2 windows on a wide row: read from the row's halves
    halved = wide and strides[-1] == 2 and pool_size[-1] > 2
    if any(o <= 0 for o in out) or (wide and not halved):
        return generic_pool(
            data, kind, pool_size, strides, dilation, padding, ceil_mode, count_include_pad
        )
    # the padded positions the windows read: up to the last window's end
    extents = [
        (o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out, strides, pool_size, dilation)
    ]
    fill = _lowest(data.dtype) if kind == "max" else te.const(0, data.dtype)
    shape = (*data.shape[:2], *out)
    rvars = window_axes(pool_size)
    rows = range(n - 1) if halved else range(n)

    if halved:
        halves = _halves(data, fill, before, extents)

        def window(b: PrimExpr, c: PrimExpr, o: Sequence[PrimExpr]) -> PrimExpr:
            idx = [o[i] * strides[i] + rvars[i] * dilation[i] for i in rows]
            offset = rvars[-1] * dilation[-1]  # 2 x + offset: half offset % 2, at x + offset // 2
            half = (te.truncmod(offset, 2), o[-1] + te.truncdiv(offset, 2))
            return halves[(b, c, *idx, *half)]

    else:
        read = _padded_reader(data, fill, before, extents)
        source = data
        if read is not None and not vector_axis:  # padded once; blocked data: a select per pixel
            source = _padded(data, read, before[-1], extents)
        if read is None or source is not data:
            read = lambda b, c, *p: source[(b, c, *p)]

        def window(b: PrimExpr, c: PrimExpr, o: Sequence[PrimExpr]) -> PrimExpr:
            idx = [o[i] * strides[i] + rvars[i] * dilation[i] for i in rows]
            return read(b, c, *idx)

    # blocked data pools its last axis with a window of 1: vectors run along it
    attrs = {"schedule": schedule_pool, "pool_vector_axis": vector_axis}
    suffix = f"{n}d"
    if kind == "max":
        overlapping = any(
            s < (k - 1) * d + 1 for s, k, d in zip(strides, pool_size, dilation)
        )
        reducer = _max_reducer(data.dtype, vector_axis, overlapping)
        return te.compute(
            shape,
            lambda b, c, *o: reducer(window(b, c, o), axis=rvars),
            name=f"T_max_pool{suffix}",
            tag="pool_max",
            attrs=attrs,
        )
    total = te.compute(
        shape,
        lambda b, c, *o: te.sum(window(b, c, o), axis=rvars),
        name="T_pool_sum",
        tag="pool_sum",
        attrs=attrs,
    )
    count = _window_count(
        spatial, before, after, pool_size, strides, dilation, out, count_include_pad, data.dtype
    )
    divide = (lambda a, b: a / b) if dt.is_float(data.dtype) else te.truncdiv
    return te.compute(
        shape,
        lambda b, c, *o: divide(total[(b, c, *o)], count(o)),
        name=f"T_avg_pool{suffix}",
        tag="pool_avg",
    )


def _axis_counts(
    size: int,
    before: int,
    after: int,
    window: int,
    stride: int,
    dilation: int,
    out: int,
    count_include_pad: bool,
) -> list[int]:
    """Window elements the average divides by at each output position of
    one axis: those in the data (with ``count_include_pad``: in the data or
    its padding; never the ``ceil_mode`` overhang)."""
    limit = size + after if count_include_pad else size
    low = -before if count_include_pad else 0
    counts = []
    for o in range(out):
        positions = (o * stride - before + r * dilation for r in range(window))
        counts.append(sum(1 for p in positions if low <= p < limit))
    return counts


def _window_count(
    spatial: Sequence[int],
    before: Sequence[int],
    after: Sequence[int],
    pool_size: Sequence[int],
    strides: Sequence[int],
    dilation: Sequence[int],
    out: Sequence[int],
    count_include_pad: bool,
    dtype: str,
) -> Callable[[Sequence[PrimExpr]], PrimExpr]:
    """The average's divisor at output position ``o``: a constant when every
    window counts all its elements, else read from a materialized stage over
    the axes where the count varies (the product of their per-axis counts
    and the other axes' windows; positions whose count differs from the
    window's are few, at the borders)."""
    geometry = zip(spatial, before, after, pool_size, strides, dilation, out)
    per_axis = [_axis_counts(*axis, count_include_pad) for axis in geometry]
    varying = [i for i, k in enumerate(pool_size) if any(c != k for c in per_axis[i])]
    steady = te.const(math.prod(k for i, k in enumerate(pool_size) if i not in varying), dtype)
    if not varying:
        return lambda o: steady

    def axis_count(o: PrimExpr, counts: list[int], window: int) -> PrimExpr:
        value: PrimExpr = te.const(window, "int32")
        for position, c in enumerate(counts):
            if c != window:
                value = te.if_then_else(o == position, te.const(c, "int32"), value)
        return value

    def fcompute(*o: PrimExpr) -> PrimExpr:
        total = te.cast(dtype, axis_count(o[0], per_axis[varying[0]], pool_size[varying[0]]))
        for v, i in zip(o[1:], varying[1:]):
            total = total * te.cast(dtype, axis_count(v, per_axis[i], pool_size[i]))
        return total if steady.value == 1 else total * steady

    count = te.compute(
        tuple(out[i] for i in varying),
        fcompute,
        name="T_pool_count",
        tag="injective",
        attrs={"materialize": True},
    )
    return lambda o: count[tuple(o[i] for i in varying)]


def _attached(pool: te.Tensor, out: te.Tensor) -> bool:
    """Whether the kernel computes ``pool`` element by element inside the
    loop nest of its one output ``out`` (the output itself, or an
    elementwise epilogue it is attached to)."""
    if out is pool:
        return True
    for stage in plan_stages(topological_order([out]), [out]):
        if stage.tensor is out:
            return any(s.tensor is pool for s in stage.attached)
    return False


def _partition(sch, loop, cuts: Sequence[int]) -> None:
    """Replace ``loop`` (constant bounds) by consecutive copies over the
    ranges between ``cuts``: in each copy ``tir-simplify`` knows the range
    of the variable, so conditions and clamps that hold over a whole range
    fold away (TVM's loop partitioning)."""
    op = loop.op
    lb, ub = int_constant(op.lb), int_constant(op.ub)
    bounds = sorted({lb, ub, *(c for c in cuts if lb < c < ub)})
    block = op.parent_block()
    for low, high in pairwise(bounds):
        piece = op.clone()
        piece.operands = (sch.consts(low), sch.consts(high), *op.operands[2:])
        block.insert_op_before(piece, op)
    op.detach()
    op.erase()


def _schedule_padding(sch, pool: te.Tensor) -> None:
    """Run the materialized padding the pool reads (if any) in parallel
    over its rows. A padded row is split into its borders and the interior
    (a copy that LLVM vectorizes); an unpadded one is one vector when short
    enough."""
    padded = pool.op.input_tensors[0]
    if "pool_halves" in getattr(padded.op, "attrs", {}):
        before, size = padded.op.attrs["pool_halves"]
        *outer, row = sch.get_loops(padded.name)
        if use_threads():
            sch.parallel(sch.fuse(*outer))
        # positions 2 j + {0, 1} all in the data: a plain (stride-2) copy
        _partition(sch, row, [-(-before // 2), (size - 2 + before) // 2 + 1])
        return
    geometry = padded.op.attrs.get("pool_pad")
    if geometry is None:
        return
    before, size = geometry
    *outer, row = sch.get_loops(padded.name)
    if use_threads() and outer:
        sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])
    if padded.shape[-1] > size or before:
        _partition(sch, row, [before, before + size])
    elif 1 < padded.shape[-1] <= MAX_VECTOR_LANES:
        sch.vectorize(row)


def schedule_pool(sch, pool: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The register-tiled schedule (see the module) of a kernel whose one
    output is the pool or its elementwise epilogue; any other kernel gets
    the default (parallel) schedule."""
    if len(outputs) != 1 or not _attached(pool, outputs[0]):
        _schedule_padding(sch, pool)
        schedule_default(sch, outputs)
        return
    (out,) = outputs
    extent = out.shape[-1]
    *outer, last = sch.get_loops(out.name)
    if pool.op.attrs["pool_vector_axis"] and out.ndim >= 4 and extent <= MAX_VECTOR_LANES:
        # blocked data: one vector of the last axis per pixel, pixels unrolled
        *outer, pixels = outer
        fits = [d for d in range(1, 9) if out.shape[-2] % d == 0 and d * extent <= 2 * MAX_TILE]
        tile_loop, _ = sch.split(pixels, [None, max(fits, default=1)])
    else:
        row = row_block(extent, lanes(dtype_bits=dt.bits(out.dtype)))
        tile_loop, inner = sch.split(last, [None, row])
        if out.ndim >= 4:
            *outer, y = outer
            height = out.shape[-2]
            rows = max(d for d in range(1, 9) if height % d == 0 and d * row <= MAX_TILE)
            yo, yi = sch.split(y, [None, rows]) if rows > 1 else (y, None)
            if yi is not None:
                sch.reorder(yo, tile_loop, yi, inner)
            outer.append(yo)
    nests = sch.cache_write(out.name, tile_loop)
    vectorize_tile(sch, nests)
    _schedule_padding(sch, pool)
    fused = sch.fuse(*outer) if len(outer) > 1 else outer[0]
    if use_threads():
        sch.parallel(fused)


def global_pool(data: te.Tensor, kind: str) -> te.Tensor:
    """Global ``kind`` (``"max"`` or ``"avg"``) pooling of ``[N, C, H, W]``
    data to ``[N, C, 1, 1]`` (:func:`xtvm.topi.global_max_pool2d` and
    ``global_avg_pool2d``), in two stages: per channel the columns reduced
    over the rows — one vector of the row's ``W`` elements, updated once a
    row (:func:`schedule_global_pool`) — then the ``W`` column results.
    A float sum is thus added in another order than row-major (as
    onnxruntime's vectorized one). Integer and dynamic or very wide data
    get the generic reduction."""
    generic = global_max_pool2d if kind == "max" else global_avg_pool2d
    if data.ndim != 4 or not is_static(data.shape) or not dt.is_float(data.dtype):
        return generic(data)
    n, c, h, w = data.shape
    if not 1 < w <= MAX_VECTOR_LANES or h * w == 0:
        return generic(data)
    reducer = _max if kind == "max" else te.sum
    ry = te.reduce_axis((0, h), name="ry")
    columns = te.compute(
        (n, c, w),
        lambda b, ch, x: reducer(data[b, ch, ry, x], axis=ry),
        name="T_pool_columns",
        tag="pool_columns",
        attrs={"schedule": schedule_global_pool},
    )
    rx = te.reduce_axis((0, w), name="rx")
    total = te.compute(
        (n, c, 1, 1),
        lambda b, ch, i, j: reducer(columns[b, ch, rx], axis=rx),
        name="T_global_max_pool2d" if kind == "max" else "T_global_sum",
        tag="comm_reduce",
    )
    if kind == "max":
        return total
    count = te.const(h * w, data.dtype)
    return te.compute(
        total.shape, lambda *i: total[i] / count, name="T_global_avg_pool2d", tag="elemwise"
    )


def schedule_global_pool(sch, columns: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The column stage: per (batch, channel), in parallel, a vector
    accumulator of the row updated by each row; the kernel's outputs (the
    final reduction and its epilogue) parallel over the channels."""
    b, ch, _ = sch.get_loops(columns.name)
    nests = sch.cache_write(columns.name, ch)
    vectorize_tile(sch, nests)
    if use_threads():
        sch.parallel(sch.fuse(b, ch))
    for out in outputs:
        if out.shape:
            schedule_injective(sch, out, vectorize=False)
