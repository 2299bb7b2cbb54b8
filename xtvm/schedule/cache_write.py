"""`cache_write`: register blocking of a reduction (TVM's `cache_write` into
a "local" buffer, plus `decompose_reduction` and `reorder`).

Input: a buffer C whose store, somewhere below `loop`, is computed from a
one-element local accumulator inside spatial loops S1..Sk lying strictly
inside `loop` (the form `te.create_prim_func` emits, after any splits):

    tir.for %j.0 ... {                              // loop
      tir.for %i.1 = 0 to 4 { tir.for %j.1 = 0 to 8 {   // S1, S2
        %acc = tir.allocate "local" : memref<1xf32>
        tir.store %zero, %acc[%c0]
        tir.for %k ... { acc[0] = acc[0] + A[i, k] * W[j, k] }
        %v = tir.load %acc[%c0]  ... epilogue ...
        tir.store %r, %C[%i, %j]
      } }
    }

Output, inside `loop`: one accumulator per (S1..Sk) point, an init nest,
the reduction loops with S1..Sk innermost, and a write-back nest computing
the epilogue:

    tir.for %j.0 ... {
      %acc = tir.allocate "local" : memref<4x8xf32>
      tir.for %i.1_init { tir.for %j.1_init { acc[i.1_init, j.1_init] = 0 } }
      tir.for %k { tir.for %i.1 { tir.for %j.1 { acc[i.1, j.1] += A[i, k] * W[j, k] } } }
      tir.for %i.1_wb { tir.for %j.1_wb { C[i, j] = epilogue(acc[i.1_wb, j.1_wb]) } }
    }

Loop kinds and annotations are kept (the init and write-back loops copy
those of S1..Sk); split guards are kept in the update and write-back nests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from xtvm.arith import int_constant
from xtvm.dialects.tir import AllocateOp, ForOp, IfOp, LoadOp, StoreOp
from xtvm.schedule.error import ScheduleError
from xtvm.schedule.nest import (
    Constants,
    append,
    band_below,
    band_to_block,
    check_bounds_outside,
    constant_bounds,
    describe,
    detach,
    fresh_name,
    is_floating,
    loop_name,
    nest_names,
    new_loop,
    place,
    remove_dead_floating,
)

_WHAT = "cache_write"


@dataclass
class CacheWriteNests:
    """The accumulator's name and the spatial loops of the three nests
    `cache_write` builds, outermost first."""

    accumulator: str
    init: list[ForOp]
    update: list[ForOp]
    writeback: list[ForOp]


def _writes_inside(op: Operation, buffer: SSAValue) -> bool:
    return any(isinstance(o, StoreOp) and o.buffer == buffer for o in op.walk())


def _find_accumulator(ops: Sequence[Operation], name: str) -> tuple[AllocateOp, StoreOp, ForOp]:
    """The accumulator allocation, its init store and the reduction loop among `ops`."""
    accs = [
        op
        for op in ops
        if isinstance(op, AllocateOp)
        and op.scope.data == "local"
        and op.res.type.get_shape() == (1,)
        and any(isinstance(o, ForOp) and _writes_inside(o, op.res) for o in ops)
    ]
    if len(accs) != 1:
        raise ScheduleError(
            f"{_WHAT}: the value stored into {name} must come from exactly one reduction "
            f"accumulator (a one-element local buffer updated in a loop) directly inside the "
            f"spatial loops, found {len(accs)}"
        )
    acc = accs[0]
    for use in acc.res.uses:
        user = use.operation
        ok = isinstance(user, LoadOp | StoreOp) and user.buffer == acc.res
        if not ok or int_constant(user.indices[0]) != 0:  # type: ignore[union-attr]
            raise ScheduleError(
                f"{_WHAT}: the accumulator of {name} is used by '{user.name}', "
                "not only loaded and stored at element 0"
            )
    reductions = [op for op in ops if isinstance(op, ForOp) and _writes_inside(op, acc.res)]
    if len(reductions) != 1:
        raise ScheduleError(
            f"{_WHAT}: the accumulator of {name} is updated in {len(reductions)} loop "
            "nests, expected 1"
        )
    red = reductions[0]
    position = {id(op): k for k, op in enumerate(ops)}
    inits = [
        op
        for op in ops[position[id(acc)] + 1 : position[id(red)]]
        if isinstance(op, StoreOp) and op.buffer == acc.res
    ]
    if len(inits) != 1:
        raise ScheduleError(
            f"{_WHAT}: the accumulator of {name} must be initialised once before its reduction loop"
        )
    return acc, inits[0], red


def _retarget(
    roots: Sequence[Operation], old: SSAValue, new: SSAValue, indices: list[SSAValue]
) -> None:
    """Accesses of the one-element buffer `old` inside `roots` become accesses of `new[indices]`."""
    for root in roots:
        for op in list(root.walk()):
            block = op.parent_block()
            if isinstance(op, LoadOp) and op.buffer == old:
                load = LoadOp(new, indices)
                load.res.name_hint = op.res.name_hint
                assert block is not None
                block.insert_op_before(load, op)
                op.res.replace_all_uses_with(load.res)
            elif isinstance(op, StoreOp) and op.buffer == old:
                assert block is not None
                block.insert_op_before(StoreOp(op.value, new, indices), op)
            else:
                continue
            op.detach()
            op.erase()


def _erase_all(ops: Sequence[Operation]) -> None:
    for op in reversed(ops):
        if op.parent is not None:
            op.detach()
        op.erase(safe_erase=False)


def cache_write(consts: Constants, buffer: SSAValue, name: str, loop: ForOp) -> CacheWriteNests:
    """Register-block the reduction computing `buffer` (named `name`) under `loop`."""
    stores = [op for op in loop.walk() if isinstance(op, StoreOp) and op.buffer == buffer]
    if len(stores) != 1:
        raise ScheduleError(
            f"{_WHAT}: expected one store into {name} inside {describe(loop)}, found {len(stores)}"
        )
    target = stores[0].parent_block()
    assert target is not None
    chain = band_to_block(loop.body.block, target, _WHAT)
    spatial = chain.loops
    if not spatial:
        raise ScheduleError(
            f"{_WHAT}: no loop lies between {describe(loop)} and the store into {name}; "
            "pass the loop outside the spatial loops to block"
        )
    bounds = [constant_bounds(s, _WHAT) for s in spatial]
    check_bounds_outside(chain, spatial, _WHAT)
    acc, init, red = _find_accumulator(chain.body, name)
    ops = chain.body
    i_red = ops.index(red)
    before = [op for op in ops[:i_red] if op is not acc and op is not init]
    for op in before:
        if not is_floating(op):
            raise ScheduleError(
                f"{_WHAT}: '{op.name}' before the reduction of {name} cannot be moved"
            )
    suffix = ops[i_red + 1 :]
    if any(_writes_inside(op, acc.res) for op in suffix):
        raise ScheduleError(
            f"{_WHAT}: the accumulator of {name} is written after its reduction loop"
        )
    rband = band_below(red)
    spatial_values = {s.induction_var for s in spatial} | {
        r for op in [*chain.floating, *before] for r in op.results
    }
    for r in rband.loops:
        if r.lb in spatial_values or r.ub in spatial_values:
            raise ScheduleError(
                f"{_WHAT}: the bounds of reduction {describe(r)} depend on a spatial loop"
            )

    block = loop.body.block
    detach(chain)
    detach(rband)
    new_acc = AllocateOp(MemRefType(acc.res.type.element_type, [e for _, e in bounds]), "local")
    new_acc.res.name_hint = acc.res.name_hint
    append(block, new_acc)
    taken = nest_names(loop)
    floating = [*chain.floating, *before]

    def acc_indices(loops: Sequence[ForOp]) -> tuple[list[Operation], list[SSAValue]]:
        ops_: list[Operation] = []
        values: list[SSAValue] = []
        for s, (lb, _) in zip(loops, bounds):
            if lb == 0:
                values.append(s.induction_var)
            else:
                sub = arith.SubiOp(s.induction_var, consts(lb))
                ops_.append(sub)
                values.append(sub.result)
        return ops_, values

    def copy_nest(suffix_: str) -> tuple[list[ForOp], dict[SSAValue, SSAValue], list[Operation]]:
        loops = [
            new_loop(
                s.lb, s.ub, fresh_name(loop_name(s) + suffix_, taken), s.kind.data, s.annotations
            )
            for s in spatial
        ]
        mapping: dict[SSAValue, SSAValue] = {
            s.induction_var: c.induction_var for s, c in zip(spatial, loops)
        }
        clones = [op.clone(mapping) for op in floating]
        return loops, mapping, clones

    # init nest: acc[s] = identity
    init_loops, mapping, clones = copy_nest("_init")
    idx_ops, idx = acc_indices(init_loops)
    store = StoreOp(mapping.get(init.value, init.value), new_acc.res, idx)
    place(init_loops, [*clones, *idx_ops], [], [store], block)
    remove_dead_floating([*clones, *idx_ops])

    # update nest: reduction loops outside, spatial loops innermost
    idx_ops, idx = acc_indices(spatial)
    update_floating = [*floating, *idx_ops, *rband.floating]
    place(
        [*rband.loops, *spatial], update_floating, [*chain.guards, *rband.guards], rband.body, block
    )
    _retarget([red], acc.res, new_acc.res, idx)
    remove_dead_floating(update_floating)

    # write-back nest: the epilogue from acc[s]
    wb_loops, mapping, clones = copy_nest("_wb")
    guards = [IfOp(mapping.get(g.cond, g.cond), []) for g in chain.guards]
    epilogue = [op.clone(mapping) for op in suffix]
    idx_ops, idx = acc_indices(wb_loops)
    place(wb_loops, [*clones, *idx_ops], guards, epilogue, block)
    _retarget([wb_loops[0]], acc.res, new_acc.res, idx)
    remove_dead_floating([*clones, *idx_ops])

    _erase_all(suffix)
    init.erase()
    acc.erase()
    return CacheWriteNests(new_acc.res.name_hint or name, init_loops, list(spatial), wb_loops)
