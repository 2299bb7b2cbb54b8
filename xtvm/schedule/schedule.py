"""`Schedule`: TensorIR-style primitives on one `tir.prim_func`, from Python.

```python
from xtvm.schedule import Schedule

sch = Schedule(func)                    # func: tir.PrimFuncOp, changed in place
i, j, k = sch.get_loops("D_acc")        # the loops around the reduction update
i0, j0, i1, j1 = sch.tile(i, j, 4, 16)
loops = sch.cache_write("D", j0)        # init / update / write-back nests
sch.vectorize(loops.update[-1])
sch.unroll(loops.update[0])
sch.parallel(i0)
print("\n".join(sch.trace))             # the same schedule as text, for tir-apply-schedule
```

Blocks are named by buffers: a function argument (its SSA name or
`arg_names` entry) or a `tir.allocate` (its SSA name, e.g. `D_acc` for the
accumulator `te` makes for a reduction `D`). Loops are `LoopRV` handles,
stable across later primitives until a primitive replaces the loop (split
and fuse do). In the textual trace a loop is `BLOCK.VAR`: the loop named VAR
among the loops enclosing the stores into BLOCK (`C.i`; a split of `i` makes
`i.0`, `i.1`; fuse makes `i_j_fused`; cache_write names its copies
`VAR_init` and `VAR_wb`; a loop moved next to one of the same name gets a
`v1`, `v2`... suffix; loops without a name are named `loop`, `loopv1`...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap

from xtvm.dialects.tir import AllocateOp, ForOp, PrimFuncOp, StoreOp
from xtvm.schedule import loops as L
from xtvm.schedule.cache_write import cache_write
from xtvm.schedule.error import ScheduleError
from xtvm.schedule.layout import transform_layout
from xtvm.schedule.nest import Constants, enclosing_loops, fresh_name, loop_name
from xtvm.schedule.stages import compute_at, compute_inline


@dataclass(eq=False)
class LoopRV:
    """A handle to one `tir.for` of the scheduled function; `block` is the
    buffer through which the trace names it."""

    op: ForOp
    block: str

    @property
    def name(self) -> str:
        """The loop's name in the textual trace, `BLOCK.VAR`."""
        return f"{self.block}.{loop_name(self.op)}"

    def __repr__(self) -> str:
        return f"LoopRV({self.name})"


@dataclass
class CacheWriteLoops:
    """What `cache_write` returns: the spatial loops of its three nests."""

    init: list[LoopRV]
    update: list[LoopRV]
    writeback: list[LoopRV]


