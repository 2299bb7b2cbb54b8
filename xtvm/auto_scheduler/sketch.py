"""Template-free schedules (Ansor's sketches and random annotation, for CPU),
written as schedule traces of :mod:`xtvm.schedule`.

No op schedule is read: the sketch comes from the kernel's default loop
nests (``te.create_prim_func``: one serial nest per materialized stage, a
reduction attached inside its output's nest as a one-element accumulator).
For the output's spatial loops ``S`` the sketch is Ansor's multi-level
tiling with ``cache_write`` (the CPU rule, in two spatial levels)::

    parallel for (outer loops of S, a fused prefix):     # the outer tile level
      for (the remaining outer loops):
        acc[inner tile] = 0                              # cache_write: registers
        for (reduction loops):                           # the innermost may be unrolled
          for (inner loops, unrolled; the last vectorized): acc += ...
        for (inner loops): out = epilogue(acc)           # the fused epilogue, inlined

A kernel without a reduction gets the same tiling without the
accumulator. When the reduction reads a materialized stage (the zero
padding) at a column stride ``s > 1`` (a strided convolution), the
annotation may pack that stage by column parity (``transform_layout``
``x -> (x % s, x // s)``): the inputs of ``s``-strided neighbouring
outputs are then contiguous, so the vectors can run along the output
row (the weights broadcast) instead of across channels, and no
transposition is needed at the write-back (ResNet-50's first conv: 1.9×
its hand-written schedule, measured 2026-12-01). Every other materialized stage (the zero padding) runs its
loops above the row in parallel. The random annotation is the
:class:`SketchParams`: each spatial loop's inner factor (a divisor of its
extent), which inner loop is vectorized, how many outer loops are fused
into the parallel loop, whether the innermost reduction loop is unrolled
and the stage packing.

:func:`make_trace` applies a sketch to a fresh kernel with the
``Schedule`` API and returns the trace it recorded (what records store and
:func:`xtvm.lowering.relay_to_tir.schedule.apply_schedules` replays).
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from typing import Any

from xtvm.schedule import Schedule

MAX_TILE = 512
"""Elements of the register tile at most (32 512-bit registers of float32)."""

MAX_REGISTERS = 24
"""Vector registers an accumulator's register tile uses at most (of
AVX-512's 32: the rest hold the broadcast operand and the loaded
vectors; on ResNet-50's 3x3 convolutions 28- and 32-register tiles
measured 2-4x slower than 14-16-register ones, spilling)."""

GOOD_TILE = 64
"""Register tiles below this many elements are sampled less (:func:`sample`)."""

MAX_UNROLL = 16
"""The longest reduction loop the sketch unrolls (a kernel's columns, not
a dense layer's 2048 inputs)."""


@dataclass(frozen=True)
class KernelShape:
    """What the sketch reads off a kernel's default nests: the output
    buffer, its spatial loops' extents, whether a reduction is attached,
    the other materialized stages, and the vector lanes of the target."""

    output: str
    extents: tuple[int, ...]
    reduction: str | None
    stages: tuple[str, ...]
    lanes: int
    unrollable: bool = False
    """Whether the window's column loop is short enough (at most
    :data:`MAX_UNROLL`) to unroll."""
    packable: tuple[str, int] | None = None
    """The stage the reduction reads at a column stride > 1 and that
    stride, when its width is a multiple of it (see the module)."""
    reduce_extents: tuple[int, ...] = ()
    """The reduction's loops' extents (channels, window rows, window
    columns of a convolution): features of the kernel for a cost model
    shared by several tasks."""
    window_loop: int = 1
    """The reduction loop the annotation may unroll, counted from the
    innermost (1): the window's columns — innermost, or above the input
    channel block when the activations are blocked (4 reduction loops:
    channel blocks, rows, columns, the block)."""


@dataclass(frozen=True)
class SketchParams:
    """One random annotation of the sketch (see the module)."""

    tiles: tuple[int, ...]
    vector_axis: int
    parallel: int
    unroll_reduction: bool
    pack: int = 1
    """The column stride the strided stage is packed by (1: not packed)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tiles": list(self.tiles),
            "vector_axis": self.vector_axis,
            "parallel": self.parallel,
            "unroll_reduction": self.unroll_reduction,
            "pack": self.pack,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> SketchParams:
        return SketchParams(
            tuple(data["tiles"]),
            int(data["vector_axis"]),
            int(data["parallel"]),
            bool(data["unroll_reduction"]),
            int(data.get("pack", 1)),  # records from before packing
        )


def kernel_shape(func) -> KernelShape:
    """The :class:`KernelShape` of a kernel's default nests (one output)."""
    from xtvm.dialects.tir import AllocateOp
    from xtvm.target import Target

    sch = Schedule(func)
    output = func.arg_names[-1]
    loops = sch.get_loops(output)
    extents = tuple(_extent(rv.op) for rv in loops)
    allocs = [op for op in func.walk() if isinstance(op, AllocateOp) and op.res.name_hint]
    reduction = next((op.res.name_hint for op in allocs if op.res.name_hint.endswith("_acc")), None)
    stages = tuple(op.res.name_hint for op in allocs if op.scope.data == "global")
    lanes = max(Target.current().vector_width // 32, 1)
    reduce_extents = (
        tuple(_extent(rv.op) for rv in sch.get_loops(reduction)[len(extents) :])
        if reduction is not None
        else ()
    )
    window_loop = 2 if len(reduce_extents) == 4 else 1
    unrollable = reduction is not None and reduce_extents[-window_loop] <= MAX_UNROLL
    packable = None
    if reduction is not None and extents:
        window = reduce_extents[-window_loop]
        row = extents[3] if len(extents) == 5 else extents[-1]  # NCHW<c>c: [N, C/c, H, W, c]
        for op in allocs:
            if op.res.name_hint in stages and len(op.res.type.get_shape()) == 4:  # NCHW stage
                width = op.res.type.get_shape()[-1]
                stride = column_stride(width, window, row)
                if stride > 1 and width % stride == 0:
                    packable = (op.res.name_hint, stride)
    return KernelShape(
        output, extents, reduction, stages, lanes, unrollable, packable, reduce_extents, window_loop
    )


def column_stride(width: int, window: int, out_width: int) -> int:
    """The stride at which a window of ``window`` columns slides over
    ``width`` columns to give ``out_width`` outputs (1 when none of 2..4
    fits: the stage is not read as a strided window)."""
    for stride in (2, 3, 4):
        if width >= window and (width - window) // stride + 1 == out_width:
            return stride
    return 1


def _extent(loop) -> int:
    from xdsl.dialects import arith

    lb, ub = loop.lb.owner, loop.ub.owner
    if not (isinstance(lb, arith.ConstantOp) and isinstance(ub, arith.ConstantOp)):
        raise ValueError("the sketch needs loops of constant extent")
    return ub.value.value.data - lb.value.value.data


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def registers(shape: KernelShape, p: SketchParams) -> int:
    """The vector registers of the register tile (a partial vector takes a
    whole register)."""
    width = p.tiles[p.vector_axis] if p.vector_axis >= 0 else 1
    return math.prod(p.tiles) // width * -(-width // shape.lanes)


def valid(shape: KernelShape, p: SketchParams) -> bool:
    """Whether params fit the kernel: a tile per loop dividing it, at least
    one outer loop, a register tile of at most :data:`MAX_TILE` elements
    (an accumulator: :data:`MAX_REGISTERS` vector registers), a
    vectorized loop that is tiled."""
    if len(p.tiles) != len(shape.extents) or any(e % t for t, e in zip(p.tiles, shape.extents)):
        return False
    outers = sum(1 for t, e in zip(p.tiles, shape.extents) if t < e)
    inners = [k for k, t in enumerate(p.tiles) if t > 1]
    if outers == 0 or math.prod(p.tiles) > MAX_TILE or not 1 <= p.parallel <= outers:
        return False
    if shape.reduction is not None and registers(shape, p) > MAX_REGISTERS:
        return False
    if p.unroll_reduction and not (shape.unrollable and any(t > 1 for t in p.tiles)):
        return False
    if p.pack != 1 and (shape.packable is None or p.pack != shape.packable[1]):
        return False
    return (not inners and p.vector_axis == -1) or p.vector_axis in inners


def sample(shape: KernelShape, rng: random.Random) -> SketchParams:
    """A random valid annotation. Tiles are drawn log-uniformly; the
    vectors run mostly along a contiguous axis (:func:`vector_axes`);
    programs whose register tile is small (under :data:`GOOD_TILE`
    elements) or whose vectors are short (under half the lanes) are kept
    only one time in five: the prior that register tiling and full vectors
    pay, which spares the first batches the hopeless corners of the space."""
    while True:
        tiles = []
        for e in shape.extents:
            options = divisors(e)
            weights = [1.0 / (1 + math.log2(d)) for d in options]
            tiles.append(rng.choices(options, weights)[0])
        tiles = tuple(tiles)
        inners = [k for k, t in enumerate(tiles) if t > 1]
        outers = sum(1 for t, e in zip(tiles, shape.extents) if t < e)
        if outers == 0 or math.prod(tiles) > MAX_TILE:
            continue
        preferred = [k for k in inners if k in vector_axes(shape)]
        vector = rng.choice(preferred if preferred and rng.random() < 0.9 else inners or [-1])
        unroll = rng.random() < 0.3 and shape.unrollable and bool(inners)
        pack = shape.packable[1] if shape.packable and rng.random() < 0.5 else 1
        p = SketchParams(tiles, vector, rng.randint(1, outers), unroll, pack)
        if not plausible(shape, p) and rng.random() > 0.2:
            continue
        if valid(shape, p):
            return p


def plausible(shape: KernelShape, p: SketchParams) -> bool:
    """Whether a program has the register tiling and full vectors that pay:
    a register tile of :data:`GOOD_TILE` elements or more, vectors of half
    the lanes or more (a prior: the others are sampled rarely and the
    evolution's model picks skip them)."""
    vector = p.tiles[p.vector_axis] if p.vector_axis >= 0 else 0
    return vector >= shape.lanes // 2 and math.prod(p.tiles) >= GOOD_TILE


SEED_REGISTERS = 16
"""The register tile the seeds try first, in vector registers: half the
register file, the other half left for the loaded operands (the tiles that
measured best on ResNet-50's convolutions: 2 channel blocks × 7–8 pixels,
one block × 14 pixels, 4 rows × 4 pixels × one block)."""


def vector_axes(shape: KernelShape) -> list[int]:
    """The output axes whose elements are contiguous, which the vectors run
    along: the innermost axis (the row of an NCHW output, the channel
    block of a blocked ``NCHW<c>c`` one), and of a 4-d (NCHW) output also
    the channel axis, innermost in the packed ``OIHW<b>o`` weight."""
    last = len(shape.extents) - 1
    return [last, 1] if len(shape.extents) == 4 else [last]


def channel_axes(shape: KernelShape) -> set[int]:
    """The output-channel axes (what the weight is indexed by and the
    activations are not): axis 1, and the channel block of a blocked
    ``[N, C/c, H, W, c]`` output; the other non-batch axes are pixels."""
    return {1, 4} if len(shape.extents) == 5 else {1}


def seeds(shape: KernelShape) -> list[SketchParams]:
    """Rule-based first programs (Ansor's initial population, from the
    CPU multi-level tiling rule), the SSR register tiling of x86
    convolutions: a tile of a vectorized axis (:func:`vector_axes`) and
    its kind (channels or pixels, :func:`channel_axes`) of at most two
    vector registers — the operand loaded as vectors, the weights across
    channels or the activations along a row — times a tile of one or two
    axes of the other kind, along which that operand is reused (each
    broadcast of the other operand feeds every vector). Whole registers,
    or at least 3/4 of the lanes when the axis is short; between 8 and
    :data:`MAX_REGISTERS` registers; the strided stage packed first when
    it can be; the window's columns unrolled. One program of each
    (packing, vector axis, tiled axes) group in turn, each group's
    programs nearest :data:`SEED_REGISTERS` registers first: the first
    batch covers the orientations, the search then refines the best."""
    lanes, extents = shape.lanes, shape.extents
    if shape.reduction is None or len(extents) < 3:
        return []
    channels = channel_axes(shape)
    shapes = []
    for size in (1, 2):
        for axis in vector_axes(shape):
            rest = [k for k in range(len(extents) - 1, 0, -1) if k != axis]
            for others in itertools.combinations(rest, size):
                kind = [(k in channels) == (axis in channels) for k in others]
                if all(kind):
                    continue  # nothing reuses the vector operand
                shapes.append((axis, others, [k for k, same in zip(others, kind) if same]))
    groups: list[list[SketchParams]] = []
    for pack in [shape.packable[1], 1] if shape.packable else [1]:
        for axis, others, same in shapes:
            e = extents[axis]
            widths = [d for d in divisors(e) if d % lanes == 0 and d <= 2 * lanes]
            widths += [d for d in divisors(e) if lanes * 3 // 4 <= d < lanes]
            found: list[tuple[float, SketchParams]] = []
            for width in widths:
                registers = -(-width // lanes)
                for combo in _tile_combos([extents[k] for k in others]):
                    volume = registers * math.prod(combo)
                    vectors = registers * math.prod(t for k, t in zip(others, combo) if k in same)
                    if not 8 <= volume <= MAX_REGISTERS or 1 in combo or vectors > 2:
                        continue
                    tiles = [1] * len(extents)
                    tiles[axis] = width
                    for k, t in zip(others, combo):
                        tiles[k] = t
                    outers = sum(1 for x, y in zip(tiles, extents) if x < y)
                    p = SketchParams(tuple(tiles), axis, max(outers, 1), shape.unrollable, pack)
                    if valid(shape, p):
                        near = abs(math.log2(volume / SEED_REGISTERS))
                        found.append(((near, -volume, *(-t for t in combo)), p))
            if found:
                groups.append([p for _, p in sorted(found, key=lambda m: m[0])])
    out: list[SketchParams] = []
    for k in range(max((len(g) for g in groups), default=0)):  # one of each group in turn
        out.extend(g[k] for g in groups if k < len(g))
    return list(dict.fromkeys(out))


def _tile_combos(extents: list[int]) -> list[tuple[int, ...]]:
    """Every tuple of divisors, one of each extent."""
    combos: list[tuple[int, ...]] = [()]
    for e in extents:
        combos = [(*c, d) for c in combos for d in divisors(e)]
    return combos


def mutate(shape: KernelShape, p: SketchParams, rng: random.Random) -> SketchParams:
    """A valid neighbour of ``p``: the register tile reshaped at the same
    size (:func:`reshape`), one tile (mostly to the next smaller or larger
    divisor), the vector loop, the parallel depth, the unrolling or the
    packing changed."""
    for _ in range(100):
        tiles, vector, parallel, unroll, pack = (
            list(p.tiles),
            p.vector_axis,
            p.parallel,
            p.unroll_reduction,
            p.pack,
        )
        what = rng.random()
        if what < 0.2:  # the register tile reshaped: a factor moved between two loops
            tiles = reshape(shape, tiles, rng)
        elif what < 0.6:  # mostly a neighbouring divisor: a local step
            k = rng.randrange(len(tiles))
            options = divisors(shape.extents[k])
            at = options.index(tiles[k])
            near = options[max(at - 1, 0) : at + 2]
            tiles[k] = rng.choice(near if rng.random() < 0.7 else options)
        elif what < 0.8:
            inners = [k for k, t in enumerate(tiles) if t > 1]
            vector = rng.choice(inners) if inners else -1
        elif what < 0.9:
            parallel = rng.randint(1, max(sum(1 for t, e in zip(tiles, shape.extents) if t < e), 1))
        elif what < 0.95 or shape.packable is None:
            unroll = not unroll and shape.unrollable
        else:
            pack = shape.packable[1] if pack == 1 else 1
        if vector not in [k for k, t in enumerate(tiles) if t > 1]:
            inners = [k for k, t in enumerate(tiles) if t > 1]
            vector = inners[-1] if inners else -1
        outers = sum(1 for t, e in zip(tiles, shape.extents) if t < e)
        q = SketchParams(
            tuple(tiles), vector, min(parallel, max(outers, 1)), unroll and vector >= 0, pack
        )
        if valid(shape, q) and q != p:
            return q
    return p


def reshape(shape: KernelShape, tiles: list[int], rng: random.Random) -> list[int]:
    """``tiles`` with a prime factor of one tiled loop moved to another
    loop whose extent it still divides (the register tile keeps its size
    and changes its shape: 2 channel blocks × 7 pixels ↔ 1 block × 14
    pixels); unchanged when no such move exists."""
    moves = []
    for a, ta in enumerate(tiles):
        for f in {d for d in range(2, ta + 1) if ta % d == 0 and all(d % q for q in range(2, d))}:
            for b, tb in enumerate(tiles):
                if b != a and shape.extents[b] % (tb * f) == 0:
                    moves.append((a, b, f))
    if not moves:
        return tiles
    a, b, f = rng.choice(moves)
    out = list(tiles)
    out[a] //= f
    out[b] *= f
    return out


def crossover(
    shape: KernelShape, a: SketchParams, b: SketchParams, rng: random.Random
) -> SketchParams:
    """Each loop's tile from either parent (the rest from ``a``), when valid."""
    tiles = tuple(x if rng.random() < 0.5 else y for x, y in zip(a.tiles, b.tiles))
    inners = [k for k, t in enumerate(tiles) if t > 1]
    vector = a.vector_axis if a.vector_axis in inners else (inners[-1] if inners else -1)
    outers = sum(1 for t, e in zip(tiles, shape.extents) if t < e)
    child = SketchParams(
        tiles,
        vector,
        min(a.parallel, max(outers, 1)),
        a.unroll_reduction and vector >= 0,
        a.pack if rng.random() < 0.5 else b.pack,
    )
    return child if valid(shape, child) else a


def apply_sketch(sch: Schedule, shape: KernelShape, p: SketchParams, threads: bool = True) -> None:
    """Schedule a kernel's default nests as the sketch with params ``p``."""
    if p.pack > 1 and shape.packable is not None:
        stage = shape.packable[0]
        sch.transform_layout(stage, parity_map(len(sch.get_loops(stage)), p.pack))
    loops = sch.get_loops(shape.output)
    outers, inners, lanes = [], [], shape.lanes
    for k, (loop, tile, extent) in enumerate(zip(loops, p.tiles, shape.extents)):
        registers = tile // lanes if k == p.vector_axis and tile % lanes == 0 else 1
        if tile == 1:
            outers.append(loop)
            continue
        factors = [None, tile] if registers == 1 else [None, registers, lanes]
        if tile == extent:
            factors = factors[1:] if registers > 1 else []
        parts = sch.split(loop, factors) if factors else [loop]
        if tile < extent:
            outers.append(parts.pop(0))
        inners.extend((part, k) for part in parts)
    # the vector loop innermost, one register long: the loop over its
    # registers just above it, unrolled with the other tile loops
    vector = [l for l, k in inners if k == p.vector_axis]
    inner_loops = [l for l, k in inners if k != p.vector_axis] + vector
    inner_axes = [k for _, k in inners if k != p.vector_axis] + [p.vector_axis] * len(vector)
    sch.reorder(*outers, *inner_loops)
    fused = sch.fuse(*outers[: p.parallel]) if p.parallel > 1 else outers[0]
    outers = [fused, *outers[p.parallel :]]
    if inner_loops and shape.reduction is not None:
        nests = sch.cache_write(shape.output, outers[-1])
        row = len(shape.extents) - 1
        writeback = list(nests.writeback)
        if p.vector_axis != row and row in inner_axes:
            # vectors across channels: write the tile back along the rows
            # (whole-vector stores into the output, not one lane a row)
            tail = len(writeback) - len(inner_axes)
            at = tail + inner_axes.index(row)
            writeback = [*writeback[:at], *writeback[at + 1 :], writeback[at]]
            sch.reorder(*writeback[tail:])
        for nest in (nests.init, nests.update, writeback):
            *rest, last = nest
            sch.vectorize(last)
            for loop in rest:
                sch.unroll(loop)
        if p.unroll_reduction:
            update = sch.get_loops(nests.update[0].block)
            sch.unroll(update[len(update) - len(nests.update) - shape.window_loop])
    elif inner_loops:
        *rest, last = inner_loops
        sch.vectorize(last)
        for loop in rest:
            sch.unroll(loop)
    if threads:
        sch.parallel(fused)
        for stage in shape.stages:
            stage_loops = sch.get_loops(stage)
            if len(stage_loops) > 1:
                sch.parallel(
                    sch.fuse(*stage_loops[:-1]) if len(stage_loops) > 2 else stage_loops[0]
                )


def parity_map(rank: int, stride: int):
    """``(..., x) -> (..., x % stride, x // stride)`` on ``rank`` indices."""
    from xdsl.ir.affine import AffineExpr, AffineMap

    dims = [AffineExpr.dimension(k) for k in range(rank)]
    last = dims[-1]
    return AffineMap(rank, 0, (*dims[:-1], last % stride, last // stride))


def features(shape: KernelShape, p: SketchParams) -> list[float]:
    """The cost model's features of a program: per spatial loop, the log2
    of its inner tile and outer extent and whether it is the vectorized
    one; the register tile's log2 size and vector registers, the
    vectorized extent relative to the lanes, the parallel loop's log2
    extent, the unrolling and the packing; and the kernel's reduction (log2
    of its size and of its innermost loop), so that one model can rank the
    programs of several tasks."""
    out: list[float] = []
    for k, (t, e) in enumerate(zip(p.tiles, shape.extents)):
        out += [math.log2(t), math.log2(e // t), float(k == p.vector_axis)]
    vec = p.tiles[p.vector_axis] if p.vector_axis >= 0 else 1
    outer = [e // t for t, e in zip(p.tiles, shape.extents) if t < e]
    out += [
        math.log2(math.prod(p.tiles)),
        vec / shape.lanes,
        float(vec % shape.lanes == 0),
        math.log2(math.prod(outer[: p.parallel]) or 1),
        float(p.unroll_reduction),
        float(p.pack > 1),
        math.log2(math.prod(p.tiles) / min(vec, shape.lanes)),
        math.log2(math.prod(shape.reduce_extents) or 1),
        math.log2(shape.reduce_extents[-1] if shape.reduce_extents else 1),
    ]
    return out
