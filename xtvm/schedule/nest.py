"""Loop nests of a `tir.prim_func` as the schedule primitives see them.

A *band* is a chain of loops `L1 ⊃ L2 ⊃ ... ⊃ Ln` where every block between
two consecutive loops holds only

* floating ops: `arith` ops without regions (index arithmetic such as the
  `i = i.0 * 16 + i.1` a split leaves behind; they are pure and cheap, so
  they may be recomputed at any depth where their operands exist), and
* at most one guard: a `tir.if` without `else` whose then-block holds the
  rest of the nest (the predicate of a split whose factors do not divide the
  extent),

and the innermost loop's block is the *body* (kept as a unit). `extract`
takes a band out of the function; `place` puts loops, floating ops, guards
and a body back as a nest in any loop order, each floating op and guard at
the shallowest depth where its operands are defined. Every loop primitive is
a band rewrite: split, fuse and reorder build the new loop list and the
index maps, `place` does the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from xtvm.arith import int_constant, make_int_constant
from xtvm.dialects.tir import ForOp, IfOp, PrimFuncOp, YieldOp
from xtvm.schedule.error import ScheduleError


def is_floating(op: Operation) -> bool:
    """Whether `op` may float between the loops of a band: a region-free `arith` op."""
    return op.name.startswith("arith.") and not op.regions


def is_guard(op: Operation) -> bool:
    """Whether `op` is a guard: a `tir.if` without `else`."""
    return isinstance(op, IfOp) and not op.else_region.blocks


def body_ops(block: Block) -> list[Operation]:
    """The ops of a `tir.for`/`tir.if` block without its implicit terminator."""
    return [op for op in block.ops if not isinstance(op, YieldOp)]


def append(block: Block, op: Operation) -> None:
    """Insert `op` at the end of `block`, before its terminator if it has one."""
    last = block.last_op
    if isinstance(last, YieldOp):
        block.insert_op_before(op, last)
    else:
        block.add_op(op)


def loop_name(loop: ForOp) -> str:
    """The loop variable's name hint ("?" when it has none)."""
    return loop.induction_var.name_hint or "?"


def describe(loop: ForOp) -> str:
    """How error messages name a loop."""
    return f"loop '{loop_name(loop)}'"


def enclosing_loops(op: Operation) -> list[ForOp]:
    """The `tir.for` loops around `op`, outermost first."""
    loops: list[ForOp] = []
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, PrimFuncOp):
        if isinstance(parent, ForOp):
            loops.append(parent)
        parent = parent.parent_op()
    return loops[::-1]


def constant_bounds(loop: ForOp, what: str) -> tuple[int, int]:
    """`(lb, extent)` of a loop with constant bounds; a ScheduleError otherwise."""
    lb, ub = int_constant(loop.lb), int_constant(loop.ub)
    if lb is None or ub is None:
        raise ScheduleError(f"{what} needs constant loop bounds, {describe(loop)} has none")
    return lb, max(ub - lb, 0)


class Constants:
    """Index constants at the top of a prim_func, made on demand and shared."""

    def __init__(self, func: PrimFuncOp):
        self.block = func.body.block
        self.values: dict[int, SSAValue] = {}
        for op in self.block.ops:
            if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType):
                value = int_constant(op.result)
                if value is not None:
                    self.values.setdefault(value, op.result)

    def __call__(self, value: int) -> SSAValue:
        if value not in self.values:
            op = make_int_constant(value, IndexType())
            op.result.name_hint = f"c{value}" if value >= 0 else f"c_neg{-value}"
            after_constants = next(
                (o for o in self.block.ops if not isinstance(o, arith.ConstantOp)), None
            )
            if after_constants is None:
                self.block.add_op(op)
            else:
                self.block.insert_op_before(op, after_constants)
            self.values[value] = op.result
        return self.values[value]


def new_loop(
    lb: SSAValue,
    ub: SSAValue,
    name: str,
    kind: str = "serial",
    annotations: object = None,
) -> ForOp:
    """An empty `tir.for` whose variable is named `name`."""
    loop = ForOp(lb, ub, [], kind, annotations)  # type: ignore[arg-type]
    loop.induction_var.name_hint = name
    return loop


def nest_names(op: Operation) -> set[str]:
    """Loop variable names in the top-level nest containing `op` (the names a
    new loop there must not repeat, so that loop references stay unique)."""
    top: Operation = op
    while not isinstance(top.parent_op(), PrimFuncOp | None):
        top = top.parent_op()  # type: ignore[assignment]
    return {loop_name(o) for o in top.walk() if isinstance(o, ForOp)}


