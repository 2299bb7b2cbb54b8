"""Stage placement: `compute_inline` and `compute_at` (TVM's primitives of
the same names) for a materialized stage, i.e. a buffer B written by one
store `B[v1, ..., vn]` whose indices are the variables of the loops around
it, each running over the whole dimension:

    %B = tir.allocate "global" : memref<8x8xf32>
    tir.for %i = 0 to 8 { tir.for %j = 0 to 8 { ... tir.store %v, %B[%i, %j] } }
    tir.for %y = 0 to 8 { ... tir.load %B[%y, %x] ... }

`te.create_prim_func` inlines elementwise stages itself, so such stages
come from hand-written IR or from stages it must materialize (e.g. a
reduction read at other points than its consumer's own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from xtvm.arith import int_constant
from xtvm.dialects.tir import AllocateOp, ForOp, IfOp, LoadOp, PrimFuncOp, StoreOp
from xtvm.schedule.error import ScheduleError
from xtvm.schedule.nest import (
    Band,
    Constants,
    band_between,
    describe,
    detach,
    enclosing_loops,
    fresh_name,
    is_loop_var,
    loop_name,
    nest_names,
    new_loop,
    place,
)


@dataclass
class Producer:
    """The loop nest writing a materialized stage: `band.loops[k]` iterates dimension `dims[k]`."""

    store: StoreOp
    band: Band
    dims: list[int]


def find_producer(func: PrimFuncOp, buffer: SSAValue, name: str, what: str) -> Producer:
    """The nest computing buffer `name` (see the module docstring for the form it must have)."""
    stores = [op for op in func.walk() if isinstance(op, StoreOp) and op.buffer == buffer]
    if len(stores) != 1:
        raise ScheduleError(
            f"{what}: {name} must be written by exactly one store, found {len(stores)}"
        )
    store = stores[0]
    shape = buffer.type.get_shape()  # type: ignore[attr-defined]
    loops = enclosing_loops(store)[-len(shape) :] if shape else []
    by_var = {loop.induction_var: loop for loop in loops}
    if (
        len(loops) != len(shape)
        or len(set(store.indices)) != len(shape)
        or any(i not in by_var for i in store.indices)
    ):
        raise ScheduleError(
            f"{what}: the store into {name} must be indexed by the variables of the loops "
            f"around it, one loop per dimension (schedule {name}'s loops afterwards)"
        )
    dims = [list(store.indices).index(loop.induction_var) for loop in loops]
    for loop, d in zip(loops, dims):
        if int_constant(loop.lb) != 0 or int_constant(loop.ub) != shape[d]:
            raise ScheduleError(
                f"{what}: {describe(loop)} must run over all of dimension {d} of {name}"
            )
    band = band_between(loops[0], loops[-1], what)
    if band.guards:
        raise ScheduleError(f"{what}: the loops writing {name} are guarded")
    return Producer(store, band, dims)


def _check_inputs_unchanged(func: PrimFuncOp, producer: Producer, name: str, what: str) -> None:
    """The buffers the producer reads must not be written after it (so
    computing it later reads the same values)."""
    top = producer.band.loops[0]
    inside = {id(op) for op in top.walk()}
    read = {op.buffer for op in top.walk() if isinstance(op, LoadOp)}
    after = False
    for op in func.walk():
        if op is top:
            after = True
        elif after and id(op) not in inside and isinstance(op, StoreOp) and op.buffer in read:
            raise ScheduleError(
                f"{what}: {name} reads {op.buffer.name_hint or 'a buffer'}, "
                f"which is written after {name} is computed"
            )


def _allocation(buffer: SSAValue, name: str, what: str) -> AllocateOp:
    if not isinstance(buffer.owner, AllocateOp):
        raise ScheduleError(
            f"{what}: {name} is a function argument, not a stage computed into an allocated buffer"
        )
    return buffer.owner


def compute_inline(func: PrimFuncOp, buffer: SSAValue, name: str) -> None:
    """Substitute stage `name`'s value into every load of it, then drop the
    stage and its buffer. The stage's body must be loads and pure ops."""
    what = "compute_inline"
    alloc = _allocation(buffer, name, what)
    producer = find_producer(func, buffer, name, what)
    body = [op for op in producer.band.body if op is not producer.store]
    for op in body:
        if op.regions or isinstance(op, StoreOp | AllocateOp):
            raise ScheduleError(
                f"{what}: {name} is not an elementwise stage: its body has '{op.name}'"
            )
        if isinstance(op, LoadOp) and op.buffer == buffer:
            raise ScheduleError(f"{what}: {name} reads itself")
    _check_inputs_unchanged(func, producer, name, what)
    users = [use.operation for use in buffer.uses if use.operation is not producer.store]
    for user in users:
        if not isinstance(user, LoadOp) or user.buffer != buffer:
            raise ScheduleError(f"{what}: {name} is used by '{user.name}', not only loaded")
    loops = producer.band.loops
    for load in users:
        assert isinstance(load, LoadOp)
        mapping: dict[SSAValue, SSAValue] = {
            loop.induction_var: load.indices[d] for loop, d in zip(loops, producer.dims)
        }
        block = load.parent_block()
        assert block is not None
        for op in [*producer.band.floating, *body]:
            block.insert_op_before(op.clone(mapping), load)
        value = producer.store.value
        load.res.replace_all_uses_with(mapping.get(value, value))
        load.detach()
        load.erase()
    top = loops[0]
    top.detach()
    top.erase()
    alloc.detach()
    alloc.erase()


