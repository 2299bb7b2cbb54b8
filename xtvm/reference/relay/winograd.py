"""NumPy semantics of the Winograd ops (``xtvm.dialects.relay.winograd``):
the F(m, r) matrices (r = 3, and r = 4 for the space-to-depth form of a
7x7 stride-2 conv), the weight transform, and the convolution on a
transformed weight computed the Winograd way (input transform, products
summed over the input channels, output transform) in float64."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from math import prod

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


KERNEL_SIZES = (3, 4)
"""The kernel sizes ``r`` of F(m, r) the ops take."""

POINTS: tuple[Fraction, ...] = tuple(F(p) for p in (0, -1, 1, F(1, 2), -2, F(-1, 2), 2))
"""The finite interpolation points of Cook-Toom's F(m, r), the first ``m +
r - 2`` of them, then infinity, in the order TVM's ``winograd_util``
proposes (after Barabasz et al., "Error analysis and improving the accuracy
of Winograd convolution"): small and paired (``±1``, ``±1/2``, ``±2``) for
the float32 error."""


Matrices = tuple[list[list[Fraction]], list[list[Fraction]], list[list[Fraction]]]
"""``(B^T, G, A^T)``."""


@cache
def cook_toom(m: int, r: int) -> Matrices:
    """``(B^T, G, A^T)`` of F(m, r) from :data:`POINTS` in exact fractions
    (TVM's ``winograd_transform_matrices``): ``A^T[i, j] = p_j^i`` and
    ``G[j, k] = p_j^k / prod_{l != j} (p_j - p_l)`` (the points evaluate the
    output and the filter; infinity takes the top coefficients), and ``B^T``
    the one matrix for which ``A^T [(G g) ⊙ (B^T d)]`` is the correlation
    ``y_i = sum_k d_{i+k} g_k`` for every ``d`` and ``g``, solved exactly."""
    a = m + r - 1
    if not 2 <= a - 1 <= len(POINTS) or m < 1 or r < 2:
        raise ValueError(f"cook_toom: no points for F({m}, {r})")
    points = POINTS[: a - 1]
    at = [[p**i for p in points] + [F(int(i == m - 1))] for i in range(m)]
    g = [
        [p**k / prod((p - q for q in points if q != p), start=F(1)) for k in range(r)]
        for p in points
    ] + [[F(int(k == r - 1)) for k in range(r)]]
    # sum_j A^T[i, j] G[j, k] B^T[j, l] = [l == i + k]: for each column l of
    # B^T, m·r equations in its a unknowns (of rank a)
    rows = [[at[i][j] * g[j][k] for j in range(a)] for i in range(m) for k in range(r)]
    columns = [
        _solve(rows, [F(int(l == i + k)) for i in range(m) for k in range(r)]) for l in range(a)
    ]
    bt = [[columns[l][j] for l in range(a)] for j in range(a)]
    return bt, g, at


def _solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """The solution of a consistent system of full column rank (Gauss-Jordan
    in fractions); a ValueError if it has none or several."""
    n = len(rows[0])
    eqs = [[*row, b] for row, b in zip(rows, rhs)]
    for col in range(n):
        pivot = next((i for i in range(col, len(eqs)) if eqs[i][col] != 0), None)
        if pivot is None:
            raise ValueError("cook_toom: the points do not determine B^T")
        eqs[col], eqs[pivot] = eqs[pivot], eqs[col]
        eqs[col] = [v / eqs[col][col] for v in eqs[col]]
        for i, eq in enumerate(eqs):
            if i != col and eq[col] != 0:
                eqs[i] = [u - eq[col] * v for u, v in zip(eq, eqs[col])]
    if any(v != 0 for eq in eqs[n:] for v in eq):
        raise ValueError("cook_toom: the system is inconsistent")
    return [eqs[i][n] for i in range(n)]


def winograd_matrices(m: int, r: int = 3) -> Matrices:
    """``(B^T, G, A^T)`` of F(m, r): Lavin & Gray's :data:`MATRICES` for
    ``r = 3``, Cook-Toom's (:func:`cook_toom`) for the others."""
    if r == 3 and m in MATRICES:
        return MATRICES[m]
    if r not in KERNEL_SIZES or m not in MATRICES:
        raise ValueError(f"winograd: no F({m}, {r}); m in {sorted(MATRICES)}, r in {KERNEL_SIZES}")
    return cook_toom(m, r)


def _array(matrix: list[list[Fraction]]) -> np.ndarray:
    return np.array([[float(v) for v in row] for row in matrix])


def transform_weight(weight: np.ndarray, m: int, block: int) -> np.ndarray:
    """``U = G g G^T`` of an ``OIHW`` weight ``[K, C, r, r]`` (``r`` 3 or 4),
    laid out ``[a, a, K/block, C, block]`` (``a = m + r - 1``), in the
    weight's dtype."""
    k, c, r = weight.shape[:3]
    g = _array(winograd_matrices(m, r)[1])
    u = np.einsum("ei,kcij,nj->enkc", g, weight.astype(np.float64), g)
    a = m + r - 1
    u = u.reshape(a, a, k // block, block, c).transpose(0, 1, 2, 4, 3)
    return np.ascontiguousarray(u, dtype=weight.dtype)


def conv2d_winograd(
    data: np.ndarray, u: np.ndarray, m: int, padding: Sequence[int], data_layout: str
) -> np.ndarray:
    """The stride-1 conv of blocked ``data`` by F(m, r) on the transformed
    weight ``u`` (``[a, a, K/b, C, b]``, ``r = a - m + 1``), blocked
    ``NCHW<b>c`` like the kernel."""
    a = u.shape[0]
    r = a - m + 1
    bt, _, at = (_array(x) for x in winograd_matrices(m, r))
    x = layout_transform(data, data_layout, "NCHW").astype(np.float64)
    n, c, h, w = x.shape
    top, left, bottom, right = padding
    oh, ow = h + top + bottom - r + 1, w + left + right - r + 1
    th, tw = -(-oh // m), -(-ow // m)
    x = np.pad(
        x,
        ((0, 0), (0, 0), (top, th * m + r - 1 - h - top), (left, tw * m + r - 1 - w - left)),
    )
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
