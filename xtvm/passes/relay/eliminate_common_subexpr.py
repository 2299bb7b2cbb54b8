"""``relay-eliminate-common-subexpr``: merge relay ops that compute the same value.

TVM's ``relay.transform.EliminateCommonSubexpr``. Walking each block in
order, a pure relay op with the same name, operands, properties (defaults
included), attributes and result types as an earlier op of the block is
replaced by that earlier op. ``relay.const``s merge when their values have
the same type and the same bytes. Since operands are compared after earlier
merges, whole repeated subgraphs collapse in one walk.

This is not a local rewrite (it needs a table of every op seen), so it is a
walk rather than declarative rules.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from xtvm.dialects.relay import RelayOp


def _key(op: RelayOp) -> Hashable:
    """What two ops must share to compute the same value (xDSL stores omitted
    properties with their default values, so ``{strides = array<i64: 1, 1>}``
    and no ``strides`` compare equal)."""
    return (
        op.name,
        tuple(op.operands),
        tuple(sorted(op.properties.items())),
        tuple(sorted(op.attributes.items())),
        tuple(op.result_types),
    )


def _mergeable(op: Operation) -> bool:
    return isinstance(op, RelayOp) and op.has_trait(Pure) and not op.regions


def eliminate_common_subexpr(block: Block) -> None:
    """Merge the repeated relay ops of ``block`` into their first occurrence."""
    seen: dict[Hashable, Operation] = {}
    for op in list(block.ops):
        if not _mergeable(op):
            continue
        assert isinstance(op, RelayOp)
        first = seen.setdefault(_key(op), op)
        if first is op:
            continue
        for old, new in zip(op.results, first.results, strict=True):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()


@dataclass(frozen=True)
class EliminateCommonSubexprPass(ModulePass):
    """Replace each pure relay op that repeats an earlier op of its block by
    that op.

    Input: any module.

    Output: within a block, no two pure relay ops have the same name,
    operands, properties (an omitted property equals its default),
    attributes and result types; in particular no two ``relay.const``s hold
    the same type and bytes. The first occurrence is kept, with its name.

    Invariants: every value keeps its type and its value; ops with effects
    (``relay.call_lowered``) and non-relay ops are never merged. Commutative
    operands are not reordered (``add(x, y)`` and ``add(y, x)`` stay two ops,
    as in TVM), and equal values in different blocks are not merged.

    ```mlir
    %a = relay.nn.relu %x : tensor<4xf32>
    %b = relay.nn.relu %x : tensor<4xf32>
    %c = relay.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // becomes
    %a = relay.nn.relu %x : tensor<4xf32>
    %c = relay.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name = "relay-eliminate-common-subexpr"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = [b for nested in op.walk() for r in nested.regions for b in r.blocks]
        for block in blocks:
            eliminate_common_subexpr(block)
