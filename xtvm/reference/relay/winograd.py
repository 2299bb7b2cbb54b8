"""NumPy semantics of the Winograd ops (``xtvm.dialects.relay.winograd``):
the F(m, 3) matrices, the weight transform, and the convolution on a
transformed weight computed the Winograd way (input transform, products
summed over the input channels, output transform) in float64."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from xtvm.reference.relay.packed import layout_transform

F = Fraction

MATRICES: dict[int, tuple[list[list[Fraction]], list[list[Fraction]], list[list[Fraction]]]] = {
    # m: (B^T, G, A^T), Lavin & Gray's F(2,3) and F(4,3)
    2: (
        [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
        [[1, 0, 0], [F(1, 2), F(1, 2), F(1, 2)], [F(1, 2), F(-1, 2), F(1, 2)], [0, 0, 1]],
        [[1, 1, 1, 0], [0, 1, -1, -1]],
    ),
    4: (
        [
            [4, 0, -5, 0, 1, 0],
            [0, -4, -4, 1, 1, 0],
            [0, 4, -4, -1, 1, 0],
            [0, -2, -1, 2, 1, 0],
            [0, 2, -1, -2, 1, 0],
            [0, 4, 0, -5, 0, 1],
        ],
        [
            [F(1, 4), 0, 0],
            [F(-1, 6), F(-1, 6), F(-1, 6)],
            [F(-1, 6), F(1, 6), F(-1, 6)],
            [F(1, 24), F(1, 12), F(1, 6)],
            [F(1, 24), F(-1, 12), F(1, 6)],
            [0, 0, 1],
        ],
        [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
    ),
}
"""The transform matrices ``(B^T, G, A^T)`` of F(m, 3) by output tile size ``m``
(exact fractions: the kernels emit the nonzero coefficients as constants)."""


def _array(matrix: list[list[Fraction]]) -> np.ndarray:
    return np.array([[float(v) for v in row] for row in matrix])


def transform_weight(weight: np.ndarray, m: int, block: int) -> np.ndarray:
    """``U = G g G^T`` of an ``OIHW`` weight ``[K, C, 3, 3]``, laid out
    ``[a, a, K/block, C, block]`` (``a = m + 2``), in the weight's dtype."""
    k, c = weight.shape[:2]
    g = _array(MATRICES[m][1])
    u = np.einsum("ei,kcij,nj->enkc", g, weight.astype(np.float64), g)
    a = m + 2
    u = u.reshape(a, a, k // block, block, c).transpose(0, 1, 2, 4, 3)
    return np.ascontiguousarray(u, dtype=weight.dtype)


def conv2d_winograd(
    data: np.ndarray, u: np.ndarray, m: int, padding: Sequence[int], data_layout: str
) -> np.ndarray:
    """The conv of blocked ``data`` by F(m, 3) on the transformed weight
    ``u`` (``[a, a, K/b, C, b]``), blocked ``NCHW<b>c`` like the kernel."""
    bt, _, at = (_array(x) for x in MATRICES[m])
    a = m + 2
    x = layout_transform(data, data_layout, "NCHW").astype(np.float64)
    n, c, h, w = x.shape
    top, left, bottom, right = padding
    oh, ow = h + top + bottom - 2, w + left + right - 2
    th, tw = -(-oh // m), -(-ow // m)
    x = np.pad(x, ((0, 0), (0, 0), (top, th * m + 2 - h - top), (left, tw * m + 2 - w - left)))
    # patches[n, c, ty, tx, i, j]: the a x a input tile of each output tile
    rows = np.arange(th)[:, None] * m + np.arange(a)[None, :]
    cols = np.arange(tw)[:, None] * m + np.arange(a)[None, :]
    patches = x[:, :, rows[:, None, :, None], cols[None, :, None, :]]
    v = np.einsum("ei,ncyxij,fj->efncyx", bt, patches, bt)
    kb, b = u.shape[2], u.shape[4]
    weights = u.astype(np.float64).transpose(0, 1, 3, 2, 4).reshape(a, a, c, kb * b)
    prod = np.einsum("efncyx,efck->efnkyx", v, weights)
    y = np.einsum("pe,efnkyx,qf->nkypxq", at, prod, at).reshape(n, kb * b, th * m, tw * m)
    out = y[:, :, :oh, :ow].astype(data.dtype)
    return layout_transform(out, "NCHW", f"NCHW{b}c")


REFERENCES = {
    "relay.nn.contrib_conv2d_winograd_weight_transform": lambda ins, attrs: transform_weight(
        ins[0], attrs["tile_size"], attrs["block"]
    ),
    "relay.nn.contrib_conv2d_winograd_without_weight_transform": lambda ins, attrs: conv2d_winograd(
        ins[0], ins[1], attrs["tile_size"], attrs["padding"], attrs["data_layout"]
    ),
}
