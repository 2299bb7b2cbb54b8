"""``relay-partition-graph``: outline each region as an external function.

TVM's ``relay.transform.PartitionGraph``. Every region of marked ops
(``relay-merge-compiler-regions``; an op marked but in no region is one by
itself) becomes ``func.func private @tvmgen_default_<target>_main_<n>``
with ``relay.compiler = "<target>"`` and ``relay.global_symbol`` (the
symbol its code will define), called from the graph with ``func.call``.
Composite calls left outside every region are inlined back: xtvm compiles
their ops as if they had never been grouped.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import count

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from xtvm.passes.relay.fuse_ops import outline
from xtvm.passes.relay.partition.attrs import (
    COMPILER_ATTR,
    COMPOSITE_ATTR,
    GLOBAL_SYMBOL_ATTR,
    REGION_ATTR,
    TARGET_ATTR,
    composite_callee,
    functions_by_name,
    graph_functions,
    string_attr,
)


def topological_sort(block: Block) -> None:
    """Reorder ``block``'s ops so that every op follows its operands'
    producers, moving as little as possible (a producer is pulled up before
    its first user); the terminator stays last."""
    ops = [op for op in block.ops if not op.has_trait(IsTerminator)]
    placed: set[Operation] = set()
    order: list[Operation] = []

    def visit(op: Operation) -> None:
        stack = [(op, False)]
        while stack:
            current, ready = stack.pop()
            if current in placed:
                continue
            if ready:
                placed.add(current)
                order.append(current)
                continue
            stack.append((current, True))
            operands = [v for inner in current.walk() for v in inner.operands]  # regions too
            for operand in reversed(operands):
                owner = operand.owner
                if isinstance(owner, Operation) and owner.parent is block and owner not in placed:
                    stack.append((owner, False))

    for op in ops:
        visit(op)
    terminator = block.last_op if block.last_op not in placed else None
    for op in order:
        op.detach()
    if terminator is not None:
        for op in order:
            block.insert_op_before(op, terminator)
    else:
        block.add_ops(order)


def inline_call(call: func.CallOp, callee: func.FuncOp) -> None:
    """Replace ``call`` by a copy of ``callee``'s body (a single block ending
    in ``func.return``)."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(callee.body.block.args, call.arguments))
    returned: list[SSAValue] = []
    for op in callee.body.block.ops:
        if isinstance(op, func.ReturnOp):
            returned = [mapping[v] for v in op.arguments]
            continue
        clone = op.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, InsertPoint.before(call))
    for old, new in zip(call.results, returned):
        if old.name_hint and not new.name_hint:
            new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    call.detach()
    call.erase()


def _regions(block: Block) -> list[tuple[str, list[Operation]]]:
    """The regions of a block (target, ops in program order), in the order
    of their last op."""
    groups: dict[object, list[Operation]] = {}
    for op in block.ops:
        if TARGET_ATTR not in op.attributes:
            continue
        region = op.attributes.get(REGION_ATTR)
        key = region.value.data if isinstance(region, IntegerAttr) else op
        groups.setdefault(key, []).append(op)
    position = {op: i for i, op in enumerate(block.ops)}
    ordered = sorted(groups.values(), key=lambda ops: position[ops[-1]])
    return [(string_attr(ops[0], TARGET_ATTR) or "", ops) for ops in ordered]


@dataclass(frozen=True)
class PartitionGraphPass(ModulePass):
    """Outline every region of marked ops into an external function.

    Input: graph functions whose ops ``relay-annotate-target`` marked
    (``relay.target``), grouped by ``relay-merge-compiler-regions``
    (``relay.region``) or not (then each marked op is its own region).

    Output: each region is ``func.func private
    @tvmgen_default_<target>_main_<n>`` (``n`` counts regions across the
    module) with ``relay.compiler = "<target>"`` and ``relay.global_symbol``
    set to its name, placed after its graph function and called where the
    region's last op was (ops that used its results before that point move
    after the call); its parameters are the values the region reads
    (weights included), its results the values used outside it. Inside it,
    ops lose their ``relay.target``/``relay.region`` marks. Composite calls
    outside every region are inlined, and composite functions nothing calls
    any more are erased.

    Invariants: the graph computes the same values; no op outside an
    external function keeps a mark. Running it again changes nothing.

    ```mlir
    %a = relay.nn.relu %x {relay.region = 0 : i64, relay.target = "dnnl"} : tensor<4xf32>
    %s = relay.nn.softmax %a : tensor<4xf32>
    // becomes
    %a = func.call @tvmgen_default_dnnl_main_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %s = relay.nn.softmax %a : tensor<4xf32>
    func.func private @tvmgen_default_dnnl_main_0(%p0: tensor<4xf32>) -> tensor<4xf32>
        attributes {relay.compiler = "dnnl",
                    relay.global_symbol = "tvmgen_default_dnnl_main_0"} {...}
    ```
    """

    name = "relay-partition-graph"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        taken = set(functions_by_name(op))
        numbers = count(
            sum(1 for f in op.ops if isinstance(f, func.FuncOp) and COMPILER_ATTR in f.attributes)
        )
        for function in graph_functions(op):
            insert_after: Operation = function
            for block in function.body.blocks:
                for target, members in _regions(block):
                    name = f"tvmgen_default_{target}_main_{next(numbers)}"
                    while name in taken:
                        name = f"tvmgen_default_{target}_main_{next(numbers)}"
                    taken.add(name)
                    new = outline(
                        members,
                        name,
                        {COMPILER_ATTR: StringAttr(target), GLOBAL_SYMBOL_ATTR: StringAttr(name)},
                        drop=(TARGET_ATTR, REGION_ATTR),
                    )
                    Rewriter.insert_op(new, InsertPoint.after(insert_after))
                    insert_after = new
                topological_sort(block)
        functions = functions_by_name(op)
        for function in graph_functions(op):
            for inner in list(function.body.walk()):
                callee = composite_callee(inner, functions)
                if callee is not None:
                    inline_call(inner, callee)  # type: ignore[arg-type]
        called = {
            inner.callee.string_value()
            for inner in op.walk()
            if isinstance(inner, func.CallOp)
        }
        for function in list(op.ops):
            if COMPOSITE_ATTR in function.attributes and function.sym_name.data not in called:
                op.body.block.erase_op(function)
