"""The memory plan of a graph function as the graph executor wants it: a
storage id and an arena offset for every data entry.

Graph codegen calls :func:`storage_plan` on the lowered graph function and
emits ``storage_id`` and ``storage_offset`` (see ``docs/abi.md``):

```python
plan = storage_plan(fn)
storage_ids = [plan.storage_ids[v] for v in entry_values]
storage_offsets = [plan.offsets[v] for v in entry_values]
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import SSAValue

from xtvm.dialects.memory import DEFAULT_ALIGNMENT
from xtvm.passes.memory.liveness import analyze_liveness, static_nbytes
from xtvm.passes.memory.planner import Lifetime, naive_bytes, plan_arena, plan_storage_ids


@dataclass(frozen=True)
class StoragePlan:
    """Where each tensor of a graph function lives, in both executor layouts.

    Keys are the function's tensor values: its arguments, ``relay.const``
    results, and ``relay.call_lowered`` (or ``memory.alloc_tensor``) results.
    ``relay.tuple``/``relay.tuple_get`` results have no entry of their own.
    """

    storage_ids: dict[SSAValue, int]
    """Storage id of each tensor (TVM's ``GraphPlanMemory``)."""
    storage_bytes: list[int]
    """Byte size of each storage id."""
    offsets: dict[SSAValue, int]
    """Byte offset of each tensor in one arena (aligned)."""
    arena_bytes: int
    """Size of that arena."""
    naive_bytes: int
    """Bytes of one aligned buffer per tensor, for comparison."""
    intermediate_arena_bytes: int
    """Bytes of the arena the kernel outputs alone need (no inputs, no constants)."""
    intermediate_bytes: int
    """Sum of the kernel outputs' aligned sizes: what planning saves against."""


def storage_plan(fn: func.FuncOp, alignment: int = DEFAULT_ALIGNMENT) -> StoragePlan:
    """Plan a straight-line graph function's tensors for the graph executor.

    Graph inputs and constants live for the whole run (inputs are set before
    it, parameters once at load), so each gets storage of its own. Kernel
    outputs share storage when their lifetimes do not overlap; returned
    tensors live to the end, so no later kernel overwrites them. Raises
    :class:`~xtvm.passes.memory.liveness.MemoryPlanError` for control flow or
    a tensor without a static size.
    """
    live = analyze_liveness(fn)
    values: list[SSAValue] = []
    lifetimes: list[Lifetime] = []
    for k, v in enumerate(live.external):
        what = f"graph input {k}" if k < len(fn.args) else "a relay.const"
        values.append(v)
        lifetimes.append(live.whole_program(static_nbytes(v, what)))
    intermediates = list(live.lifetimes.values())
    values += list(live.lifetimes)
    lifetimes += intermediates
    ids, sizes = plan_storage_ids(lifetimes)
    offsets, arena = plan_arena(lifetimes, alignment)
    return StoragePlan(
        storage_ids=dict(zip(values, ids, strict=True)),
        storage_bytes=sizes,
        offsets=dict(zip(values, offsets, strict=True)),
        arena_bytes=arena,
        naive_bytes=naive_bytes(lifetimes, alignment),
        intermediate_arena_bytes=plan_arena(intermediates, alignment)[1],
        intermediate_bytes=naive_bytes(intermediates, alignment),
    )