def _affine(value: SSAValue) -> tuple[dict[SSAValue, int], int] | None:
    """`value` as `sum(coef * var) + const` over loop variables, or None."""
    const = int_constant(value)
    if const is not None:
        return {}, const
    if is_loop_var(value):
        return {value: 1}, 0
    op = value.owner
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        lhs, rhs = _affine(op.lhs), _affine(op.rhs)
        if lhs is None or rhs is None:
            return None
        sign = 1 if isinstance(op, arith.AddiOp) else -1
        terms = dict(lhs[0])
        for var, coef in rhs[0].items():
            terms[var] = terms.get(var, 0) + sign * coef
        return {v: c for v, c in terms.items() if c}, lhs[1] + sign * rhs[1]
    if isinstance(op, arith.MuliOp):
        for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            c = int_constant(b)
            inner = _affine(a)
            if c is not None and inner is not None:
                return {v: k * c for v, k in inner[0].items() if k * c}, inner[1] * c
    return None


@dataclass
class _Range:
    """`start = sum(coef * outer var) + lo` and the constant extent `hi - lo + 1`."""

    outer: dict[SSAValue, int]
    lo: int
    hi: int


def _region(loads: Sequence[LoadOp], loop: ForOp, name: str, rank: int) -> list[_Range]:
    """Per dimension, the elements of `name` the loads under one iteration of `loop` read."""
    what = "compute_at"
    inner_loops = {op.induction_var: op for op in loop.body.walk() if isinstance(op, ForOp)}
    region: list[_Range | None] = [None] * rank
    for load in loads:
        for d, index in enumerate(load.indices):
            form = _affine(index)
            if form is None:
                raise ScheduleError(
                    f"{what}: index {d} of a load of {name} is not an affine function of the loops"
                )
            terms, lo = form
            hi, outer = lo, {}
            for var, coef in terms.items():
                if var in inner_loops:
                    lb, ub = int_constant(inner_loops[var].lb), int_constant(inner_loops[var].ub)
                    if lb is None or ub is None:
                        raise ScheduleError(
                            f"{what}: {describe(inner_loops[var])} needs constant bounds"
                        )
                    lo += min(coef * lb, coef * (ub - 1))
                    hi += max(coef * lb, coef * (ub - 1))
                else:
                    outer[var] = coef
            current = region[d]
            if current is None:
                region[d] = _Range(outer, lo, hi)
            elif current.outer != outer:
                raise ScheduleError(
                    f"{what}: the loads of {name} under {describe(loop)} do not read "
                    "one rectangular region "
                    f"(dimension {d} starts at different offsets)"
                )
            else:
                current.lo, current.hi = min(current.lo, lo), max(current.hi, hi)
    return region  # type: ignore[return-value]


def _bounds_of(var: SSAValue) -> tuple[int, int] | None:
    loop = var.owner.parent_op() if is_loop_var(var) else None  # type: ignore[union-attr]
    if not isinstance(loop, ForOp):
        return None
    lb, ub = int_constant(loop.lb), int_constant(loop.ub)
    return None if lb is None or ub is None else (lb, ub - 1)


