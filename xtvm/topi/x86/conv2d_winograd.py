"""Winograd convolution F(m, r) for 3x3 stride-1 float convs on blocked
``NCHW<c>c`` activations (TVM's ``conv2d_winograd``; onnxruntime's MLAS
runs these convs directly), and for 4x4 ones (``r = 4``: a 7x7 stride-2
conv after space-to-depth, ``conv2d-winograd-stride2``).

Each ``m x m`` tile of output pixels comes from an ``a x a`` tile of input
pixels (``a = m + r - 1``): with the constant matrices ``B^T`` (``a x a``),
``G`` (``a x r``) and ``A^T`` (``m x a``) of F(m, r)
(:func:`~xtvm.reference.relay.winograd.winograd_matrices`),

    Y = A^T [ sum_c (G g_kc G^T) ⊙ (B^T d_c B) ] A

The weight transform ``U = G g G^T`` is done once, at compile time
(``relay.nn.contrib_conv2d_winograd_weight_transform``, folded by
``relay-fold-constant``; :mod:`xtvm.reference.relay.winograd` holds the
matrices); at run time three stages remain:

1. input transform ``V[e, n, p, C/c, c] = (B^T d_p B)[e, n]`` (``p`` runs
   over the output tiles of every image), materialized, vectorized over the
   channel block ``c``, a tile's ``a x a`` positions one straight-line block;
2. ``a·a`` GEMMs ``M[K/b, p, e, n, b] = sum_C V[e, n, p, C] · U[e, n, K/b,
   C, b]`` (the weight transform's layout: a weight row of ``b`` output
   channels is one vector), register-tiled like the direct kernel
   (``xtvm.topi.x86.conv2d``): ``R`` tiles by two channel blocks, each
   reduction step broadcasts ``V`` against two weight rows. ``M`` holds
   a tile's ``a x a`` products of a block together (one vector each, a
   whole cache line), so the output transform reads them as one stream
   rather than ``a·a`` streams a plane apart: ResNet-50's stem in F(4,4)
   (its ``M`` 9.8 MB, past L2) 0.52 -> 0.45 ms, the 3x3 convs unchanged;
3. the output transform ``Y = A^T M A`` (not materialized: inlined into the
   kernel's output nest with the fused epilogue, the ``m x m`` pixels of a
   tile one straight-line block, vectorized over the output block ``b``).

The transforms select the constant expression of one ``(row, column)``
position on the position's loop variables. The schedule unrolls those
loops itself, folding as it copies (:func:`_unroll_folding`): each copy's
selects resolve to its own sum, and the loads and 1-D row sums the
positions share are emitted once, so a tile's transform is one
straight-line block of its nonzero terms (no multiplies by 0 or 1), with
the channel block as the vector. Left to ``tir-unroll-loop`` (a copy of
every alternative per position, folded only by LLVM), ResNet-50's F(4,3)
kernel was 18,700 lines of tir and 3 s to compile; folded, 2,000 and 1 s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm import te
from xtvm.arith import int_constant, loop_extent, make_int_constant
from xtvm.autotvm.dispatch import current_config
from xtvm.dialects.tir import ForOp, IfOp, LoadOp, StoreOp, YieldOp
from xtvm.reference.relay.winograd import KERNEL_SIZES, MATRICES, winograd_matrices
from xtvm.te.expr import PrimExpr
from xtvm.topi.x86.config import row_block, use_threads
from xtvm.topi.x86.conv2d import pad_blocked, schedule_padding
from xtvm.topi.x86.tiling import tile_candidates, vectorize_tile


def _check_tile(m: int, r: int) -> None:
    if m not in MATRICES:
        raise ValueError(f"conv2d_winograd: tile size must be one of {sorted(MATRICES)}, got {m}")
    if r not in KERNEL_SIZES:
        raise ValueError(f"conv2d_winograd: kernel size must be one of {KERNEL_SIZES}, got {r}")


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
    """``values[index]`` as selects on ``index``, which fold when its loop is
    unrolled (:func:`_unroll_folding`)."""
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
    data: te.Tensor,
    weight: te.Tensor,
    padding: Sequence[int],
    tile: int,
    flop: float | None = None,
) -> te.Tensor:
    """``r x r`` stride-1 conv by Winograd F(``tile``, r): blocked data
    ``[N, C/c, H, W, c]``, the weight transformed by the reference's
    ``transform_weight`` (``[a, a, K/b, C, b]``, ``r = a - tile + 1``) →
    ``[N, K/b, OH, OW, b]``. ``flop``: the FLOPs the kernel counts (by
    default the direct ``r x r`` conv's; a space-to-depth conv passes its
    stride-2 conv's)."""
    m, a = tile, weight.shape[0] if weight.ndim == 5 else 0
    r = a - m + 1
    _check_tile(m, r)
    n, cb, h, w, c = data.shape
    if weight.ndim != 5 or tuple(weight.shape[:2]) != (a, a) or weight.shape[3] != cb * c:
        raise ValueError(
            f"conv2d_winograd: the transformed weight {list(weight.shape)} must be "
            f"[{a}, {a}, K/b, {cb * c}, b] for blocked data {list(data.shape)} and tile {m}"
        )
    _, _, kb, _, b = weight.shape
    top, left, bottom, right = padding
    oh, ow = h + top + bottom - r + 1, w + left + right - r + 1
    if oh < 1 or ow < 1:
        raise ValueError(
            f"conv2d_winograd: data {list(data.shape)} is smaller than the {r}x{r} window"
        )
    th, tw = -(-oh // m), -(-ow // m)
    # pad so that every tile's a x a input patch is inside
    padded = pad_blocked(data, (top, left, th * m + r - 1 - h - top, tw * m + r - 1 - w - left))
    bt, _, at = winograd_matrices(m, r)
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
        (kb, tiles, a, a, b),
        lambda ko, p, e, nu, ki: te.sum(
            v[e, nu, p, rco, rci] * weight[e, nu, ko, rco * c + rci, ki], axis=[rco, rci]
        ),
        name="T_winograd_gemm",
        tag="winograd_gemm",
    )

    def output_transform(
        i: PrimExpr, ko: PrimExpr, y: PrimExpr, x: PrimExpr, ki: PrimExpr
    ) -> PrimExpr:
        p = (i * th + y // m) * tw + x // m
        product = lambda e, nu: gemm[ko, p, e, nu, ki]
        return _two_sided(at, at, product, y % m, x % m, dtype)

    return te.compute(
        (n, kb, oh, ow, b),
        output_transform,
        name="T_conv2d_winograd",
        tag="conv2d_winograd",
        attrs={
            "schedule": schedule_conv2d_winograd,
            "tile": m,
            "flop": flop or 2.0 * n * kb * b * oh * ow * cb * c * r * r,
        },
    )


def winograd_weight_transform(weight: te.Tensor, tile: int, block: int) -> te.Tensor:
    """``U = G g G^T`` of an ``OIHW`` ``r x r`` weight ``[K, C, r, r]``,
    laid out ``[a, a, K/block, C, block]`` (the reference's ``transform_weight``).
    ``relay-fold-constant`` evaluates the op on constant weights with the
    reference; this compute serves a weight that is not constant."""
    k, c, r = weight.shape[:3]
    _check_tile(tile, r)
    g, a = winograd_matrices(tile, r)[1], tile + r - 1

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
    cfg.add_flop(conv.op.attrs["flop"])
    _schedule_input(sch, v)
    _, _, oh, ow, _ = conv.shape
    if math.prod(gemm.shape) * 4 > ROWS_ABOVE_BYTES and oh % m == 0 and ow % m == 0:
        _schedule_by_rows(sch, cfg, out, gemm, m)
    else:
        _schedule_gemm(sch, cfg, gemm)
        _schedule_output(sch, out, m)
    schedule_padding(sch, v)


ROWS_ABOVE_BYTES = 4 << 20
"""GEMM products ``M`` larger than this (far past L2) are computed a row of
output tiles at a time, into a buffer of that row's size, just before the
output transform reads them (:func:`_schedule_by_rows`), when the output is
whole tiles (a partial tile's guards keep the output's indices into ``M``
from folding to affine ones, which ``compute_at`` needs); smaller ones
(ResNet-50's 3x3 convs: at most 1.8 MB) are computed whole first."""


def _schedule_by_rows(sch, cfg, out: te.Tensor, gemm: te.Tensor, m: int) -> None:
    """The output nest by rows of ``m x m`` tiles (parallel), each row's
    GEMM products computed first into a buffer of the row's size
    (``compute_at ... local``: 4 blocks x 28 tiles x 49 positions = 350
    KB for ResNet-50's stem in F(4,4), against 9.8 MB whole), so the
    output transform reads them from L2 and the GEMM's stores do not
    miss: the stem's kernel 0.45-0.5 -> 0.40-0.43 ms warm, and 0.7-0.9 ->
    0.40 in a model run (its buffers cold)."""
    n, _, yo = _tile_output(sch, out, m, rows_outer=True)
    sch.compute_at(gemm.name, yo, local=True)
    *_, kb, p, e, nu, kin = sch.get_loops(gemm.name)
    row = -(-out.shape[3] // m)
    _tile_gemm(sch, cfg, gemm, (kb, p, e, nu, kin), row)
    if use_threads():
        sch.parallel(sch.fuse(n, yo))


def _schedule_input(sch, v: te.Tensor) -> None:
    """Parallel over (tile, channel block); the channels vectorized, the
    positions inside unrolled and folded into one straight-line block."""
    e, nu, p, g, j = sch.get_loops(v.name)
    sch.reorder(p, g, j, e, nu)
    _unroll_folding(e.op)
    sch.vectorize(j)
    if use_threads():
        sch.parallel(sch.fuse(p, g))


def _schedule_gemm(sch, cfg, gemm: te.Tensor) -> None:
    """A register tile of ``tile_p`` output tiles by ``tile_k`` blocks of
    ``b`` channels under each (position, block group), as the direct kernel's."""
    ko, p, e, nu, ki = sch.get_loops(gemm.name)
    outer = _tile_gemm(sch, cfg, gemm, (ko, p, e, nu, ki), gemm.shape[1])
    if use_threads():
        sch.parallel(outer)


def _tile_gemm(sch, cfg, gemm: te.Tensor, loops, tiles: int):
    """The register tile of :func:`_schedule_gemm` on the GEMM's loops
    ``(K/b, p, e, n, b)`` over ``tiles`` output tiles; the fused outer loop."""
    ko, p, e, nu, ki = loops
    blocks = gemm.shape[0]
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
    return outer


def _schedule_output(sch, out: te.Tensor, m: int) -> None:
    """The output nest (transform + epilogue) by ``m x m`` tiles, a tile's
    pixels unrolled and folded inside the vectorized channel block."""
    n, ko, yo = _tile_output(sch, out, m, rows_outer=False)
    if use_threads():
        sch.parallel(sch.fuse(n, ko, yo))


def _tile_output(sch, out: te.Tensor, m: int, rows_outer: bool) -> tuple:
    """The output nest split into ``m x m`` tiles, a tile's pixels unrolled
    and folded inside the vectorized channel block; the tile rows outside
    the channel blocks (``rows_outer``) or inside them. Returns the loops
    (batch, channel block, tile row)."""
    n, ko, y, x, ki = sch.get_loops(out.name)
    yo, yi = sch.split(y, [None, m])
    xo, xi = sch.split(x, [None, m])
    sch.reorder(*((n, yo, ko) if rows_outer else (n, ko, yo)), xo, ki, yi, xi)
    _unroll_folding(yi.op)
    sch.vectorize(ki)
    return n, ko, yo


def _unroll_folding(outer: ForOp) -> None:
    """Unroll the constant loop nest ``outer`` (every constant loop inside it) in
    place, simplifying while it copies: each copy substitutes its loop
    indices and folds what they decide (index arithmetic in ``+ - * / %`` by
    constants, the position comparisons and the selects they drive), and an
    op equal to one already emitted (same operands: the loads and row sums
    that every position shares) is not emitted again; what no copy keeps is
    dropped. So the transform's positions become one straight-line block
    with each load and each 1-D row sum once, instead of ``a·a`` copies of
    every alternative that ``tir-unroll-loop`` would make and LLVM would
    fold (10x the IR, seconds of compile time per kernel)."""
    folder = _Folder(outer)
    folder.copy([outer], {})
    folder.finish()


Affine = tuple[tuple[tuple[int, int], ...], int]
"""An index value as ``(((id of a variable, coefficient), ...), constant)``."""


class _Folder:
    """The copying of :func:`_unroll_folding`: inserts before ``outer``."""

    def __init__(self, outer: ForOp):
        self.outer = outer
        self.point = InsertPoint.before(outer)
        self.emitted: list[Operation] = []
        self.known: dict[tuple, SSAValue] = {}  # an op's key -> its emitted result
        self.forms: dict[SSAValue, Affine] = {}
        self.by_form: dict[Affine, SSAValue] = {}
        self.nonneg: set[int] = set()  # ids of variables known >= 0
        self.truth: dict[SSAValue, bool] = {}
        self.varying: set[SSAValue] = set()  # the loop indices and what depends on them
        self.once: dict[Operation, list[SSAValue]] = {}  # a body op that depends on none
        self.outside = True  # not inside a copied guard (whose values stay inside)
        body = [op for op in outer.walk()]
        self.stored = {op.buffer for op in body if isinstance(op, StoreOp)}

    def _form(self, value: SSAValue) -> Affine | None:
        if value in self.forms:
            return self.forms[value]
        c = int_constant(value)
        if c is not None and isinstance(value.type, IndexType):
            return ((), c)
        if not isinstance(value.type, IndexType):
            return None
        owner = value.owner
        if isinstance(owner, _AFFINE_OPS):  # defined before the nest
            form = self._affine(owner, list(owner.operands))
            if form is not None:
                self.forms[value] = form
                self.by_form.setdefault(form, value)
                return form
        if isinstance(owner, Block) and isinstance(owner.parent_op(), ForOp):
            loop = owner.parent_op()
            if (lb := int_constant(loop.lb)) is not None and lb >= 0:  # type: ignore[union-attr]
                self.nonneg.add(id(value))
        elif isinstance(owner, arith.DivUIOp | arith.RemUIOp):
            self.nonneg.add(id(value))
        form: Affine = (((id(value), 1),), 0)
        self.forms[value] = form
        self.by_form.setdefault(form, value)
        return form

    def _emit_constant(self, value: int | bool, ty) -> SSAValue:
        key = ("const", value, ty)
        if key not in self.known:
            op = (
                arith.ConstantOp(IntegerAttr(int(value), ty), ty)
                if not isinstance(ty, IndexType)
                else make_int_constant(int(value), ty)
            )
            Rewriter.insert_op(op, self.point)
            self.emitted.append(op)
            self.known[key] = op.results[0]
        return self.known[key]

    def _affine(self, op: Operation, args: list[SSAValue]) -> Affine | None:
        """The affine form of an index op's result, if the op keeps it affine."""
        if not isinstance(op, _AFFINE_OPS) or not isinstance(op.results[0].type, IndexType):
            return None
        a, b = (self._form(v) for v in args)
        if a is None or b is None:
            return None
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            sign = 1 if isinstance(op, arith.AddiOp) else -1
            coefs = dict(a[0])
            for var, k in b[0]:
                coefs[var] = coefs.get(var, 0) + sign * k
            return tuple(sorted((v, k) for v, k in coefs.items() if k)), a[1] + sign * b[1]
        if isinstance(op, arith.MuliOp):
            if a[0] and b[0]:
                return None
            (terms, c), k = (a, b[1]) if not b[0] else (b, a[1])
            return (tuple((v, kk * k) for v, kk in terms if kk * k), c * k) if k else ((), 0)
        m = b[1]
        if (
            b[0]
            or m <= 0
            or a[1] < 0
            or any(k % m or k < 0 or v not in self.nonneg for v, k in a[0])
        ):
            return None  # only (m·X + c) / m and % m with X >= 0, c >= 0
        if isinstance(op, arith.DivSIOp | arith.DivUIOp | arith.FloorDivSIOp):
            return tuple((v, k // m) for v, k in a[0]), a[1] // m
        return (), a[1] % m

    def copy(self, ops: list[Operation], mapping: dict[SSAValue, SSAValue]) -> None:
        """Emit ``ops`` with ``mapping`` applied, each loop unrolled."""
        for op in ops:
            if isinstance(op, ForOp):
                lb, extent = int_constant(op.lb), loop_extent(op)
                if lb is None or extent is None:  # not a position loop: copied as it is
                    self._copy_whole(op, mapping)
                    continue
                body = [o for o in op.body.block.ops if not isinstance(o, YieldOp)]
                self.varying.add(op.induction_var)
                for k in range(lb, lb + extent):
                    self.copy(
                        body, {**mapping, op.induction_var: self._emit_constant(k, IndexType())}
                    )
                continue
            if isinstance(op, IfOp):
                self._copy_if(op, mapping)
                continue
            if op.regions:
                self._copy_whole(op, mapping)
                continue
            if any(v in self.varying for v in op.operands):
                self.varying.update(op.results)
            elif op in self.once:  # the same in every copy: emitted (or folded) once
                mapping.update(zip(op.results, self.once[op]))
                continue
            elif self.outside and self._repeatable(op):
                self._copy_op(op, mapping)
                self.once[op] = [mapping[r] for r in op.results]
                continue
            self._copy_op(op, mapping)

    def _copy_whole(self, op: Operation, mapping: dict[SSAValue, SSAValue]) -> None:
        """An op with regions other than a position loop or a guard: cloned,
        nothing inside it folded or shared."""
        new = op.clone(mapping)
        Rewriter.insert_op(new, self.point)
        self.emitted.append(new)
        self.varying.update(op.results)

    def _repeatable(self, op: Operation) -> bool:
        """Whether every copy of ``op`` (its operands the same) gives the same
        value: no store, no load of a buffer the nest writes."""
        if isinstance(op, LoadOp):
            return op.buffer not in self.stored
        return not isinstance(op, StoreOp) and not op.regions

    def _copy_op(self, op: Operation, mapping: dict[SSAValue, SSAValue]) -> None:
        """Emit (or fold, or reuse) one op of the body without regions."""
        args = [mapping.get(v, v) for v in op.operands]
        if isinstance(op, arith.XOrIOp | arith.AndIOp | arith.OrIOp):
            value = _logic(op, [self.truth.get(a) for a in args])
            if value is not None:
                result = self._emit_constant(value, op.results[0].type)
                self.truth[result] = value
                mapping[op.results[0]] = result
                return
        if isinstance(op, arith.SelectOp) and args[0] in self.truth:
            mapping[op.results[0]] = args[1] if self.truth[args[0]] else args[2]
            return
        if isinstance(op, arith.CmpiOp):
            a, b = self._form(args[0]), self._form(args[1])
            if a is not None and b is not None and not a[0] and not b[0]:
                value = _compare(op.predicate.value.data, a[1], b[1])
            else:
                value = None
            if value is not None:
                result = self._emit_constant(value, op.results[0].type)
                self.truth[result] = value
                mapping[op.results[0]] = result
                return
        form = self._affine(op, args)
        if form is not None:
            if not form[0]:
                mapping[op.results[0]] = self._emit_constant(form[1], IndexType())
                return
            if form in self.by_form:
                mapping[op.results[0]] = self.by_form[form]
                return
        key = self._key(op, args)
        if key is not None and key in self.known:
            mapping[op.results[0]] = self.known[key]
            return
        new = op.clone(mapping)
        Rewriter.insert_op(new, self.point)
        self.emitted.append(new)
        if key is not None:
            self.known[key] = new.results[0]
        if form is not None:
            self.forms[new.results[0]] = form
            self.by_form[form] = new.results[0]

    def _copy_if(self, op: IfOp, mapping: dict[SSAValue, SSAValue]) -> None:
        """A guard (a partial tile's): its taken branch inline when the copy
        decides it, else a new ``tir.if`` whose branches are copied in a
        scope of their own (what they emit is not shared outside)."""
        cond = mapping.get(op.cond, op.cond)
        branches = [
            [o for o in region.block.ops if not isinstance(o, YieldOp)] if region.blocks else None
            for region in op.regions
        ]
        if cond in self.truth:
            taken = branches[0] if self.truth[cond] else branches[1]
            self.copy(taken or [], mapping)
            return
        blocks = [Block([YieldOp()]) if b is not None else None for b in branches]
        new = IfOp(cond, blocks[0], blocks[1])  # type: ignore[arg-type]
        Rewriter.insert_op(new, self.point)
        self.emitted.append(new)
        outer_point, outer_known, outer_forms = self.point, self.known, self.by_form
        outside, self.outside = self.outside, False
        for block, ops in zip(blocks, branches):
            if block is None or ops is None:
                continue
            self.point = InsertPoint.before(block.last_op)  # type: ignore[arg-type]
            self.known, self.by_form = dict(outer_known), dict(outer_forms)
            self.copy(ops, dict(mapping))
        self.point, self.known, self.by_form = outer_point, outer_known, outer_forms
        self.outside = outside

    def _key(self, op: Operation, args: list[SSAValue]) -> tuple | None:
        """What makes two copies of a side-effect-free op equal (None: never)."""
        if op.regions or len(op.results) != 1 or isinstance(op, StoreOp):
            return None
        if isinstance(op, LoadOp):
            if args[0] in self.stored:
                return None
        elif not op.name.startswith("arith."):
            return None
        try:
            return (
                op.name,
                tuple(args),
                tuple(sorted(op.properties.items())),
                tuple(sorted(op.attributes.items())),
                op.results[0].type,
            )
        except TypeError:
            return None

    def finish(self) -> None:
        """Drop the loops and what no copy uses (the selects' other alternatives)."""
        Rewriter.erase_op(self.outer)
        for op in reversed(self.emitted):
            if (
                not op.regions
                and not isinstance(op, StoreOp)
                and all(not r.uses for r in op.results)
                and (op.name.startswith("arith.") or isinstance(op, LoadOp))
            ):
                Rewriter.erase_op(op)


_AFFINE_OPS = (
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.DivSIOp,
    arith.DivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.FloorDivSIOp,
)


def _logic(op: Operation, args: list[bool | None]) -> bool | None:
    """``xori``, ``andi``, ``ori`` of ``i1`` values when the known ones decide it."""
    a, b = args
    if isinstance(op, arith.XOrIOp):
        return None if a is None or b is None else a != b
    decisive = isinstance(op, arith.OrIOp)  # True decides an or, False an and
    if a is decisive or b is decisive:
        return decisive
    return None if a is None or b is None else (a and b if not decisive else a or b)


def _compare(predicate: int, a: int, b: int) -> bool | None:
    """``arith.cmpi``'s predicates (eq, ne, slt, sle, sgt, sge, ult, ule, ugt,
    uge) on integers; None for an unsigned one on a negative value."""
    if predicate >= 6 and min(a, b) < 0:
        return None
    return [a == b, a != b, a < b, a <= b, a > b, a >= b, a < b, a <= b, a > b, a >= b][predicate]