def fresh_name(base: str, taken: set[str]) -> str:
    """`base`, or `base` with a `vN` suffix when `taken` has it; added to `taken`."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}v{n}"
    taken.add(name)
    return name


@dataclass
class Band:
    """A perfectly nested chain of loops taken apart (see the module docstring)."""

    loops: list[ForOp]
    floating: list[Operation] = field(default_factory=list)
    guards: list[IfOp] = field(default_factory=list)
    body: list[Operation] = field(default_factory=list)


def _walk_down(
    block: Block, loops: list[ForOp], band: Band, done: Callable[[Block], bool], what: str
) -> Block:
    """Follow the single non-floating op of each block (a loop or a guard),
    collecting floating ops and guards into `band`, until `done(block)`."""
    while not done(block):
        ops = body_ops(block)
        rest = [op for op in ops if not is_floating(op)]
        if len(rest) != 1 or not (isinstance(rest[0], ForOp) or is_guard(rest[0])):
            where = f"inside {describe(loops[-1])}" if loops else "here"
            found = ", ".join(f"'{op.name}'" for op in rest) or "no loop"
            raise ScheduleError(
                f"{what}: the loops are not perfectly nested: {where} there is {found}"
            )
        band.floating += [op for op in ops if is_floating(op)]
        inner = rest[0]
        if isinstance(inner, ForOp):
            loops.append(inner)
            block = inner.body.block
        else:
            assert isinstance(inner, IfOp)
            band.guards.append(inner)
            block = inner.then_region.block
    return block


def band_between(outer: ForOp, inner: ForOp, what: str) -> Band:
    """The band from `outer` down to `inner` (which `outer` must contain or be)."""
    if outer is not inner and not outer.is_ancestor(inner):
        raise ScheduleError(f"{what}: {describe(inner)} is not inside {describe(outer)}")
    band = Band([outer])
    _walk_down(outer.body.block, band.loops, band, lambda _: band.loops[-1] is inner, what)
    band.body = body_ops(inner.body.block)
    return band


def band_to_block(start: Block, target: Block, what: str) -> Band:
    """The loops, floating ops and guards from `start` down to `target` (a
    block inside); the body is `target`'s ops."""
    band = Band([])
    _walk_down(start, band.loops, band, lambda b: b is target, what)
    band.body = body_ops(target)
    return band


def band_below(loop: ForOp) -> Band:
    """The longest band starting at `loop` (descending while perfectly nested)."""
    band = Band([loop])
    block = loop.body.block
    while True:
        ops = body_ops(block)
        rest = [op for op in ops if not is_floating(op)]
        if len(rest) != 1 or not (isinstance(rest[0], ForOp) or is_guard(rest[0])):
            break
        if is_guard(rest[0]) and not any(isinstance(o, ForOp) for o in rest[0].walk()):
            break  # a guard around the innermost body stays in the body
        band.floating += [op for op in ops if is_floating(op)]
        if isinstance(rest[0], ForOp):
            band.loops.append(rest[0])
            block = rest[0].body.block
        else:
            band.guards.append(rest[0])  # type: ignore[arg-type]
            block = rest[0].then_region.block  # type: ignore[union-attr]
    band.body = body_ops(block)
    return band


def detach(band: Band) -> None:
    """Take every loop, floating op, guard and body op of `band` out of its block."""
    for op in [*band.loops, *band.guards, *band.floating, *band.body]:
        if op.parent is not None:
            op.detach()


def check_bounds_outside(band: Band, loops: Iterable[ForOp], what: str) -> None:
    """Loop bounds must not depend on the band's own loops (no triangular nests)."""
    band_vars = {loop.induction_var for loop in band.loops}
    floating_results = {r for op in band.floating for r in op.results}
    for loop in loops:
        for bound in (loop.lb, loop.ub):
            if bound in band_vars or bound in floating_results:
                raise ScheduleError(
                    f"{what}: the bounds of {describe(loop)} depend on an enclosing "
                    "loop of the nest"
                )


def place(
    loops: Sequence[ForOp],
    floating: Sequence[Operation],
    guards: Sequence[IfOp],
    body: Sequence[Operation],
    block: Block,
    before: Operation | None = None,
) -> None:
    """Build the nest `loops[0] ⊃ ... ⊃ loops[-1]` (each loop's block must be
    empty but for its terminator) in `block` (before `before`, else at the
    end), with each floating op and guard at the shallowest depth where its
    operands are defined (depth 1 at least), and `body` in the innermost loop.

    `floating` must be in an order where definitions come before uses.
    """
    depth_of: dict[SSAValue, int] = {loop.induction_var: d + 1 for d, loop in enumerate(loops)}

    def depth(values: Iterable[SSAValue]) -> int:
        return max([1, *(depth_of.get(v, 0) for v in values)])

    floating_at: dict[int, list[Operation]] = {}
    for op in floating:
        d = depth(op.operands)
        floating_at.setdefault(d, []).append(op)
        for r in op.results:
            depth_of[r] = d
    guards_at: dict[int, list[IfOp]] = {}
    for guard in guards:
        guards_at.setdefault(depth([guard.cond]), []).append(guard)

    if before is None:
        append(block, loops[0])
    else:
        block.insert_op_before(loops[0], before)
    for d, loop in enumerate(loops, start=1):
        container = loop.body.block
        for op in floating_at.get(d, []):
            append(container, op)
        for guard in guards_at.get(d, []):
            append(container, guard)
            container = guard.then_region.block
        inner: Sequence[Operation] = [loops[d]] if d < len(loops) else body
        for op in inner:
            append(container, op)


def remove_dead_floating(ops: Iterable[Operation]) -> None:
    """Erase the ops among `ops` (floating, already placed) whose results are unused."""
    pending = [op for op in ops]
    changed = True
    while changed:
        changed = False
        for op in list(pending):
            if op.parent is not None and all(not r.uses for r in op.results):
                op.detach()
                op.erase()
                pending.remove(op)
                changed = True


def is_loop_var(value: SSAValue) -> bool:
    """Whether `value` is the variable of a `tir.for`."""
    return isinstance(value, BlockArgument) and isinstance(value.block.parent_op(), ForOp)
