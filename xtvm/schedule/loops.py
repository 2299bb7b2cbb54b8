"""Loop primitives: split, fuse, reorder, tile, and the loop kinds
(vectorize, parallel, unroll). Each rewrites a band of `tir.for` loops in
place (see `xtvm.schedule.nest`) and returns the new loops.

    tir.for %i = %c0 to %c10 kind "serial" { ...%i... }
  split [None, 4] →
    tir.for %i.0 = %c0 to %c3 kind "serial" {
      tir.for %i.1 = %c0 to %c4 kind "serial" {
        %0 = arith.muli %i.0, %c4 : index
        %i = arith.addi %0, %i.1 : index
        %1 = arith.cmpi slt, %i, %c10 : index
        tir.if %1 { ...%i... }
      }
    }
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from xdsl.dialects import arith
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from xtvm.arith import int_constant
from xtvm.dialects.tir import ForOp, IfOp
from xtvm.schedule.error import ScheduleError
from xtvm.schedule.nest import (
    Band,
    Constants,
    band_between,
    body_ops,
    check_bounds_outside,
    constant_bounds,
    describe,
    detach,
    fresh_name,
    loop_name,
    nest_names,
    new_loop,
    place,
)


def _require_serial(loop: ForOp, what: str) -> None:
    if loop.kind.data != "serial":
        raise ScheduleError(
            f"{what} needs serial loops, {describe(loop)} is {loop.kind.data}; "
            "set vectorize/parallel/unroll after restructuring"
        )


def _rebuild(band: Band, loops: Sequence[ForOp], floating: Sequence[Operation]) -> None:
    """Replace `band` by the nest of `loops` in the same place."""
    anchor = band.loops[0].next_op
    block = band.loops[0].parent_block()
    assert block is not None
    detach(band)
    place(loops, floating, band.guards, band.body, block, anchor)


def split(consts: Constants, loop: ForOp, factors: Sequence[int | None]) -> list[ForOp]:
    """Split `loop` into `len(factors)` nested loops of the given extents
    (outermost first). At most one factor is None: it is inferred as the
    ceiling of the extent over the others. When the factors' product exceeds
    the extent, the body is guarded by `i < ub`. A loop of extent 0 (a
    zero-size tensor) may also be split by 0, as a schedule computing its
    factors from the extent (`min(16, n)`) does: the nest runs nothing."""
    lb, extent = constant_bounds(loop, "split")
    _require_serial(loop, "split")
    if not factors:
        raise ScheduleError("split needs at least one factor")
    if sum(f is None for f in factors) > 1:
        raise ScheduleError(f"split: at most one factor may be None, got {list(factors)}")
    if extent == 0:
        factors = [1 if f == 0 else f for f in factors]
    for f in factors:
        if f is not None and (not isinstance(f, int) or isinstance(f, bool) or f < 1):
            raise ScheduleError(
                f"split: factors must be positive integers or None, got {list(factors)}"
            )
    known = math.prod(f for f in factors if f is not None)
    sizes = [f if f is not None else -(-extent // known) for f in factors]
    total = math.prod(sizes)
    if total < extent:
        raise ScheduleError(
            f"split: factors {list(factors)} cover {total} of the {extent} iterations "
            f"of {describe(loop)}"
        )
    taken = nest_names(loop)
    base = loop_name(loop)
    loops = [
        new_loop(consts(0), consts(size), fresh_name(f"{base}.{k}", taken))
        for k, size in enumerate(sizes)
    ]
    loops[0].annotations = loop.annotations

    index_ops: list[Operation] = []
    index: SSAValue | None = None
    for k, inner in enumerate(loops):
        term: SSAValue = inner.induction_var
        stride = math.prod(sizes[k + 1 :])
        if stride != 1:
            mul = arith.MuliOp(term, consts(stride))
            index_ops.append(mul)
            term = mul.result
        if index is not None:
            add = arith.AddiOp(index, term)
            index_ops.append(add)
            term = add.result
        index = term
    assert index is not None
    if lb != 0:
        add = arith.AddiOp(index, consts(lb))
        index_ops.append(add)
        index = add.result
    if index_ops:
        index.name_hint = base
    guards = []
    if total > extent:
        cond = arith.CmpiOp(index, loop.ub, "slt")
        index_ops.append(cond)
        guards.append(IfOp(cond, []))

    loop.induction_var.replace_all_uses_with(index)
    band = Band([loop], body=body_ops(loop.body.block))
    anchor, block = loop.next_op, loop.parent_block()
    assert block is not None
    detach(band)
    place(loops, index_ops, guards, band.body, block, anchor)
    loop.erase()
    return loops


def split_tail(consts: Constants, loop: ForOp, factor: int) -> tuple[ForOp, ForOp, ForOp]:
    """Split a loop whose extent is known only at run time (a shape
    variable's) into a main nest over whole chunks of `factor` and a tail
    loop over the rest, each running the body (the tail on a copy); returns
    `(outer, inner, tail)`. The inner loop has the constant extent `factor`,
    so it may be vectorized; the tail is scalar. Loops inside the tail's copy
    of the body are renamed `VAR_t`, so that every loop keeps a unique name.

        tir.for %i = %lb to %n { B(%i) }
      becomes
        %e = arith.subi %n, %lb           (when %lb is not 0)
        %q = arith.divui %e, %cF
        %m = arith.muli %q, %cF
        %end = arith.addi %m, %lb         (when %lb is not 0)
        tir.for %i.0 = %c0 to %q {
          tir.for %i.1 = %c0 to %cF { %i = %i.0 * F + %i.1 + %lb; B(%i) }
        }
        tir.for %i.t = %end to %n { B(%i.t) }
    """
    _require_serial(loop, "split_tail")
    lb = int_constant(loop.lb)
    if not isinstance(factor, int) or isinstance(factor, bool) or factor < 1:
        raise ScheduleError(f"split_tail: the factor must be a positive integer, got {factor}")
    block = loop.parent_block()
    assert block is not None
    bounds: list[Operation] = []

    def emit(op: Operation) -> SSAValue:
        bounds.append(op)
        return op.results[0]

    extent = loop.ub if lb == 0 else emit(arith.SubiOp(loop.ub, loop.lb))
    chunks = emit(arith.DivUIOp(extent, consts(factor)))
    end = emit(arith.MuliOp(chunks, consts(factor)))
    if lb != 0:
        end = emit(arith.AddiOp(end, loop.lb))
    block.insert_ops_before(bounds, loop)

    taken = nest_names(loop)
    base = loop_name(loop)
    outer = new_loop(consts(0), chunks, fresh_name(f"{base}.0", taken))
    inner = new_loop(consts(0), consts(factor), fresh_name(f"{base}.1", taken))
    tail = new_loop(end, loop.ub, fresh_name(f"{base}.t", taken))
    outer.annotations = loop.annotations

    body = body_ops(loop.body.block)
    mapping = {loop.induction_var: tail.induction_var}
    tail_body = [op.clone(value_mapper=mapping) for op in body]
    for op in tail_body:  # the tail's own loops get names of their own (`j_t`)
        for inner_loop in op.walk():
            if isinstance(inner_loop, ForOp):
                inner_loop.induction_var.name_hint = fresh_name(f"{loop_name(inner_loop)}_t", taken)

    index_ops: list[Operation] = [arith.MuliOp(outer.induction_var, consts(factor))]
    index_ops.append(arith.AddiOp(index_ops[-1].results[0], inner.induction_var))
    if lb != 0:
        index_ops.append(arith.AddiOp(index_ops[-1].results[0], loop.lb))
    index = index_ops[-1].results[0]
    index.name_hint = base
    loop.induction_var.replace_all_uses_with(index)
    band = Band([loop], body=body)
    anchor = loop.next_op
    detach(band)
    place([outer, inner], index_ops, [], band.body, block, anchor)
    place([tail], [], [], tail_body, block, outer.next_op)
    loop.erase()
    return outer, inner, tail


def fuse(consts: Constants, loops: Sequence[ForOp]) -> ForOp:
    """Fuse adjacent, perfectly nested loops (outermost first) into one loop
    over the product of their extents; each old variable becomes `(f / stride) % extent`.
    The outermost loop may run from 0 to a run-time extent (a dynamic batch):
    the fused extent is then computed before the nest (`%n * inner`), as the
    strides involve the inner, constant extents only."""
    if len(loops) < 2:
        raise ScheduleError(f"fuse needs at least two loops, got {len(loops)}")
    band = band_between(loops[0], loops[-1], "fuse")
    if band.loops != list(loops):
        names = ", ".join(loop_name(loop) for loop in band.loops)
        raise ScheduleError(
            f"fuse: the loops must be adjacent in one nest, outermost first; the nest "
            f"from {describe(loops[0])} to {describe(loops[-1])} is ({names})"
        )
    bounds = []
    dynamic = int_constant(loops[0].ub) is None and int_constant(loops[0].lb) == 0
    for k, loop in enumerate(loops):
        _require_serial(loop, "fuse")
        bounds.append((0, 1) if k == 0 and dynamic else constant_bounds(loop, "fuse"))
    check_bounds_outside(band, loops[1:], "fuse")
    extents = [e for _, e in bounds]
    name = fresh_name("_".join(loop_name(loop) for loop in loops) + "_fused", nest_names(loops[0]))
    total = consts(math.prod(extents))
    if dynamic:  # the run-time extent times the constant inner ones
        count = arith.MuliOp(loops[0].ub, total)
        block = loops[0].parent_block()
        assert block is not None
        block.insert_op_before(count, loops[0])
        total = count.result
    fused = new_loop(consts(0), total, name, annotations=loops[0].annotations)
    index_ops: list[Operation] = []
    for m, (loop, (lb, extent)) in enumerate(zip(loops, bounds)):
        value: SSAValue = fused.induction_var
        stride = math.prod(extents[m + 1 :])
        if stride != 1:
            div = arith.DivUIOp(value, consts(stride))
            index_ops.append(div)
            value = div.result
        if m != 0:
            rem = arith.RemUIOp(value, consts(extent))
            index_ops.append(rem)
            value = rem.result
        if lb != 0:
            add = arith.AddiOp(value, consts(lb))
            index_ops.append(add)
            value = add.result
        if value is not fused.induction_var:
            value.name_hint = loop_name(loop)
        loop.induction_var.replace_all_uses_with(value)
    _rebuild(band, [fused], [*index_ops, *band.floating])
    for loop in loops:
        loop.erase()
    return fused


def reorder(loops: Sequence[ForOp]) -> None:
    """Permute loops of one perfect nest: the positions the given loops hold
    in the nest receive them in the given order; other loops stay."""
    if len({id(loop) for loop in loops}) != len(loops):
        raise ScheduleError("reorder: a loop is given twice")
    if len(loops) < 2:
        return
    nested = sorted(loops, key=lambda loop: _depth(loop))
    for outer, inner in pairwise(nested):
        if not outer.is_ancestor(inner):
            raise ScheduleError(
                f"reorder: {describe(outer)} and {describe(inner)} are not in one loop nest"
            )
    band = band_between(nested[0], nested[-1], "reorder")
    check_bounds_outside(band, band.loops, "reorder")
    order = list(band.loops)
    positions = sorted(order.index(loop) for loop in loops)
    for pos, loop in zip(positions, loops):
        order[pos] = loop
    _rebuild(band, order, band.floating)


def _depth(op: Operation) -> int:
    depth = 0
    while (op := op.parent_op()) is not None:  # type: ignore[assignment]
        depth += 1
    return depth


def tile(consts: Constants, loops: Sequence[ForOp], factors: Sequence[int]) -> list[ForOp]:
    """Split each loop by its factor and reorder to (outer loops..., inner
    loops...); returns them in that order (`tile(i, j, 8, 16)` gives
    `i.0, j.0, i.1, j.1`)."""
    if len(loops) != len(factors) or not loops:
        raise ScheduleError(
            f"tile needs as many factors as loops, got {len(loops)} loops "
            f"and {len(factors)} factors"
        )
    nested = sorted(loops, key=_depth)
    band_between(nested[0], nested[-1], "tile")  # checked before anything changes
    for loop, factor in zip(loops, factors):
        _, extent = constant_bounds(loop, "tile")
        _require_serial(loop, "tile")
        if factor == 0 and extent == 0:
            continue  # split accepts it: a zero-extent loop runs nothing
        if not isinstance(factor, int) or isinstance(factor, bool) or factor < 1:
            raise ScheduleError(f"tile: factors must be positive integers, got {list(factors)}")
    outers, inners = [], []
    for loop, factor in zip(loops, factors):
        outer, inner = split(consts, loop, [None, factor])
        outers.append(outer)
        inners.append(inner)
    reorder([*outers, *inners])
    return [*outers, *inners]


def _set_kind(loop: ForOp, kind: str) -> None:
    loop.kind = StringAttr(kind)


def vectorize(loop: ForOp) -> None:
    """Mark an innermost loop of constant extent `vectorized`."""
    constant_bounds(loop, "vectorize")
    if any(isinstance(op, ForOp) for op in loop.body.walk()):
        raise ScheduleError(
            f"vectorize: {describe(loop)} contains another loop; vectorize an innermost loop"
        )
    _set_kind(loop, "vectorized")


def parallel(loop: ForOp) -> None:
    """Mark a loop `parallel` (code generation runs the outermost parallel loop on threads)."""
    for outer in _ancestors(loop):
        if outer.kind.data == "vectorized":
            raise ScheduleError(
                f"parallel: {describe(loop)} is inside vectorized {describe(outer)}"
            )
    _set_kind(loop, "parallel")


def unroll(loop: ForOp) -> None:
    """Mark a loop of constant extent `unrolled` (`tir-unroll-loop` replicates its body)."""
    if int_constant(loop.lb) is None or int_constant(loop.ub) is None:
        raise ScheduleError(f"unroll needs constant loop bounds, {describe(loop)} has none")
    _set_kind(loop, "unrolled")


def _ancestors(op: Operation) -> list[ForOp]:
    result = []
    while (op := op.parent_op()) is not None:  # type: ignore[assignment]
        if isinstance(op, ForOp):
            result.append(op)
    return result
