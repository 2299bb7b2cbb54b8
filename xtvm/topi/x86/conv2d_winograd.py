"""Winograd convolution F(m, 3) for 3x3 stride-1 float convs on blocked
``NCHW<c>c`` activations (TVM's ``conv2d_winograd``; onnxruntime's MLAS
runs these convs directly).

Each ``m x m`` tile of output pixels comes from an ``a x a`` tile of input
pixels (``a = m + 2``): with the constant matrices ``B^T`` (``a x a``),
``G`` (``a x 3``) and ``A^T`` (``m x a``) of :data:`MATRICES`,

    Y = A^T [ sum_c (G g_kc G^T) ⊙ (B^T d_c B) ] A

The weight transform ``U = G g G^T`` is done once, at compile time
(``relay.nn.contrib_conv2d_winograd_weight_transform``, folded by
``relay-fold-constant``; :mod:`xtvm.reference.relay.winograd` holds the
matrices); at run time three stages remain:

1. input transform ``V[e, n, p, C/c, c] = (B^T d_p B)[e, n]`` (``p`` runs
   over the output tiles of every image), materialized, vectorized over the
   channel block ``c``, the ``a x a`` positions unrolled;
2. ``a·a`` GEMMs ``M[e, n, K/b, p, b] = sum_C V[e, n, p, C] · U[e, n, K/b,
   C, b]`` (the weight transform's layout: a weight row of ``b`` output
   channels is one vector), register-tiled like the direct kernel
   (``xtvm.topi.x86.conv2d``): ``R`` tiles by two channel blocks, each
   reduction step broadcasts ``V`` against two weight rows;
3. the output transform ``Y = A^T M A`` (not materialized: inlined into the
   kernel's output nest with the fused epilogue, the ``m x m`` pixels of a
   tile unrolled, vectorized over the output block ``b``).

The transforms select the constant expression of one ``(row, column)``
position on the position's loop variables; once those loops are unrolled
the selects fold away and each position is a straight-line sum of loads
with the nonzero coefficients only (no multiplies by 0 or 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from xtvm import te
from xtvm.autotvm.dispatch import current_config
from xtvm.reference.relay.winograd import MATRICES
from xtvm.te.expr import PrimExpr
from xtvm.topi.x86.config import row_block, use_threads
from xtvm.topi.x86.conv2d import pad_blocked, schedule_padding
from xtvm.topi.x86.tiling import tile_candidates, vectorize_tile


def _check_tile(m: int) -> None:
    if m not in MATRICES:
        raise ValueError(f"conv2d_winograd: tile size must be one of {sorted(MATRICES)}, got {m}")


def _linear(coefs: Sequence[Fraction | int], terms: Sequence[PrimExpr], dtype: str) -> PrimExpr:
    """``sum(coef * term)`` over the nonzero coefficients only: a coefficient
    ±1 adds or subtracts its term, others multiply by a constant."""
    plus: PrimExpr | None = None
    minus: PrimExpr | None = None
    for coef, term in zip(coefs, terms):
        if coef == 0:
            continue
        scaled = term if abs(coef) == 1 else te.const(float(abs(coef)), dtype) * term
        if coef > 0:
            plus = scaled if plus is None else plus + scaled
        else:
            minus = scaled if minus is None else minus + scaled
    if plus is None:
        return te.const(0.0, dtype) - minus if minus is not None else te.const(0.0, dtype)
    return plus if minus is None else plus - minus


def _pick(index: PrimExpr, values: Sequence[PrimExpr]) -> PrimExpr:
    """``values[index]`` as selects on ``index``, which fold once its loop is unrolled."""
    result = values[-1]
    for k in reversed(range(len(values) - 1)):
        result = te.eager_select(index == k, values[k], result)
    return result


def _two_sided(
    left: list[list[Fraction]],
    right: list[list[Fraction]],
    load: Callable[[int, int], PrimExpr],
    row: PrimExpr,
    column: PrimExpr,
    dtype: str,
) -> PrimExpr:
    """``(L X R^T)[row, column]`` for constant ``L``, ``R`` and ``X[r, s] =
    load(r, s)``: ``sum_s R[column, s] (L X)[row, s]``. Every load and every
    ``(L X)[i, s]`` is one expression object, which the emitter computes
    once; the selects pick a row of ``L X``, then a column of the result,
    so an unrolled position carries ``|L| + |R|`` alternatives (not
    ``|L|·|R|``), and after folding only its own sums are left."""
    rows, columns = len(left[0]), len(right[0])
    x = [[load(r, s) for s in range(columns)] for r in range(rows)]
    lx = [
        [_linear(line, [x[r][s] for r in range(rows)], dtype) for s in range(columns)]
        for line in left
    ]
    picked = [_pick(row, [lx[i][s] for i in range(len(left))]) for s in range(columns)]
    return _pick(column, [_linear(line, picked, dtype) for line in right])


def conv2d_winograd(
    data: te.Tensor, weight: te.Tensor, padding: Sequence[int], tile: int
) -> te.Tensor:
    """3x3 stride-1 conv by Winograd F(``tile``, 3): blocked data ``[N,
    C/c, H, W, c]``, the weight transformed by the reference's ``transform_weight``
    (``[a, a, K/b, C, b]``) → ``[N, K/b, OH, OW, b]``."""
    _check_tile(tile)
    m, a = tile, tile + 2
    n, cb, h, w, c = data.shape
    if weight.ndim != 5 or tuple(weight.shape[:2]) != (a, a) or weight.shape[3] != cb * c:
        raise ValueError(
            f"conv2d_winograd: the transformed weight {list(weight.shape)} must be "
            f"[{a}, {a}, K/b, {cb * c}, b] for blocked data {list(data.shape)} and tile {m}"
        )
    _, _, kb, _, b = weight.shape
    top, left, bottom, right = padding
    oh, ow = h + top + bottom - 2, w + left + right - 2
    if oh < 1 or ow < 1:
        raise ValueError(f"conv2d_winograd: data {list(data.shape)} is smaller than the 3x3 window")
    th, tw = -(-oh // m), -(-ow // m)
    # pad so that every tile's a x a input patch is inside
    padded = pad_blocked(data, (top, left, th * m + 2 - h - top, tw * m + 2 - w - left))
    bt, _, at = MATRICES[m]
    dtype = data.dtype
    tiles = n * th * tw

    def input_transform(
        e: PrimExpr, nu: PrimExpr, p: PrimExpr, g: PrimExpr, j: PrimExpr
    ) -> PrimExpr:
        image, y0, x0 = p // (th * tw), (p // tw) % th * m, p % tw * m
        patch = lambda r, s: padded[image, g, y0 + r, x0 + s, j]
        return _two_sided(bt, bt, patch, e, nu, dtype)

    v = te.compute(
        (a, a, tiles, cb, c),
        input_transform,
        name="T_winograd_input",
        tag="winograd_input",
        attrs={"materialize": True},
    )
    rco = te.reduce_axis((0, cb), name="rco")
    rci = te.reduce_axis((0, c), name="rci")
    gemm = te.compute(
        (a, a, kb, tiles, b),
        lambda e, nu, ko, p, ki: te.sum(
            v[e, nu, p, rco, rci] * weight[e, nu, ko, rco * c + rci, ki], axis=[rco, rci]
        ),
        name="T_winograd_gemm",
        tag="winograd_gemm",
    )

    def output_transform(
        i: PrimExpr, ko: PrimExpr, y: PrimExpr, x: PrimExpr, ki: PrimExpr
    ) -> PrimExpr:
        p = (i * th + y // m) * tw + x // m
        product = lambda e, nu: gemm[e, nu, ko, p, ki]
        return _two_sided(at, at, product, y % m, x % m, dtype)

    return te.compute(
        (n, kb, oh, ow, b),
        output_transform,
        name="T_conv2d_winograd",
        tag="conv2d_winograd",
        attrs={"schedule": schedule_conv2d_winograd, "tile": m},
    )


def winograd_weight_transform(weight: te.Tensor, tile: int, block: int) -> te.Tensor:
    """``U = G g G^T`` of an ``OIHW`` 3x3 weight ``[K, C, 3, 3]``, laid out
    ``[a, a, K/block, C, block]`` (the reference's ``transform_weight``).
    ``relay-fold-constant`` evaluates the op on constant weights with the
    reference; this compute serves a weight that is not constant."""
    _check_tile(tile)
    k, c = weight.shape[:2]
    g, a = MATRICES[tile][1], tile + 2

    def fcompute(e: PrimExpr, nu: PrimExpr, ko: PrimExpr, ci: PrimExpr, ki: PrimExpr) -> PrimExpr:
        tap = lambda i, j: weight[ko * block + ki, ci, i, j]
        return _two_sided(g, g, tap, e, nu, weight.dtype)

    return te.compute(
        (a, a, k // block, c, block), fcompute, name="T_winograd_weight", tag="winograd_weight"
    )


def schedule_conv2d_winograd(sch, conv: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The kernel's three nests (see the module): the input transform
    parallel over tiles, its positions unrolled; the GEMMs register-tiled
    (``tile_p`` tiles by ``tile_k`` channel blocks); the output transform
    with the epilogue, a tile's ``m x m`` pixels unrolled."""
    if len(outputs) != 1:
        return
    (out,) = outputs
    m = conv.op.attrs["tile"]
    gemm = conv.op.input_tensors[0]
    v = gemm.op.input_tensors[0]
    cfg = current_config()
    # the direct conv's flops (TVM's convention), so that GFLOP/s compare across algorithms
    n, blocks, oh, ow, b = conv.shape
    cfg.add_flop(2.0 * n * blocks * b * oh * ow * gemm.op.input_tensors[1].shape[3] * 9)
    _schedule_input(sch, v)
    _schedule_gemm(sch, cfg, gemm)
    _schedule_output(sch, out, m)
    schedule_padding(sch, v)


def _schedule_input(sch, v: te.Tensor) -> None:
    """Parallel over (tile, channel block); positions unrolled, channels vectorized."""
    e, nu, p, g, j = sch.get_loops(v.name)
    sch.reorder(p, g, e, nu, j)
    sch.unroll(e)
    sch.unroll(nu)
    sch.vectorize(j)
    if use_threads():
        sch.parallel(sch.fuse(p, g))


def _schedule_gemm(sch, cfg, gemm: te.Tensor) -> None:
    """A register tile of ``tile_p`` output tiles by ``tile_k`` blocks of
    ``b`` channels under each (position, block group), as the direct kernel's."""
    e, nu, ko, p, ki = sch.get_loops(gemm.name)
    tiles, blocks = gemm.shape[3], gemm.shape[2]
    row = row_block(tiles, 9)
    tile_p = cfg.define_split(
        "tile_p", tiles, candidates=tile_candidates(tiles, row, high=16), default=[-1, row]
    )
    k = cfg.define_knob(
        "tile_k", [d for d in (1, 2, 4) if blocks % d == 0], default=2 if blocks % 2 == 0 else 1
    )
    koo, *koi = sch.split(ko, [None, k]) if k > 1 else [ko]
    po, pi = tile_p.apply(sch, p)
    sch.reorder(e, nu, koo, po, *koi, pi, ki)
    outer = sch.fuse(e, nu, koo)
    nests = sch.cache_write(gemm.name, po)
    vectorize_tile(sch, nests)
    if use_threads():
        sch.parallel(outer)


def _schedule_output(sch, out: te.Tensor, m: int) -> None:
    """The output nest (transform + epilogue) by ``m x m`` tiles, a tile's
    pixels unrolled (its selects fold), the channel block vectorized."""
    n, ko, y, x, ki = sch.get_loops(out.name)
    yo, yi = sch.split(y, [None, m])
    xo, xi = sch.split(x, [None, m])
    sch.reorder(n, ko, yo, xo, yi, xi, ki)
    sch.unroll(yi)
    sch.unroll(xi)
    sch.vectorize(ki)
    if use_threads():
        sch.parallel(sch.fuse(n, ko, yo))
