"""Convolutions (TVM's ``topi.nn.conv2d_nchw``, with groups; N-d
convolutions and transposed convolutions)."""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi.nn import accumulator_dtype, rounded_once


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
    right]`` zeros; products accumulate in ``out_dtype`` (default: the data's;
    float16 in float32, :func:`~xtvm.topi.nn.accumulator_dtype`).

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
    result_dtype = out_dtype or data.dtype
    acc = accumulator_dtype(result_dtype)
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

    result = te.compute((n, o, oh, ow), fcompute, name="T_conv2d_nchw", tag="conv2d_nchw")
    return rounded_once(result, result_dtype)


def _all(conditions: Sequence[PrimExpr]) -> PrimExpr | None:
    result = None
    for c in conditions:
        result = c if result is None else result & c
    return result


def _spatial_names(n: int) -> tuple[str, ...]:
    return ("rz", "ry", "rx")[3 - n :] if n <= 3 else tuple(f"r{i}" for i in range(n))


def conv(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int] | None = None,
    padding: Sequence[int] | None = None,
    dilation: Sequence[int] | None = None,
    groups: int = 1,
    out_dtype: str | None = None,
) -> te.Tensor:
    """N-d cross-correlation (TVM's ``conv1d_ncw`` / ``conv3d_ncdhw``; the
    2-d case is :func:`conv2d_nchw`): data ``[N, C, *spatial]``, weight
    ``[O, C / groups, *kernel]`` → ``[N, O, *out]``; ``padding`` is ``2N``
    zeros, before then after each spatial axis, guarded in the reduction."""
    n = weight.ndim - 2
    if data.ndim != n + 2 or n < 1:
        raise ValueError(
            f"conv: data {list(data.shape)} and weight {list(weight.shape)} ranks differ"
        )
    strides = tuple(strides or (1,) * n)
    dilation = tuple(dilation or (1,) * n)
    padding = tuple(padding or (0,) * (2 * n))
    batch, c, *spatial = data.shape
    o, cg, *kernel = weight.shape
    if c != cg * groups or o % groups:
        raise ValueError(
            f"conv: groups={groups} does not fit data {list(data.shape)} "
            f"and weight {list(weight.shape)}"
        )
    out = [
        (size + before + after - (k - 1) * d - 1) // s + 1
        for size, before, after, k, d, s in zip(
            spatial, padding[:n], padding[n:], kernel, dilation, strides
        )
    ]
    result_dtype = out_dtype or data.dtype
    acc = accumulator_dtype(result_dtype)
    out_per_group = o // groups
    rc = te.reduce_axis((0, cg), name="rc")
    rk = [te.reduce_axis((0, k), name=name) for name, k in zip(_spatial_names(n), kernel)]

    def fcompute(b: PrimExpr, f: PrimExpr, *y: PrimExpr) -> PrimExpr:
        idx = [y[a] * strides[a] + rk[a] * dilation[a] - padding[a] for a in range(n)]
        channel = rc if groups == 1 else te.truncdiv(f, out_per_group) * cg + rc
        product = data[(b, channel, *idx)].astype(acc) * weight[(f, rc, *rk)].astype(acc)
        inside = None
        if any(padding):
            inside = _all([(v >= 0) & (v < spatial[a]) for a, v in enumerate(idx)])
        return te.sum(product, axis=[rc, *rk], where=inside)

    result = te.compute((batch, o, *out), fcompute, name=f"T_conv{n}d", tag=f"conv{n}d")
    return rounded_once(result, result_dtype)


def conv_transpose(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int] | None = None,
    padding: Sequence[int] | None = None,
    output_padding: Sequence[int] | None = None,
    dilation: Sequence[int] | None = None,
    groups: int = 1,
    out_dtype: str | None = None,
) -> te.Tensor:
    """N-d transposed convolution: data ``[N, C, *spatial]``, weight ``[C,
    O / groups, *kernel]`` → ``[N, O, *out]``, ``out = (in - 1) * stride -
    before - after + (k - 1) * dilation + output_padding + 1``.

    Gather form: output position ``y`` receives ``x[i] * w[k]`` for every
    kernel offset ``k`` with ``y + before - k * dilation = i * stride`` and
    ``i`` inside the input (floor division and modulo find ``i``); the
    reduction runs over the group's input channels and the kernel, guarded
    by that condition.
    """
    n = weight.ndim - 2
    if data.ndim != n + 2 or n < 1:
        raise ValueError(
            f"conv_transpose: data {list(data.shape)} and weight {list(weight.shape)} ranks differ"
        )
    strides = tuple(strides or (1,) * n)
    dilation = tuple(dilation or (1,) * n)
    padding = tuple(padding or (0,) * (2 * n))
    extra = tuple(output_padding or (0,) * n)
    batch, c, *spatial = data.shape
    ci, og, *kernel = weight.shape
    if ci != c or c % groups:
        raise ValueError(
            f"conv_transpose: groups={groups} does not fit data {list(data.shape)} "
            f"and weight {list(weight.shape)}"
        )
    out = [
        (size - 1) * s + (k - 1) * d + 1 + e - before - after
        for size, s, k, d, e, before, after in zip(
            spatial, strides, kernel, dilation, extra, padding[:n], padding[n:]
        )
    ]
    result_dtype = out_dtype or data.dtype
    acc = accumulator_dtype(result_dtype)
    cg = c // groups
    rc = te.reduce_axis((0, cg), name="rc")
    rk = [te.reduce_axis((0, k), name=name) for name, k in zip(_spatial_names(n), kernel)]

    def fcompute(b: PrimExpr, f: PrimExpr, *y: PrimExpr) -> PrimExpr:
        offset = [y[a] + padding[a] - rk[a] * dilation[a] for a in range(n)]
        idx = [te.floordiv(v, s) if s > 1 else v for v, s in zip(offset, strides)]
        hits = [(idx[a] >= 0) & (idx[a] < spatial[a]) for a in range(n)]
        hits += [te.floormod(v, s) == 0 for v, s in zip(offset, strides) if s > 1]
        channel, within = rc, f
        if groups > 1:
            channel, within = te.truncdiv(f, og) * cg + rc, te.truncmod(f, og)
        product = data[(b, channel, *idx)].astype(acc) * weight[(channel, within, *rk)].astype(acc)
        return te.sum(product, axis=[rc, *rk], where=_all(hits))

    name = f"conv{n}d_transpose"
    result = te.compute((batch, og * groups, *out), fcompute, name=f"T_{name}", tag=name)
    return rounded_once(result, result_dtype)