class Schedule:
    """Schedule primitives applied in place to `func`, recorded in `trace`."""

    def __init__(self, func: PrimFuncOp):
        self.func = func
        self.consts = Constants(func)
        self._trace: list[str] = []
        unnamed = [
            op for op in func.walk() if isinstance(op, ForOp) and not op.induction_var.name_hint
        ]
        taken = {loop_name(op) for op in func.walk() if isinstance(op, ForOp)}
        for op in unnamed:
            op.induction_var.name_hint = fresh_name("loop", taken)

    @property
    def trace(self) -> list[str]:
        """The primitives applied so far, one textual instruction each."""
        return list(self._trace)

    # -- blocks and loops ---------------------------------------------------------

    def buffers(self) -> dict[str, list[SSAValue]]:
        """Every buffer by name (several values share a name only in hand-written IR)."""
        found: dict[str, list[SSAValue]] = {}
        for arg, arg_name in zip(self.func.args, self.func.arg_names):
            for name in {arg.name_hint, arg_name} - {None}:
                found.setdefault(name, []).append(arg)  # type: ignore[arg-type]
        for op in self.func.walk():
            if isinstance(op, AllocateOp) and op.res.name_hint:
                found.setdefault(op.res.name_hint, []).append(op.res)
        return found

    def buffer(self, name: str) -> SSAValue:
        """The buffer called `name`; a ScheduleError when there is none or several."""
        candidates = self.buffers().get(name, [])
        if not candidates:
            known = ", ".join(sorted(self.buffers()))
            raise ScheduleError(
                f"no buffer named '{name}' in @{self.func.sym_name.data} (buffers: {known})"
            )
        if len(candidates) > 1:
            raise ScheduleError(f"several buffers are named '{name}'")
        return candidates[0]

    def _stores(self, name: str) -> list[StoreOp]:
        buf = self.buffer(name)
        stores = [op for op in self.func.walk() if isinstance(op, StoreOp) and op.buffer == buf]
        if not stores:
            raise ScheduleError(f"nothing stores into '{name}'")
        return stores

    def get_loops(self, block: str) -> list[LoopRV]:
        """The loops around the store into `block`, outermost first. When
        several stores write it (an accumulator's init and update), those
        around the deepest one."""
        chains = [enclosing_loops(op) for op in self._stores(block)]
        deepest = max(len(c) for c in chains)
        candidates = {tuple(id(op) for op in c): c for c in chains if len(c) == deepest}
        if len(candidates) > 1:
            raise ScheduleError(
                f"get_loops: '{block}' is stored in {len(candidates)} different loop nests"
            )
        (chain,) = candidates.values()
        return [LoopRV(op, block) for op in chain]

    def loop(self, ref: str) -> LoopRV:
        """The loop a textual reference `BLOCK.VAR` names."""
        known = self.buffers()
        parses = [
            (ref[:p], ref[p + 1 :]) for p, ch in enumerate(ref) if ch == "." and ref[:p] in known
        ]
        if not parses:
            raise ScheduleError(
                f"'{ref}' does not name a loop: expected BLOCK.VAR with BLOCK a buffer name"
            )
        found: dict[int, LoopRV] = {}
        names: set[str] = set()
        for block, var in parses:
            for store in self._stores(block):
                for op in enclosing_loops(store):
                    names.add(f"{block}.{loop_name(op)}")
                    if loop_name(op) == var:
                        found[id(op)] = LoopRV(op, block)
        if not found:
            raise ScheduleError(
                f"no loop '{ref}'; loops around those stores: {', '.join(sorted(names))}"
            )
        if len(found) > 1:
            raise ScheduleError(f"loop reference '{ref}' is ambiguous: {len(found)} loops match")
        return next(iter(found.values()))

    def _check(self, *rvs: LoopRV) -> list[ForOp]:
        ops = []
        for rv in rvs:
            if not isinstance(rv, LoopRV):
                raise ScheduleError(f"expected a loop (LoopRV), got {rv!r}")
            if rv.op.parent is None or not self.func.is_ancestor(rv.op):
                raise ScheduleError(
                    f"loop {rv.name} no longer exists: an earlier split or fuse replaced it"
                )
            ops.append(rv.op)
        return ops

    def _record(self, text: str) -> None:
        self._trace.append(text)

    # -- loop primitives ------------------------------------------------------------

    def split(self, loop: LoopRV, factors: Sequence[int | None]) -> list[LoopRV]:
        """Split `loop` into nested loops of extents `factors` (one may be None: inferred)."""
        (op,) = self._check(loop)
        text = f"split {loop.name} [{', '.join(str(f) for f in factors)}]"
        new = L.split(self.consts, op, list(factors))
        self._record(text)
        return [LoopRV(o, loop.block) for o in new]

    def split_tail(self, loop: LoopRV, factor: int) -> list[LoopRV]:
        """Split `loop`, of a run-time extent, into chunks of `factor` and a
        tail: `[outer, inner, tail]` (see `loops.split_tail`)."""
        (op,) = self._check(loop)
        text = f"split_tail {loop.name} {factor}"
        new = L.split_tail(self.consts, op, factor)
        self._record(text)
        return [LoopRV(o, loop.block) for o in new]

    def fuse(self, *loops: LoopRV) -> LoopRV:
        """Fuse adjacent perfectly nested loops (outermost first) into one."""
        ops = self._check(*loops)
        text = "fuse " + " ".join(rv.name for rv in loops)
        fused = L.fuse(self.consts, ops)
        self._record(text)
        return LoopRV(fused, loops[0].block)

    def reorder(self, *loops: LoopRV) -> None:
        """Reorder loops of one perfect nest into the given order."""
        ops = self._check(*loops)
        text = "reorder " + " ".join(rv.name for rv in loops)
        L.reorder(ops)
        self._record(text)

    def tile(self, *args: LoopRV | int) -> list[LoopRV]:
        """`tile(i, j, 8, 16)`: split each loop by its factor and reorder to
        `(i.0, j.0, i.1, j.1)`, which it returns. Any number of loops."""
        n = len(args) // 2
        loops, factors = args[:n], args[n:]
        if len(args) % 2 or not all(isinstance(rv, LoopRV) for rv in loops):
            raise ScheduleError("tile takes loops then as many integer factors: tile(i, j, 8, 16)")
        ops = self._check(*loops)  # type: ignore[arg-type]
        names = " ".join(rv.name for rv in loops)  # type: ignore[union-attr]
        text = f"tile {names} [{', '.join(str(f) for f in factors)}]"
        new = L.tile(self.consts, ops, list(factors))  # type: ignore[arg-type]
        self._record(text)
        blocks = [rv.block for rv in loops] * 2  # type: ignore[union-attr]
        return [LoopRV(o, b) for o, b in zip(new, blocks)]

    def _kind(self, primitive: str, loop: LoopRV, apply: Callable[[ForOp], None]) -> None:
        (op,) = self._check(loop)
        text = f"{primitive} {loop.name}"
        apply(op)
        self._record(text)

    def vectorize(self, loop: LoopRV) -> None:
        """Mark an innermost loop `vectorized`."""
        self._kind("vectorize", loop, L.vectorize)

    def parallel(self, loop: LoopRV) -> None:
        """Mark a loop `parallel`."""
        self._kind("parallel", loop, L.parallel)

    def unroll(self, loop: LoopRV) -> None:
        """Mark a loop `unrolled`."""
        self._kind("unroll", loop, L.unroll)

    # -- stage primitives ---------------------------------------------------------

    def cache_write(self, block: str, loop: LoopRV) -> CacheWriteLoops:
        """Register-block the reduction whose result is stored into `block`
        below `loop`: see `xtvm.schedule.cache_write`."""
        (op,) = self._check(loop)
        text = f"cache_write {block} {loop.name}"
        nests = cache_write(self.consts, self.buffer(block), block, op)
        self._record(text)
        acc = nests.accumulator
        return CacheWriteLoops(
            init=[LoopRV(o, acc) for o in nests.init],
            update=[LoopRV(o, acc) for o in nests.update],
            writeback=[LoopRV(o, block) for o in nests.writeback],
        )

    def compute_inline(self, block: str) -> None:
        """Substitute the elementwise stage writing buffer `block` into its
        loads and remove it (see `xtvm.schedule.stages`)."""
        compute_inline(self.func, self.buffer(block), block)
        self._record(f"compute_inline {block}")

    def compute_at(self, block: str, loop: LoopRV, local: bool = False) -> list[LoopRV]:
        """Move the stage writing buffer `block` under `loop`, computing only
        the region one iteration of `loop` reads; returns its loops. With
        `local`, in a buffer of that region's size allocated under `loop`
        (see `xtvm.schedule.stages.compute_at`)."""
        (op,) = self._check(loop)
        text = f"compute_at {block} {loop.name}" + (" local" if local else "")
        new = compute_at(self.consts, self.func, self.buffer(block), block, op, local)
        self._record(text)
        return [LoopRV(o, block) for o in new]

    def transform_layout(
        self, buffer: str, index_map: AffineMap | Callable[..., object]
    ) -> list[LoopRV]:
        """Store `buffer` in the layout `index_map` gives (an `AffineMap` or
        a function of the old indices, `lambda o, i, h, w: (o // 8, i, h, w,
        o % 8)`); an input gets a packed copy, whose packing loops are
        returned (see `xtvm.schedule.layout`)."""
        if isinstance(index_map, AffineMap):
            amap = index_map
        else:
            amap = AffineMap.from_callable(index_map)  # type: ignore[arg-type]
        name, loops = transform_layout(self.consts, self.func, self.buffer(buffer), buffer, amap)
        self._record(f"transform_layout {buffer} {amap}")
        return [LoopRV(o, name) for o in loops]