def compute_at(
    consts: Constants,
    func: PrimFuncOp,
    buffer: SSAValue,
    name: str,
    loop: ForOp,
    local: bool = False,
) -> list[ForOp]:
    """Move stage `name`'s nest to the start of `loop`'s body, computing only
    the region the loads under one iteration of `loop` read; returns its loops.
    With `local`, the stage is stored in a buffer of the region's size
    allocated in `loop`'s body (indexed from the region's start), so one
    iteration's values stay in cache and, under a parallel loop, each
    thread has its own; else in the whole buffer."""
    what = "compute_at"
    alloc = _allocation(buffer, name, what)
    if local and alloc.sizes:
        raise ScheduleError(f"{what}: {name} has dynamic extents; it cannot be local")
    producer = find_producer(func, buffer, name, what)
    top = producer.band.loops[0]
    if top.is_ancestor(loop):
        raise ScheduleError(f"{what}: {describe(loop)} is inside the loops computing {name}")
    consumer_top: Operation = loop
    while consumer_top.parent_block() is not top.parent_block():
        parent = consumer_top.parent_op()
        if parent is None or isinstance(parent, PrimFuncOp):
            raise ScheduleError(
                f"{what}: {describe(loop)} is not in the block where {name} is computed"
            )
        consumer_top = parent
    block = top.parent_block()
    assert block is not None
    if block.get_operation_index(consumer_top) < block.get_operation_index(top):
        raise ScheduleError(f"{what}: {describe(loop)} runs before {name} is computed")
    loads = [use.operation for use in buffer.uses if use.operation is not producer.store]
    for user in loads:
        if not isinstance(user, LoadOp) or not loop.is_ancestor(user):
            raise ScheduleError(
                f"{what}: {name} is used outside {describe(loop)} (by '{user.name}')"
            )
    if not loads:
        raise ScheduleError(f"{what}: nothing under {describe(loop)} reads {name}")
    _check_inputs_unchanged(func, producer, name, what)
    shape = buffer.type.get_shape()  # type: ignore[attr-defined]
    region = _region(loads, loop, name, len(shape))  # type: ignore[arg-type]

    start_ops: list[Operation] = []
    starts: list[SSAValue] = []
    for r in region:
        value: SSAValue | None = None
        for var, coef in r.outer.items():
            term = var
            if coef != 1:
                mul = arith.MuliOp(var, consts(coef))
                start_ops.append(mul)
                term = mul.result
            if value is not None:
                add = arith.AddiOp(value, term)
                start_ops.append(add)
                term = add.result
            value = term
        if value is None:
            value = consts(r.lo)
        elif r.lo != 0:
            add = arith.AddiOp(value, consts(r.lo))
            start_ops.append(add)
            value = add.result
        starts.append(value)

    band = producer.band
    taken = nest_names(loop)
    detach(band)
    new_loops, index_ops, conds = [], [], []
    for old, d in zip(band.loops, producer.dims):
        r = region[d]
        new = new_loop(
            consts(0),
            consts(r.hi - r.lo + 1),
            fresh_name(loop_name(old), taken),
            old.kind.data,
            old.annotations,
        )
        add = arith.AddiOp(starts[d], new.induction_var)
        add.result.name_hint = loop_name(old)
        old.induction_var.replace_all_uses_with(add.result)
        new_loops.append(new)
        index_ops.append(add)
        lo, hi = r.lo, r.hi
        for var, coef in r.outer.items():
            span = _bounds_of(var)
            if span is None:
                lo, hi = -1, shape[d]
                break
            lo += min(coef * span[0], coef * span[1])
            hi += max(coef * span[0], coef * span[1])
        if lo < 0:
            conds.append(arith.CmpiOp(add.result, consts(0), "sge"))
        if hi >= shape[d]:
            conds.append(arith.CmpiOp(add.result, consts(shape[d]), "slt"))
        old.erase()
    guards = [IfOp(c, []) for c in conds]
    first = loop.body.block.first_op
    for op in start_ops:
        loop.body.block.insert_op_before(op, first)  # type: ignore[arg-type]
    place(
        new_loops, [*index_ops, *conds, *band.floating], guards, band.body, loop.body.block, first
    )
    if local:
        _localize(alloc, region, starts, loop)
    return new_loops


def _localize(
    alloc: AllocateOp, region: Sequence[_Range], starts: Sequence[SSAValue], loop: ForOp
) -> None:
    """Replace buffer `alloc` (accessed only under `loop`, as `compute_at`
    checked) by one of the region's extents allocated at the start of
    `loop`'s body, every access indexed from the region's start."""
    old = alloc.res
    ty = old.type
    assert isinstance(ty, MemRefType)
    extents = [r.hi - r.lo + 1 for r in region]
    new = AllocateOp(MemRefType(ty.element_type, extents), alloc.scope.data)
    new.res.name_hint = old.name_hint
    block = loop.body.block
    block.insert_op_before(new, block.first_op)  # type: ignore[arg-type]
    for use in list(old.uses):
        access = use.operation
        assert isinstance(access, LoadOp | StoreOp) and loop.is_ancestor(access)
        indices = list(access.indices)
        for d, start in enumerate(starts):
            if int_constant(start) == 0:
                continue
            sub = arith.SubiOp(indices[d], start)
            access.parent_block().insert_op_before(sub, access)  # type: ignore[union-attr]
            indices[d] = sub.result
        operands = list(access.operands)
        head = len(operands) - len(indices)  # [value,] buffer, then the indices
        operands[head - 1] = new.res
        access.operands = [*operands[:head], *indices]
    alloc.detach()
    alloc.erase()
