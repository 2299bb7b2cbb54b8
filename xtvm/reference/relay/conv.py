"""NumPy semantics of ``relay.nn.conv2d`` (NCHW data, OIHW weight)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def conv2d(
    data: np.ndarray,
    weight: np.ndarray,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    out_dtype: str | None = None,
) -> np.ndarray:
    """Grouped, strided, dilated 2-d cross-correlation by im2col.

    For each kernel offset ``(ky, kx)`` the strided window of the padded input
    it meets is one slice; stacking the slices gives, per group, a matrix
    ``[C/groups * KH * KW, OH * OW]`` that one matrix product with the
    group's ``[O/groups, C/groups * KH * KW]`` weights turns into the output.
    Accumulation is in ``out_dtype`` (default: the data's dtype).
    """
    n, c, h, w = data.shape
    o, cg, kh, kw = weight.shape
    (sh, sw), (dh, dw) = strides, dilation
    top, left, bottom, right = padding
    acc = np.dtype(out_dtype or data.dtype)
    x = np.pad(data.astype(acc), ((0, 0), (0, 0), (top, bottom), (left, right)))
    oh = (h + top + bottom - (kh - 1) * dh - 1) // sh + 1
    ow = (w + left + right - (kw - 1) * dw - 1) // sw + 1
    cols = np.empty((n, c, kh, kw, oh, ow), acc)
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dh, kx * dw
            cols[:, :, ky, kx] = x[
                :, :, y0 : y0 + sh * (oh - 1) + 1 : sh, x0 : x0 + sw * (ow - 1) + 1 : sw
            ]
    cols = cols.reshape(n, groups, cg * kh * kw, oh * ow)
    kernels = weight.astype(acc).reshape(groups, o // groups, cg * kh * kw)
    out = np.matmul(kernels[np.newaxis], cols)  # [n, groups, o / groups, oh * ow]
    return out.reshape(n, o, oh, ow).astype(acc)


REFERENCES = {
    "relay.nn.conv2d": lambda ins, attrs: conv2d(
        *ins,
        **{
            k: attrs[k]
            for k in ("strides", "padding", "dilation", "groups", "out_dtype")
            if attrs.get(k) is not None
        },
    ),
}
