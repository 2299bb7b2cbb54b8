"""2-d pooling on NCHW data (TVM's ``topi.nn.pool2d``, ONNX/onnxruntime
rules for ``ceil_mode`` and ``count_include_pad``)."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.te.expr import PrimExpr
from xtvm.topi import reduce


def _output_size(size: int, before: int, after: int, window: int, stride: int, dilation: int, ceil_mode: bool) -> int:
    span = (window - 1) * dilation + 1
    if not ceil_mode:
        return (size + before + after - span) // stride + 1
    out = -(-(size + before + after - span) // stride) + 1
    return out - 1 if (out - 1) * stride >= size + before else out


def _pool(
    data: te.Tensor,
    kind: str,
    pool_size: Sequence[int],
    strides: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool = False,
) -> te.Tensor:
    n, c, h, w = data.shape
    (kh, kw), (sh, sw), (dh, dw) = pool_size, strides, dilation
    top, left, bottom, right = padding
    oh = _output_size(h, top, bottom, kh, sh, dh, ceil_mode)
    ow = _output_size(w, left, right, kw, sw, dw, ceil_mode)
    shape = (n, c, oh, ow)
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")

    def window(y: PrimExpr, x: PrimExpr) -> tuple[PrimExpr, PrimExpr]:
        return y * sh + ry * dh - top, x * sw + rx * dw - left

    def in_data(iy: PrimExpr, ix: PrimExpr) -> PrimExpr:
        return (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)

    def values(b: PrimExpr, f: PrimExpr, y: PrimExpr, x: PrimExpr, reducer) -> PrimExpr:
        iy, ix = window(y, x)
        return reducer(data[b, f, iy, ix], axis=[ry, rx], where=in_data(iy, ix))

    if kind == "max":
        return te.compute(shape, lambda *i: values(*i, te.max), name="T_max_pool2d", tag="pool_max")
    total = te.compute(shape, lambda *i: values(*i, te.sum), name="T_pool_sum")

    def counted(b: PrimExpr, f: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        iy, ix = window(y, x)
        if count_include_pad:  # padding counts, the ceil_mode overhang does not
            inside = (iy < h + bottom) & (ix < w + right)
        else:
            inside = in_data(iy, ix)
        return te.sum(te.const(1, data.dtype), axis=[ry, rx], where=inside)

    count = te.compute(shape, counted, name="T_pool_count")
    divide = (lambda a, b: a / b) if dt.is_float(data.dtype) else te.truncdiv
    return te.compute(shape, lambda *i: divide(total[i], count[i]), name="T_avg_pool2d", tag="pool_avg")


def max_pool2d(
    data: te.Tensor,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
) -> te.Tensor:
    """Window maximum; padding never wins."""
    return _pool(data, "max", pool_size, strides, dilation, padding, ceil_mode)


def avg_pool2d(
    data: te.Tensor,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> te.Tensor:
    """Window mean: the sum over the window's elements in the data divided by
    their count (with ``count_include_pad``: data and padding elements)."""
    return _pool(data, "avg", pool_size, strides, dilation, padding, ceil_mode, count_include_pad)


def global_max_pool2d(data: te.Tensor) -> te.Tensor:
    """``[N, C, H, W]`` → ``[N, C, 1, 1]`` maxima."""
    return reduce.max(data, (2, 3), keepdims=True)


def global_avg_pool2d(data: te.Tensor) -> te.Tensor:
    """``[N, C, H, W]`` → ``[N, C, 1, 1]`` means."""
    return reduce.mean(data, (2, 3), keepdims=True)
