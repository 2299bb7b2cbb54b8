"""NumPy semantics of the convolutions ``relay.nn.conv{1,2,3}d`` (data
``[N, C, *spatial]``, weight ``[O, C / groups, *kernel]``) and the transposed
convolutions ``relay.nn.conv{1,2,3}d_transpose`` (weight ``[C, O / groups,
*kernel]``)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np


def conv(
    data: np.ndarray,
    weight: np.ndarray,
    strides: Sequence[int] | None = None,
    padding: Sequence[int] | None = None,
    dilation: Sequence[int] | None = None,
    groups: int = 1,
    out_dtype: str | None = None,
) -> np.ndarray:
    """Grouped, strided, dilated N-d cross-correlation by im2col.

    For each kernel offset the strided window of the padded input it meets is
    one slice; stacking the slices gives, per group, a matrix ``[C/groups *
    prod(kernel), prod(out)]`` that one matrix product with the group's
    ``[O/groups, C/groups * prod(kernel)]`` weights turns into the output.
    The result has ``out_dtype`` (default: the data's dtype). Floating-point
    products are summed in float64 and rounded once, as TVM's reference
    (``conv2d_nchw_python``) does: float32 BLAS tiles give equal output
    channels sums a few ULPs apart, and a softmax over large logits turns
    those into different answers (the shipped light SqueezeNet, whose last
    convolution has equal weights, gave a one-hot output instead of a uniform
    one).
    """
    n_batch, c = data.shape[:2]
    o, cg, *kernel = weight.shape
    n = len(kernel)
    strides = tuple(strides or (1,) * n)
    dilation = tuple(dilation or (1,) * n)
    padding = tuple(padding or (0,) * (2 * n))
    result_dtype = np.dtype(out_dtype or data.dtype)
    acc = np.dtype(np.float64) if result_dtype.kind == "f" else result_dtype
    x = np.pad(data.astype(acc), [(0, 0), (0, 0), *zip(padding[:n], padding[n:])])
    out = [
        (x.shape[2 + a] - (kernel[a] - 1) * dilation[a] - 1) // strides[a] + 1 for a in range(n)
    ]
    cols = np.empty((n_batch, c, *kernel, *out), acc)
    for offset in itertools.product(*(range(k) for k in kernel)):
        window = tuple(
            slice(k * d, k * d + s * (m - 1) + 1, s)
            for k, d, s, m in zip(offset, dilation, strides, out)
        )
        cols[(slice(None), slice(None), *offset)] = x[(slice(None), slice(None), *window)]
    size = cg * int(np.prod(kernel))
    cols = cols.reshape(n_batch, groups, size, int(np.prod(out)))  # no -1: batch 0
    kernels = weight.astype(acc).reshape(groups, o // groups, size)
    result = np.matmul(kernels[np.newaxis], cols)  # [n, groups, o / groups, prod(out)]
    return result.reshape(n_batch, o, *out).astype(result_dtype)


def conv2d(
    data: np.ndarray,
    weight: np.ndarray,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    out_dtype: str | None = None,
) -> np.ndarray:
    """:func:`conv` of ``NCHW`` data with an ``OIHW`` weight; ``padding`` is
    ``[top, left, bottom, right]``."""
    return conv(data, weight, strides, padding, dilation, groups, out_dtype)


def conv_transpose(
    data: np.ndarray,
    weight: np.ndarray,
    strides: Sequence[int] | None = None,
    padding: Sequence[int] | None = None,
    output_padding: Sequence[int] | None = None,
    dilation: Sequence[int] | None = None,
    groups: int = 1,
    out_dtype: str | None = None,
) -> np.ndarray:
    """Transposed convolution by scattering: each kernel offset adds the
    product of the group's input channels and the weight's
    ``[C/groups, O/groups]`` matrix at that offset into a strided slice of
    the full result, which ``padding`` then crops (``output_padding``
    extends its end)."""
    n_batch, c, *size = data.shape
    _, og, *kernel = weight.shape
    n = len(kernel)
    strides = tuple(strides or (1,) * n)
    dilation = tuple(dilation or (1,) * n)
    padding = tuple(padding or (0,) * (2 * n))
    extra = tuple(output_padding or (0,) * n)
    acc = np.dtype(out_dtype or data.dtype)
    full = [
        (i - 1) * s + (k - 1) * d + 1 + e
        for i, s, k, d, e in zip(size, strides, kernel, dilation, extra)
    ]
    result = np.zeros((n_batch, og * groups, *full), acc)
    cg = c // groups
    for g in range(groups):
        x = data[:, g * cg : (g + 1) * cg].astype(acc)
        w = weight[g * cg : (g + 1) * cg].astype(acc)
        for offset in itertools.product(*(range(k) for k in kernel)):
            target = tuple(
                slice(k * d, k * d + s * (i - 1) + 1, s)
                for k, d, s, i in zip(offset, dilation, strides, size)
            )
            scattered = np.einsum("nc...,co->no...", x, w[(slice(None), slice(None), *offset)])
            result[(slice(None), slice(g * og, (g + 1) * og), *target)] += scattered
    crop = tuple(slice(padding[a], full[a] - padding[n + a]) for a in range(n))
    return result[(slice(None), slice(None), *crop)]


_CONV_ATTRS = ("strides", "padding", "dilation", "groups", "out_dtype")


def _given(attrs: dict, names: Sequence[str]) -> dict:
    return {k: attrs[k] for k in names if attrs.get(k) is not None}


REFERENCES = {
    **{
        f"relay.nn.conv{n}d": lambda ins, attrs: conv(*ins, **_given(attrs, _CONV_ATTRS))
        for n in (1, 2, 3)
    },
    **{
        f"relay.nn.conv{n}d_transpose": lambda ins, attrs: conv_transpose(
            *ins, **_given(attrs, (*_CONV_ATTRS, "output_padding"))
        )
        for n in (1, 2, 3)
    },
}
