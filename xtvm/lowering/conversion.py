"""The one conversion driver every lowering runs (MLIR's dialect conversion,
reduced to what xtvm needs).

A lowering is a list of rewrite patterns, one per source op or op family,
kept in the file of that op's category, plus a :class:`ConversionTarget`
that says which ops must not survive. :func:`apply_conversion` applies the
patterns greedily, then checks legality: every illegal op left over is
reported by name, location (``file:line:col`` when the IR was parsed from a
file) and text, with the pass and the pattern set that failed to lower it.

```python
from xtvm.lowering.conversion import ConversionTarget, apply_conversion

TARGET = ConversionTarget(illegal_dialects=frozenset({"tir", "arith", "math"}))
apply_conversion(module, populate_tir_to_llvm_patterns(), TARGET,
                 pass_name="convert-tir-to-llvm")
```

``partial=True`` is MLIR's partial conversion: ops no pattern lowers stay
where they are (so a module holding only some ops can be lowered, and a
lowering can be lit-tested one op family at a time), and the leftovers are
returned instead of raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.exceptions import DiagnosticException

from xtvm.ir import location_of, op_summary

MAX_REPORTED = 10
"""Illegal ops printed in full by a failed conversion; the rest are counted."""


class ConversionError(DiagnosticException):
    """A conversion left ops that its target declares illegal."""


@dataclass(frozen=True)
class ConversionTarget:
    """What a conversion must remove: ops of ``illegal_dialects``, ops of
    the ``illegal_ops`` classes, and ops ``illegal_if`` says are illegal —
    except ops of the ``legal_ops`` classes, which may always stay."""

    illegal_dialects: frozenset[str] = frozenset()
    illegal_ops: tuple[type[Operation], ...] = ()
    legal_ops: tuple[type[Operation], ...] = ()
    illegal_if: Callable[[Operation], bool] | None = None
    opaque: frozenset[str] = frozenset()
    """Ops (by name) whose regions hold nothing the conversion touches or
    forbids (e.g. the kernels, for a lowering of the graph function): the
    conversion and its legality check do not walk into them."""

    def is_illegal(self, op: Operation) -> bool:
        if self.legal_ops and isinstance(op, self.legal_ops):
            return False
        if op.dialect_name() in self.illegal_dialects:
            return True
        if self.illegal_ops and isinstance(op, self.illegal_ops):
            return True
        return self.illegal_if is not None and self.illegal_if(op)

    def illegal_ops_in(self, root: Operation) -> list[Operation]:
        """Every illegal op nested in ``root`` (outermost first)."""
        ops = self.walk(root) if self.opaque else root.walk()
        return [op for op in ops if op is not root and self.is_illegal(op)]

    def walk(self, root: Operation | Region) -> Iterator[Operation]:
        """``root``'s ops in pre-order, not entering ``opaque`` ones."""
        regions = [root]
        if isinstance(root, Operation):
            yield root
            if root.name in self.opaque:
                return
            regions = list(root.regions)
        for region in regions:
            for block in region.blocks:
                for op in block.ops:
                    yield from self.walk(op)


def legality_report(pass_name: str, leftovers: Sequence[Operation]) -> str:
    """The message naming each op a conversion failed to lower."""
    lines = [f"{pass_name}: {len(leftovers)} op(s) left unlowered (no pattern lowers them):"]
    for op in leftovers[:MAX_REPORTED]:
        where = location_of(op)
        lines.append(f"  {where + ': ' if where else ''}'{op.name}'")
        lines.append("    " + op_summary(op).replace("\n", "\n    "))
    if len(leftovers) > MAX_REPORTED:
        lines.append(f"  ... and {len(leftovers) - MAX_REPORTED} more")
    return "\n".join(lines)


def apply_conversion(
    module: ModuleOp,
    patterns: Sequence[RewritePattern],
    target: ConversionTarget,
    *,
    pass_name: str,
    partial: bool = False,
    walk_reverse: bool = False,
    apply_recursively: bool = True,
) -> list[Operation]:
    """Rewrite ``module`` with ``patterns`` (first match wins, no folding, no
    dead-code erasure), then check ``target``'s legality.

    Returns the illegal ops left over (empty after a full conversion);
    unless ``partial``, any leftover raises :class:`ConversionError`."""
    applier = GreedyRewritePatternApplier(list(patterns), dce_enabled=False)
    walker = PatternRewriteWalker(
        applier, apply_recursively=apply_recursively, walk_reverse=walk_reverse
    )
    if target.opaque and not walk_reverse:

        def populate(root: Operation | Region | Block) -> None:  # skips the opaque ops' insides
            if isinstance(root, Block):
                ops = [o for op in root.ops for o in target.walk(op)]
            else:
                ops = list(target.walk(root))
            for op in reversed(ops):  # a stack: the first op is popped first
                walker._worklist.push(op)

        walker._populate_worklist = populate  # type: ignore[method-assign]
    walker.rewrite_module(module)
    leftovers = target.illegal_ops_in(module)
    if leftovers and not partial:
        raise ConversionError(legality_report(pass_name, leftovers))
    return leftovers
