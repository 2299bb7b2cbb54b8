"""``memory-plan``: share storage between tensors whose lifetimes do not
overlap (TVM's ``GraphPlanMemory`` and ``StaticMemoryPlan``)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects.memory import DEFAULT_ALIGNMENT, AllocStorageOp, AllocTensorOp
from xtvm.dialects.relay import IfOp, WhileOp
from xtvm.passes.memory.liveness import MemoryPlanError, analyze_liveness, op_text
from xtvm.passes.memory.planner import (
    Lifetime,
    align_up,
    naive_bytes,
    plan_arena,
    plan_storage_ids,
)

PLANNED_BYTES = "memory.planned_bytes"
"""Function attribute: bytes of the planned storage (aligned)."""
NAIVE_BYTES = "memory.naive_bytes"
"""Function attribute: bytes of one aligned storage per tensor."""


@dataclass(eq=False)
class _Block:
    """Tensors planned as one: those sharing bytes of one storage while
    live together (a concatenation and its inputs placed in it by
    ``memory-concat-in-place``); each keeps its offset from the lowest."""

    low: int
    high: int
    lifetime: Lifetime
    members: list[AllocTensorOp]


def _blocks(allocs: list[AllocTensorOp], lifetimes: list[Lifetime]) -> list[_Block]:
    """The allocations grouped into blocks (:class:`_Block`), in program order of
    their first member: tensors of one storage whose byte ranges and
    lifetimes both intersect (a planned storage holds tensors at
    intersecting bytes only when their lifetimes are disjoint, so planning
    again keeps the blocks)."""
    blocks: list[_Block] = []
    by_storage: dict[object, list[_Block]] = {}
    for alloc, life in zip(allocs, lifetimes, strict=True):
        low = alloc.offset.value.data
        high = low + alloc.nbytes
        mine = _Block(low, high, life, [alloc])
        others = by_storage.setdefault(alloc.storage, [])
        for other in [
            b
            for b in others
            if b.low < high and low < b.high and b.lifetime.conflicts(life)
        ]:
            others.remove(other)
            blocks.remove(other)
            mine = _Block(
                min(mine.low, other.low),
                max(mine.high, other.high),
                Lifetime(
                    min(mine.lifetime.start, other.lifetime.start),
                    max(mine.lifetime.end, other.lifetime.end),
                    0,
                ),
                other.members + mine.members,
            )
        mine.lifetime = Lifetime(mine.lifetime.start, mine.lifetime.end, mine.high - mine.low)
        others.append(mine)
        blocks.append(mine)
    return sorted(blocks, key=lambda b: b.lifetime.start)


def _plan_function(fn: func.FuncOp, arena: bool, alignment: int) -> None:
    live = analyze_liveness(fn)
    allocs = [v.owner for v in live.lifetimes if isinstance(v.owner, AllocTensorOp)]
    if not allocs:
        return
    old_storages = []
    for alloc in allocs:
        storage = alloc.storage.owner
        if not isinstance(storage, AllocStorageOp) or storage.parent is not fn.body.block:
            raise MemoryPlanError(
                f"memory-plan: @{fn.sym_name.data} places a tensor in storage that is not "
                f"allocated in the function:\n{op_text(alloc)}"
            )
        if storage in old_storages:
            continue
        if any(not isinstance(use.operation, AllocTensorOp) for use in storage.storage.uses):
            raise MemoryPlanError(
                f"memory-plan: @{fn.sym_name.data} uses a storage for something other "
                f"than memory.alloc_tensor:\n{op_text(storage)}"
            )
        old_storages.append(storage)
    blocks = _blocks(allocs, [live.lifetimes[a.result] for a in allocs])
    lifetimes = [b.lifetime for b in blocks]

    if arena:
        offsets, total = plan_arena(lifetimes, alignment)
        storages = [AllocStorageOp(total, alignment)]
        storages[0].storage.name_hint = "arena"
        places = [(storages[0].storage, o) for o in offsets]
    else:
        ids, sizes = plan_storage_ids(lifetimes)
        storages = [AllocStorageOp(size, alignment) for size in sizes]
        for sid, s in enumerate(storages):
            s.storage.name_hint = f"storage{sid}"
        total = sum(align_up(size, alignment) for size in sizes)
        places = [(storages[sid].storage, 0) for sid in ids]

    Rewriter.insert_op(storages, InsertPoint.at_start(fn.body.block))
    for block, (storage, offset) in zip(blocks, places, strict=True):
        for alloc in block.members:
            assert isinstance(alloc.result.type, TensorType)
            placed = offset + alloc.offset.value.data - block.low
            Rewriter.replace_op(alloc, AllocTensorOp(storage, placed, alloc.result.type))
    for storage in old_storages:
        Rewriter.erase_op(storage)
    fn.attributes[PLANNED_BYTES] = IntegerAttr(total, i64)
    fn.attributes[NAIVE_BYTES] = IntegerAttr(naive_bytes(lifetimes, alignment), i64)


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Plan the storage of every ``memory.alloc_tensor`` of straight-line
    graph functions, so that tensors whose lifetimes do not overlap share
    bytes.

    A tensor lives from its ``memory.alloc_tensor`` to its last use (through
    ``relay.tuple``/``relay.tuple_get``; ``memory.kill`` is not a use); a
    returned tensor to ``func.return``, so no kernel overwrites an output. A
    kernel's inputs and outputs are live at the same op, so they never share
    bytes.

    Options: ``arena=true`` (default) places every tensor at an aligned
    offset of one ``memory.alloc_storage`` (greedy by size: largest first,
    each at the lowest offset free of conflicting tensors; the storage-id
    plan laid out back to back when that is smaller); ``arena=false`` gives
    one storage per storage id (TVM's graph-executor plan: a dead tensor's
    storage goes to a free list, a new tensor takes the best-fitting free
    one). ``alignment`` (default 64) sets the alignment of offsets and
    storage.

    A function with control flow (``relay.if``, ``relay.while``) is left as
    ``memory-manifest-alloc`` made it: the VM allocates inside each region
    at run time (no planning across regions).

    Input: the output of ``memory-manifest-alloc`` (or of this pass: planning
    again gives the same plan); each ``memory.alloc_tensor``'s storage is a
    ``memory.alloc_storage`` of the same function used only by tensors.

    Output: new storage at the top of the function, the old storage erased,
    each tensor re-placed; attributes ``memory.planned_bytes`` (the planned
    storage, aligned) and ``memory.naive_bytes`` (one aligned storage per
    tensor) on the function. Kernel calls, kills and all other ops are
    unchanged.

    ```mlir
    // after memory-manifest-alloc, a chain x -> a -> b -> c of 16-byte tensors
    // becomes, with arena=true:
    func.func @main(...) -> tensor<4xf32>
        attributes {memory.planned_bytes = 128 : i64, memory.naive_bytes = 192 : i64} {
      %arena = memory.alloc_storage {size = 128 : i64, alignment = 64 : i64} : !memory.storage
      %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
      ...
      %b = memory.alloc_tensor %arena {offset = 64 : i64} : tensor<4xf32>
      ...
      %c = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
    ```
    """

    name = "memory-plan"
    arena: bool = True
    alignment: int = DEFAULT_ALIGNMENT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise MemoryPlanError(f"memory-plan: alignment {self.alignment} is not a power of two")
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and any(
                isinstance(o, AllocTensorOp) for o in fn.walk()
            ):
                if any(isinstance(o, IfOp | WhileOp) for o in fn.body.block.ops):
                    continue  # control flow: the VM allocates per region at run time
                _plan_function(fn, self.arena, self.alignment)
