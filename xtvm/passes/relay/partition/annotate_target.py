"""``relay-annotate-target``: mark the ops an external codegen takes.

TVM's ``relay.transform.AnnotateTarget``. Where TVM wraps each supported op
in ``compiler_begin``/``compiler_end`` annotations, this pass sets the
op's ``relay.target`` attribute; an op no codegen takes stays unmarked and
is compiled by xtvm.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xtvm.byoc.registry import ExternalCodegen, get_codegen, targets_of
from xtvm.dialects.relay import ConstOp, RelayOp
from xtvm.passes.relay.partition.attrs import (
    COMPOSITE_ATTR,
    TARGET_ATTR,
    composite_callee,
    functions_by_name,
    graph_functions,
    string_attr,
)


def _target_of(
    op: Operation, codegens: list[ExternalCodegen], functions: dict[str, func.FuncOp]
) -> str | None:
    """The first codegen that takes ``op``: a composite call goes to the
    codegen its name starts with (if that one is a target and accepts it)."""
    callee = composite_callee(op, functions)
    if callee is not None:
        name = string_attr(callee, COMPOSITE_ATTR) or ""
        owner = name.split(".", 1)[0]
        return next(
            (c.name for c in codegens if c.name == owner and c.supports(op, name)), None
        )
    if not isinstance(op, RelayOp) or isinstance(op, ConstOp):
        return None
    return next((c.name for c in codegens if c.supports(op)), None)


@dataclass(frozen=True)
class AnnotateTargetPass(ModulePass):
    """Set ``relay.target = "<codegen>"`` on every op of a graph function that
    one of ``targets`` accepts (the first, in the order given).

    Input: relay graph functions, composites merged or not.

    Output: the same IR; an op of a graph function's blocks (not one nested
    in a ``relay.if``/``relay.while``) that a codegen's predicate accepts (a
    predicate may read the op's attributes and shapes) and each
    ``func.call`` of a composite function whose codegen is a target and
    accepts it carries ``relay.target``. Constants, tuples the codegens do not list, calls of
    other functions and ``func.return`` are never marked.

    Invariants: nothing else changes; an op already marked keeps its mark.
    ``targets`` (option, e.g. ``targets=dnnl,ccompiler``) else the
    ``PassContext`` config ``relay.ext.targets``; none: no change.

    ```mlir
    %r = relay.nn.relu %x : tensor<1x8xf32>
    // becomes, with targets=dnnl
    %r = relay.nn.relu %x {relay.target = "dnnl"} : tensor<1x8xf32>
    ```
    """

    name = "relay-annotate-target"

    targets: tuple[str, ...] = ()
    """The codegens, in order of preference (default: the PassContext's)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        codegens = [get_codegen(t) for t in targets_of(self.targets)]
        if not codegens:
            return
        functions = functions_by_name(op)
        for function in graph_functions(op):
            for block in function.body.blocks:  # not inside relay.if/while: no region spans them
                for inner in block.ops:
                    if TARGET_ATTR in inner.attributes:
                        continue
                    target = _target_of(inner, codegens, functions)
                    if target is not None:
                        inner.attributes[TARGET_ATTR] = StringAttr(target)
