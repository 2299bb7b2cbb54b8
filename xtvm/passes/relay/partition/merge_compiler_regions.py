"""``relay-merge-compiler-regions``: grow regions of one target, never a cycle.

TVM's ``relay.transform.MergeCompilerRegions``. After
``relay-annotate-target`` every marked op is a region of its own; this pass
merges a marked op into the region of each marked producer of the same
target, greedily in program order, unless the merged region would both feed
and consume an op outside it: outlining such a region into one function
would need that op's result before the function has finished (a cycle).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from xtvm.passes.relay.partition.attrs import (
    REGION_ATTR,
    TARGET_ATTR,
    graph_functions,
    string_attr,
)


class _Regions:
    """Union-find over the marked ops of one block, with the cycle check."""

    def __init__(self, ops: Sequence[Operation]):
        self.ops = ops
        self.parent: dict[Operation, Operation] = {}
        self.members: dict[Operation, list[Operation]] = {}
        by_old: dict[int, Operation] = {}
        for op in ops:
            if TARGET_ATTR not in op.attributes:
                continue
            self.parent[op] = op
            self.members[op] = [op]
            old = op.attributes.get(REGION_ATTR)
            if isinstance(old, IntegerAttr):  # keep an earlier run's regions
                first = by_old.setdefault(old.value.data, op)
                if first is not op:
                    self.union(first, op)

    def find(self, op: Operation) -> Operation:
        while self.parent[op] is not op:
            self.parent[op] = self.parent[self.parent[op]]
            op = self.parent[op]
        return op

    def union(self, a: Operation, b: Operation) -> None:
        a, b = self.find(a), self.find(b)
        if a is not b:
            self.parent[b] = a
            self.members[a] += self.members.pop(b)

    def _reaches_through_outside(
        self, start: list[Operation], inside: set[Operation], goal: set[Operation]
    ) -> bool:
        """Whether a path leaves ``start`` through an op outside ``inside``
        and comes back into ``goal``."""
        todo = [
            use.operation
            for op in start
            for r in op.results
            for use in r.uses
            if use.operation not in inside
        ]
        seen: set[Operation] = set()
        while todo:
            op = todo.pop()
            if op in seen:
                continue
            seen.add(op)
            if op in goal:
                return True
            todo += [use.operation for r in op.results for use in r.uses]
        return False

    def can_merge(self, a: Operation, b: Operation) -> bool:
        """Merging the regions of ``a`` and ``b`` creates no cycle."""
        ra, rb = self.members[self.find(a)], self.members[self.find(b)]
        inside = {*ra, *rb}
        return not (
            self._reaches_through_outside(ra, inside, set(rb))
            or self._reaches_through_outside(rb, inside, set(ra))
        )


def merge_block(block: Block, next_id: int) -> int:
    """Merge the regions of one block; number them from ``next_id`` (in the
    order of their first op) and return the next free number."""
    ops = list(block.ops)
    regions = _Regions(ops)
    for op in ops:
        target = string_attr(op, TARGET_ATTR)
        if target is None:
            continue
        for operand in op.operands:
            producer = operand.owner
            if (
                isinstance(producer, Operation)
                and producer in regions.parent
                and string_attr(producer, TARGET_ATTR) == target
                and regions.find(producer) is not regions.find(op)
                and regions.can_merge(producer, op)
            ):
                regions.union(producer, op)
    ids: dict[Operation, int] = {}
    for op in ops:
        if op in regions.parent:
            root = regions.find(op)
            if root not in ids:
                ids[root] = next_id
                next_id += 1
            op.attributes[REGION_ATTR] = IntegerAttr(ids[root], i64)
    return next_id


@dataclass(frozen=True)
class MergeCompilerRegionsPass(ModulePass):
    """Group the ops marked ``relay.target`` into regions: ``relay.region = N``.

    Input: graph functions whose ops ``relay-annotate-target`` marked.

    Output: every marked op carries ``relay.region``; ops of one region have
    one target, and each region is as large as greedy merging along
    producer → consumer edges of one target allows (in program order)
    without a path that leaves the region and comes back into it. Regions
    are numbered in the order of their first op, from 0 across the module.

    Invariants: nothing but the ``relay.region`` attributes changes; an
    earlier run's regions are kept (so a second run changes nothing).

    ```mlir
    %a = relay.nn.relu %x {relay.target = "dnnl"} : ...
    %b = relay.nn.relu %a {relay.target = "dnnl"} : ...
    // becomes
    %a = relay.nn.relu %x {relay.region = 0 : i64, relay.target = "dnnl"} : ...
    %b = relay.nn.relu %a {relay.region = 0 : i64, relay.target = "dnnl"} : ...
    ```
    """

    name = "relay-merge-compiler-regions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        next_id = 0
        for function in graph_functions(op):
            for block in function.body.blocks:
                next_id = merge_block(block, next_id)
