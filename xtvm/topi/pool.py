"""Pooling on channel-first data with 1, 2 or 3 spatial axes (TVM's
``topi.nn.pool1d/pool2d/pool3d``, ONNX/onnxruntime rules for ``ceil_mode``
and ``count_include_pad``), and max pooling with the positions of the
maxima."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.topi import reduce


def output_size(
    size: int, before: int, after: int, window: int, stride: int, dilation: int, ceil_mode: bool
) -> int:
    """Window positions along one axis (onnxruntime's rule, see :func:`pool`)."""
    span = (window - 1) * dilation + 1
    if not ceil_mode:
        excess = size + before + after - span  # a window larger than the padded input:
        return (excess // stride if excess >= 0 else -(-excess // stride)) + 1  # toward 0
    out = -(-(size + before + after - span) // stride) + 1
    return out - 1 if (out - 1) * stride >= size + before else out


def all_of(conditions: Sequence[PrimExpr]) -> PrimExpr:
    """The conjunction of one or more conditions."""
    result = conditions[0]
    for c in conditions[1:]:
        result = result & c
    return result


def window_geometry(
    spatial: Sequence[int],
    pool_size: Sequence[int],
    strides: Sequence[int] | None,
    dilation: Sequence[int] | None,
    padding: Sequence[int] | None,
    ceil_mode: bool,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], list[int]]:
    """A pool's ``(strides, dilation, before, after, out)`` over ``spatial``
    axes: the defaults (1, 1, no padding) filled in, the padding split into
    before and after each axis, and the output size of each axis."""
    n = len(pool_size)
    strides = tuple(strides or (1,) * n)
    dilation = tuple(dilation or (1,) * n)
    padding = tuple(padding or (0,) * (2 * n))
    before, after = padding[:n], padding[n:]
    geometry = zip(spatial, before, after, pool_size, strides, dilation)
    return strides, dilation, before, after, [output_size(*axis, ceil_mode) for axis in geometry]


def window_axes(pool_size: Sequence[int]) -> list:
    """One reduction axis per window axis (``rz``, ``ry``, ``rx``)."""
    n = len(pool_size)
    names = ("rz", "ry", "rx")[3 - n :] if n <= 3 else [f"r{i}" for i in range(n)]
    return [te.reduce_axis((0, k), name=name) for name, k in zip(names, pool_size)]


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
    """``kind`` (``"max"`` or ``"avg"``) pooling over the ``N = len(pool_size)``
    trailing axes of ``data`` (``[batch, channels, *spatial]``); ``padding``
    is ``2N`` values, before then after each spatial axis. Padding and a
    ``ceil_mode`` overhang never enter a maximum or a sum; the average divides
    by the number of window elements in the data (with
    ``count_include_pad``: in data and padding)."""
    n = len(pool_size)
    if data.ndim != n + 2:
        raise ValueError(f"{n}-d pooling needs {n + 2}-d data, got {list(data.shape)}")
    spatial = data.shape[2:]
    geometry = window_geometry(spatial, pool_size, strides, dilation, padding, ceil_mode)
    strides, dilation, before, after, out = geometry
    shape = (*data.shape[:2], *out)
    rvars = window_axes(pool_size)

    def window(o: Sequence[PrimExpr]) -> list[PrimExpr]:
        return [o[i] * strides[i] + rvars[i] * dilation[i] - before[i] for i in range(n)]

    def in_data(idx: Sequence[PrimExpr]) -> PrimExpr:
        return all_of([(v >= 0) & (v < spatial[i]) for i, v in enumerate(idx)])

    def values(b: PrimExpr, c: PrimExpr, *o: PrimExpr, reducer) -> PrimExpr:
        idx = window(o)
        return reducer(data[(b, c, *idx)], axis=rvars, where=in_data(idx))

    suffix = f"{n}d"
    if kind == "max":
        return te.compute(
            # reduce's max starts from -inf (te.max from the lowest finite
            # value, the answer for a window of -inf); NaN propagates
            shape,
            lambda *i: values(*i, reducer=reduce._max),
            name=f"T_max_pool{suffix}",
            tag="pool_max",
        )
    if kind != "avg":
        raise ValueError(f"unknown pool kind {kind!r}; expected 'max' or 'avg'")
    total = te.compute(
        shape, lambda *i: values(*i, reducer=te.sum), name="T_pool_sum", tag="pool_sum"
    )

    def counted(b: PrimExpr, c: PrimExpr, *o: PrimExpr) -> PrimExpr:
        idx = window(o)
        if count_include_pad:  # padding counts, the ceil_mode overhang does not
            inside = all_of([v < spatial[i] + after[i] for i, v in enumerate(idx)])
        else:
            inside = in_data(idx)
        return te.sum(te.const(1, data.dtype), axis=rvars, where=inside)

    count = te.compute(shape, counted, name="T_pool_count", tag="injective")
    divide = (lambda a, b: a / b) if dt.is_float(data.dtype) else te.truncdiv
    return te.compute(
        shape, lambda *i: divide(total[i], count[i]), name=f"T_avg_pool{suffix}", tag="pool_avg"
    )


def max_pool_with_argmax(
    data: te.Tensor,
    pool_size: Sequence[int],
    strides: Sequence[int] | None = None,
    dilation: Sequence[int] | None = None,
    padding: Sequence[int] | None = None,
    ceil_mode: bool = False,
    column_major: bool = False,
) -> list[te.Tensor]:
    """The window maxima and the ``int64`` position of each in the flattened
    ``data`` (row-major; with ``column_major`` the spatial axes count in
    reverse order). Ties go to the first window element (row-major).

    Three stages: the maxima, the first window offset holding each maximum
    (a minimum over the in-data offsets that hit it), and the position."""
    n = len(pool_size)
    strides = tuple(strides or (1,) * n)
    dilation = tuple(dilation or (1,) * n)
    padding = tuple(padding or (0,) * (2 * n))
    maxima = pool(data, "max", pool_size, strides, dilation, padding, ceil_mode)
    spatial = data.shape[2:]
    rvars = [te.reduce_axis((0, k), name=f"a{i}") for i, k in enumerate(pool_size)]
    count = math.prod(pool_size)

    def element(o: Sequence[PrimExpr], offsets: Sequence[PrimExpr]) -> list[PrimExpr]:
        return [o[i] * strides[i] + offsets[i] * dilation[i] - padding[i] for i in range(n)]

    def first_offset(b: PrimExpr, c: PrimExpr, *o: PrimExpr) -> PrimExpr:
        idx = element(o, rvars)
        inside = all_of([(v >= 0) & (v < spatial[i]) for i, v in enumerate(idx)])
        flat: PrimExpr = te.const(0, "int64")
        for r, k in zip(rvars, pool_size):
            flat = flat * k + r.astype("int64")
        x, top = data[(b, c, *idx)], maxima[(b, c, *o)]
        # a NaN maximum is the window's first NaN (as ArgMax), never no hit
        same = ((x == top) | (te.isnan(x) & te.isnan(top))) if dt.is_float(data.dtype) else x == top
        hit = inside & same
        return te.min(te.if_then_else(hit, flat, te.const(count, "int64")), axis=rvars)

    offset = te.compute(maxima.shape, first_offset, name="T_max_pool_offset")

    def position(b: PrimExpr, c: PrimExpr, *o: PrimExpr) -> PrimExpr:
        rest = offset[(b, c, *o)]
        offsets = []
        for k in reversed(pool_size):
            offsets.insert(0, te.truncmod(rest, k))
            rest = te.truncdiv(rest, k)
        idx = element([v.astype("int64") for v in o], offsets)
        axes = list(range(n))[::-1] if column_major else list(range(n))
        flat = b.astype("int64") * data.shape[1] + c.astype("int64")
        for a in axes:
            flat = flat * spatial[a] + idx[a]
        return flat

    indices = te.compute(maxima.shape, position, name="T_max_pool_argmax", tag="pool_argmax")
    return [maxima, indices]


def max_pool2d(
    data: te.Tensor,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
) -> te.Tensor:
    """Window maximum on ``NCHW`` data; padding never wins."""
    return pool(data, "max", pool_size, strides, dilation, padding, ceil_mode)


def avg_pool2d(
    data: te.Tensor,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> te.Tensor:
    """Window mean on ``NCHW`` data: the sum over the window's elements in
    the data divided by their count (with ``count_include_pad``: data and
    padding elements)."""
    return pool(data, "avg", pool_size, strides, dilation, padding, ceil_mode, count_include_pad)


def global_max_pool2d(data: te.Tensor) -> te.Tensor:
    """``[N, C, H, W]`` → ``[N, C, 1, 1]`` maxima."""
    return reduce.max(data, (2, 3), keepdims=True)


def global_avg_pool2d(data: te.Tensor) -> te.Tensor:
    """``[N, C, H, W]`` → ``[N, C, 1, 1]`` means."""
    return reduce.mean(data, (2, 3), keepdims=True)
