"""``relay-fuse-ops``: group ops into primitive functions, one kernel each.

TVM's ``relay.transform.FuseOps``. The partition (which ops fuse) is TVM's
post-dominator algorithm, in :mod:`.graph_partition`; this module turns each
group into a private ``func.func`` marked ``relay.primitive`` and calls it
from the graph function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.relay import CallLoweredOp, ConstOp, RelayOp, TupleGetOp, TupleOp
from xtvm.dialects.relay.primitive import (
    PRIMITIVE_ATTR,
    is_primitive,
    kernel_name,
    unique_name,
)
from xtvm.passes.relay.graph_partition import GraphPartitioner, Group, forward_graph
from xtvm.transform import PassContext

MAX_DEPTH_CONFIG = "relay.FuseOps.max_depth"
DEFAULT_MAX_DEPTH = 256


def _fusable(op: Operation) -> bool:
    """Ops that a group may contain: relay ops that compute (not constants,
    already lowered calls, control flow or non-relay ops)."""
    return (
        isinstance(op, RelayOp)
        and not isinstance(op, ConstOp | CallLoweredOp)
        and not op.regions
    )


class _Namer:
    """Unique kernel names in a module: ``fused_add``, ``fused_add_1``, ..."""

    def __init__(self, module: ModuleOp):
        self.used = {
            name.data
            for op in module.walk()
            if isinstance(name := op.properties.get("sym_name"), StringAttr)
        }

    def __call__(self, ops: Sequence[Operation]) -> str:
        """The name of the kernel computing ``ops``, reserved."""
        name = unique_name(kernel_name(*(op.name for op in ops)), self.used)
        self.used.add(name)
        return name


def outline(
    members: list[Operation],
    name: str,
    attributes: Mapping[str, Attribute],
    drop: Sequence[str] = (),
) -> func.FuncOp:
    """Replace ``members`` (in program order) by a call of a new private
    function ``name`` computing them, marked with ``attributes`` (the ops'
    own attributes named in ``drop`` are left out of the copies); return
    that function. Fusion outlines primitive functions with it, BYOC's
    relay-partition-graph external ones."""
    member_set = set(members)
    inputs: list[SSAValue] = []
    for op in members:
        for operand in op.operands:
            if operand.owner not in member_set and operand not in inputs:
                inputs.append(operand)
    outputs = [
        r
        for op in members
        for r in op.results
        if any(use.operation not in member_set for use in r.uses)
    ]
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = {}
    for i, (value, arg) in enumerate(zip(inputs, block.args)):
        arg.name_hint = f"p{i}"
        mapping[value] = arg
    for op in members:
        clone = op.clone(value_mapper=mapping)
        for attr in drop:
            clone.attributes.pop(attr, None)
        block.add_op(clone)
    block.add_op(func.ReturnOp(*(mapping[v] for v in outputs)))
    function = func.FuncOp(
        name,
        ([v.type for v in inputs], [v.type for v in outputs]),
        Region(block),
        visibility="private",
    )
    function.attributes.update(attributes)
    # A group's outputs are used after its last op only (post-dominance).
    call = func.CallOp(name, inputs, [v.type for v in outputs])
    Rewriter.insert_op(call, InsertPoint.before(members[-1]))
    for old, new in zip(outputs, call.results):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    for op in reversed(members):
        op.detach()
        op.erase()
    return function


def fuse_block(block: Block, max_depth: int, fuse: bool, namer: _Namer) -> list[func.FuncOp]:
    """Partition ``block``'s ops and outline every group; the new functions.
    With ``fuse`` false every op is its own group (TVM at opt level 0)."""
    ops = [op for op in block.ops if not op.has_trait(IsTerminator)]
    nodes = forward_graph(ops)
    partitioner = GraphPartitioner(nodes, max_depth)
    groups = partitioner.partition() if fuse else partitioner.groups
    members: dict[Group, list[Operation]] = {}
    for node, group in zip(nodes, groups):
        members.setdefault(group.find_root(), []).append(node.op)
    position = {op: i for i, op in enumerate(ops)}
    functions = []
    # In the order of their last ops, so a group's inputs are already outlined.
    for group_ops in sorted(members.values(), key=lambda g: position[g[-1]]):
        if not all(_fusable(op) for op in group_ops):
            continue  # constants, lowered calls and non-relay ops stay unfused
        # A kernel takes tensors: fields of a tuple made outside the group
        # (a relay.if's result, a graph input) are read before the call.
        inside = set(group_ops)
        group_ops = [
            op
            for op in group_ops
            if not (isinstance(op, TupleGetOp) and op.tuple.owner not in inside)
        ]
        if not group_ops:
            continue
        if all(isinstance(op, TupleOp | TupleGetOp) for op in group_ops):
            continue  # nothing to compute: tuples stay in the graph
        functions.append(outline(group_ops, namer(group_ops), {PRIMITIVE_ATTR: UnitAttr()}))
    # Control flow (relay.if, relay.while) is a boundary: its bodies fuse on their own.
    for op in ops:
        for region in op.regions:
            for inner in region.blocks:
                functions += fuse_block(inner, max_depth, fuse, namer)
    return functions


def _max_depth(option: int | None) -> int:
    depth = option
    if depth is None:
        depth = PassContext.current().config.get(MAX_DEPTH_CONFIG, DEFAULT_MAX_DEPTH)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise PassFailedException(
            f"relay-fuse-ops: max-depth must be a positive integer, got {depth!r}"
        )
    return depth


@dataclass(frozen=True)
class FuseOpsPass(ModulePass):
    """Fuse the ops of every graph function into primitive functions.

    Input: graph functions (``func.func`` not marked ``relay.primitive``) of
    relay ops with inferred types (``relay-infer-type``).

    Output: each group that TVM's FuseOps rules form (see
    :mod:`.graph_partition`), a single op included, is a
    ``func.func private @fused_<op names>`` with the unit attribute
    ``relay.primitive``, placed after its graph function and called with
    ``func.call`` where the group's last op was. Its parameters (``%p0``...)
    are the values the group reads, constants included; its results are the
    values used outside the group.

    Invariants: at most ``max-depth`` ops a group (option, else PassContext
    config ``relay.FuseOps.max_depth``, else 256); ``relay.const``,
    ``relay.call_lowered``, non-relay ops and groups of only tuple ops stay in
    the graph function; at ``PassContext(opt_level=0)`` every op is its own
    group. Control flow ops (``relay.if``, ``relay.while``) stay in the graph
    and fuse with nothing; the blocks of their regions are fused the same
    way, their groups called there. Running the pass again changes nothing.

    ```mlir
    func.func @main(%x: tensor<1x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>)
        -> tensor<1x4xf32> {
      %d = relay.nn.dense %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
      %e = relay.nn.bias_add %d, %b : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
      %r = relay.nn.relu %e : tensor<1x4xf32>
      func.return %r : tensor<1x4xf32>
    }
    // becomes
    func.func @main(%x: tensor<1x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>)
        -> tensor<1x4xf32> {
      %r = func.call @fused_nn_dense_nn_bias_add_nn_relu(%x, %w, %b) : (...) -> tensor<1x4xf32>
      func.return %r : tensor<1x4xf32>
    }
    func.func private @fused_nn_dense_nn_bias_add_nn_relu(%p0: tensor<1x8xf32>,
        %p1: tensor<4x8xf32>, %p2: tensor<4xf32>) -> tensor<1x4xf32>
        attributes {relay.primitive} {
      %d = relay.nn.dense %p0, %p1 : ...
      %e = relay.nn.bias_add %d, %p2 : ...
      %r = relay.nn.relu %e : tensor<1x4xf32>
      func.return %r : tensor<1x4xf32>
    }
    ```
    """

    name = "relay-fuse-ops"

    max_depth: int | None = None
    """Most ops a group may hold (TVM's ``relay.FuseOps.max_depth``)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        max_depth = _max_depth(self.max_depth)
        fuse = PassContext.current().opt_level > 0
        namer = _Namer(op)
        graph_functions = [
            f
            for f in op.ops
            if isinstance(f, func.FuncOp)
            and not f.is_declaration
            and not is_primitive(f)
        ]
        for function in graph_functions:
            insert_after: Operation = function
            for block in function.body.blocks:
                for new in fuse_block(block, max_depth, fuse, namer):
                    Rewriter.insert_op(new, InsertPoint.after(insert_after))
                    insert_after = new
