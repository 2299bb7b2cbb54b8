"""Convolution (TVM's ``topi.nn.conv2d_nchw``, with groups)."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr


def conv2d_nchw(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    out_dtype: str | None = None,
) -> te.Tensor:
    """2-d cross-correlation: data ``[N, C, H, W]``, weight ``[O, C / groups,
    KH, KW]`` → ``[N, O, OH, OW]``; ``padding`` is ``[top, left, bottom,
    right]`` zeros; products accumulate in ``out_dtype`` (default: the data's).

    Padded reads are guarded in the reduction (``where=``), not materialized.
    """
    if data.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"conv2d: data {list(data.shape)} and weight {list(weight.shape)} must be 4-d")
    n, c, h, w = data.shape
    o, cg, kh, kw = weight.shape
    (sh, sw), (dh, dw) = strides, dilation
    top, left, bottom, right = padding
    if c != cg * groups or o % groups:
        raise ValueError(f"conv2d: groups={groups} does not fit data {list(data.shape)} and weight {list(weight.shape)}")
    oh = (h + top + bottom - (kh - 1) * dh - 1) // sh + 1
    ow = (w + left + right - (kw - 1) * dw - 1) // sw + 1
    acc = out_dtype or data.dtype
    out_per_group = o // groups
    rc = te.reduce_axis((0, cg), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    padded = any(padding)

    def fcompute(b: PrimExpr, f: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        iy = y * sh + ry * dh - top
        ix = x * sw + rx * dw - left
        channel = rc if groups == 1 else te.truncdiv(f, out_per_group) * cg + rc
        product = data[b, channel, iy, ix].astype(acc) * weight[f, rc, ry, rx].astype(acc)
        inside = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w) if padded else None
        return te.sum(product, axis=[rc, ry, rx], where=inside)

    return te.compute((n, o, oh, ow), fcompute, name="T_conv2d_nchw", tag="conv2d_nchw")
