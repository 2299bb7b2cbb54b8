"""TVM's fusion partitioner: which ops of a dataflow graph form one kernel.

A faithful port of ``src/relay/transforms/fuse_ops.cc`` (``IndexedForwardGraph``,
``DominatorTree``, ``GraphPartitioner``) onto a block of xDSL ops:

1. The forward graph has one node per op, in program order (a topological
   order), with an edge to every consumer. An edge's pattern is the
   consumer's pattern kind, except that a broadcast op whose operand has
   its result's shape is elementwise along that edge. A value used outside
   the graph (``func.return``, another block) marks its node ``extern_ref``.
2. The post-dominator tree gives each node the nearest node every path to
   an output goes through (the least common ancestor of its consumers), and
   the strongest edge pattern on the way.
3. Three phases merge a node into its post-dominator's group when every op
   on the paths in between allows it:

   * phase 0: an out-elemwise-fusable anchor (dense, matmul, conv2d) takes
     the elementwise/broadcast ops after it; an elementwise/broadcast op
     joins an injective or reducing post-dominator;
   * phase 1: injective ops (and tuples) join injective post-dominators;
   * phase 2: injective ops join tuples that were fused into a later
     injective op.

   A merge is refused if the group would exceed ``max_depth`` ops. Opaque
   ops (and constants) are never merged. One rule is xtvm's, not TVM's: an
   anchor's group stops before a cast widening its 8-bit result when the
   ops after the cast meet a later anchor's result in a binary op (a
   quantized downsample branch and its residual add): the result is then
   stored as 8 bits, the dequantize fused into the later anchor's kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from xtvm.dialects.relay import ConstOp, OpPattern, RelayOp


PathCondition = Callable[[OpPattern, bool], bool]
"""Whether a group of this pattern may lie on a fused path (``True``: it is the sink)."""


@dataclass(eq=False)
class Node:
    """An op of the forward graph and its consumers (with edge patterns)."""

    index: int
    op: Operation
    pattern: OpPattern
    outputs: list[tuple[Node, OpPattern]] = field(default_factory=list)
    extern_ref: bool = False


@dataclass(eq=False)
class DomNode:
    """A node's place in the post-dominator tree."""

    node: Node
    parent: DomNode | None
    depth: int
    pattern: OpPattern


@dataclass(eq=False)
class Group:
    """A union-find set of nodes that become one fused function."""

    pattern: OpPattern
    anchor: Operation | None
    num_nodes: int = 1
    parent: Group | None = None

    def find_root(self) -> Group:
        root = self
        while root.parent is not None:
            root = root.parent
        node = self
        while node.parent is not None:  # path compression
            node.parent, node = root, node.parent
        return root


def _pattern(op: Operation) -> OpPattern:
    return op.PATTERN if isinstance(op, RelayOp) else OpPattern.OPAQUE


def _edge_pattern(consumer: Operation, operand_type: object) -> OpPattern:
    pattern = _pattern(consumer)
    if pattern == OpPattern.BROADCAST and consumer.results:
        result_type = consumer.results[0].type
        if (
            isinstance(operand_type, TensorType)
            and isinstance(result_type, TensorType)
            and operand_type.get_shape() == result_type.get_shape()
        ):
            return OpPattern.ELEMWISE
    return pattern


def forward_graph(ops: Sequence[Operation]) -> list[Node]:
    """The indexed forward graph of ``ops`` (in program order)."""
    nodes = [Node(i, op, _pattern(op)) for i, op in enumerate(ops)]
    by_op = {node.op: node for node in nodes}
    for node in nodes:
        for operand in node.op.operands:
            if (producer := by_op.get(operand.owner)) is not None:  # type: ignore[arg-type]
                producer.outputs.append((node, _edge_pattern(node.op, operand.type)))
        node.extern_ref = any(
            use.operation not in by_op for result in node.op.results for use in result.uses
        )
    return nodes


def _lca(
    lhs: DomNode | None, rhs: DomNode | None, pattern: OpPattern
) -> tuple[DomNode | None, OpPattern]:
    """The least common ancestor of two tree nodes, and the patterns on the way."""
    while lhs is not rhs:
        if lhs is None or rhs is None:
            return None, pattern
        if lhs.depth < rhs.depth:
            pattern = max(pattern, rhs.pattern)
            rhs = rhs.parent
        elif rhs.depth < lhs.depth:
            pattern = max(pattern, lhs.pattern)
            lhs = lhs.parent
        else:
            pattern = max(pattern, lhs.pattern, rhs.pattern)
            lhs, rhs = lhs.parent, rhs.parent
    return lhs, pattern


def post_dominator_tree(nodes: Sequence[Node]) -> list[DomNode]:
    """Each node's immediate post-dominator and the edge pattern towards it."""
    tree: list[DomNode | None] = [None] * len(nodes)
    for node in reversed(nodes):
        if node.extern_ref or not node.outputs:
            tree[node.index] = DomNode(node, None, 1, OpPattern.OPAQUE)
            continue
        first, pattern = node.outputs[0]
        parent: DomNode | None = tree[first.index]
        for consumer, edge in node.outputs[1:]:
            parent, pattern = _lca(parent, tree[consumer.index], pattern)
            pattern = max(pattern, edge)
        depth = parent.depth + 1 if parent is not None else 1
        tree[node.index] = DomNode(node, parent, depth, pattern)
    return tree  # type: ignore[return-value]


class GraphPartitioner:
    """Groups the nodes of a forward graph into fusable sets."""

    def __init__(self, nodes: Sequence[Node], max_depth: int):
        self.nodes = nodes
        self.max_depth = max_depth
        self.groups = [
            Group(n.pattern, n.op if n.pattern == OpPattern.OUT_ELEMWISE_FUSABLE else None)
            for n in nodes
        ]
        self._visited: set[Node] = set()
        self._index = {node.op: node.index for node in nodes}

    def partition(self) -> list[Group]:
        """Run the three fusion phases; every node's group is ``find_root()``
        of its entry in the returned list."""
        tree = post_dominator_tree(self.nodes)
        for phase in range(3):
            self._run_fuse(tree, phase)
        return self.groups

    # -- path checks and merges (CheckPath, CommitFuse, CountFusedNodesWithNewChild)

    def _check_path(self, src: Node, sink: Node, fcond: PathCondition) -> bool:
        self._visited = set()
        return all(self._check_path_from(n, sink, fcond) for n, _ in src.outputs)

    def _check_path_from(self, src: Node, sink: Node, fcond: PathCondition) -> bool:
        if src in self._visited:
            return True
        self._visited.add(src)
        group = self.groups[src.index].find_root()
        if not fcond(group.pattern, src is sink):
            return False
        if src is sink:
            return True
        return all(self._check_path_from(n, sink, fcond) for n, _ in src.outputs)

    def _merge(self, child: Group, parent: Group) -> None:
        child, parent = child.find_root(), parent.find_root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        child.parent = parent
        if child.anchor is not None:
            parent.anchor = child.anchor
            parent.pattern = max(child.pattern, parent.pattern)

    def _commit_fuse(self, src: Node, sink: Node) -> None:
        target = self.groups[sink.index]
        self._visited = set()
        self._commit_fuse_from(src, sink, target)

    def _commit_fuse_from(self, src: Node, sink: Node, target: Group) -> None:
        if src is sink or src in self._visited:
            return
        self._visited.add(src)
        self._merge(self.groups[src.index], target)
        for n, _ in src.outputs:
            self._commit_fuse_from(n, sink, target)

    def _count_up_to_sink(self, src: Node, sink: Node) -> int:
        if src is sink or src in self._visited:
            return 0
        self._visited.add(src)
        total = self.groups[src.index].num_nodes
        return total + sum(self._count_up_to_sink(n, sink) for n, _ in src.outputs)

    def _count_fused_with(self, child: Node, dom_parent: Node) -> int:
        self._visited = set()
        target = self.groups[dom_parent.index].find_root()
        return target.num_nodes + self._count_up_to_sink(child, dom_parent)

    def _leaves_narrow(self, group: Group, sink: Node) -> bool:
        """Whether an anchor's group must end before ``sink`` (xtvm's rule, not
        TVM's): ``sink`` casts an 8-bit value to a wider type, and the
        elementwise ops after it meet, in a binary op, the result of a later
        anchor, whose group takes that binary op. Fused here, the anchor's
        result would be stored wide (a quantized residual branch as float32,
        four times the bytes); left out, the cast and the ops after it fuse
        into the later anchor's group and the result is stored as 8 bits."""
        anchor = group.find_root().anchor
        if anchor is None or not _widens_bytes(sink.op):
            return False
        index = self._index
        node, path = sink, {sink}
        while len(node.outputs) == 1 and node.outputs[0][0].pattern <= OpPattern.BROADCAST:
            node = node.outputs[0][0]
            path.add(node)
            others = [
                self.nodes[index[v.owner]]
                for v in node.op.operands
                if v.owner in index
                and not isinstance(v.owner, ConstOp)
                and self.nodes[index[v.owner]] not in path
            ]
            if others:
                later = self._anchors_before(others)
                return any(index[a] > index[anchor] for a in later)
        return False

    def _anchors_before(self, nodes: list[Node]) -> list[Operation]:
        """The anchors whose results reach ``nodes`` through elementwise and
        broadcast ops only."""
        index = self._index
        found, stack, seen = [], list(nodes), set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node.pattern == OpPattern.OUT_ELEMWISE_FUSABLE:
                found.append(node.op)
            elif node.pattern <= OpPattern.BROADCAST:
                stack += [self.nodes[index[v.owner]] for v in node.op.operands if v.owner in index]
        return found

    # -- the fusion rules (RunFuse)

    def _run_fuse(self, tree: Sequence[DomNode], phase: int) -> None:
        for node in self.nodes:
            group = self.groups[node.index]
            dom = tree[node.index]
            if group.pattern == OpPattern.OPAQUE or dom.parent is None:
                continue
            sink = dom.parent.node
            if self._count_fused_with(node, sink) > self.max_depth:
                continue
            sink_group = self.groups[sink.index]
            if phase == 2:
                self._fuse_into_tuple(node, group, sink, sink_group)
                continue
            if group.find_root() is sink_group.find_root():
                continue
            if sink_group.pattern == OpPattern.TUPLE:
                continue
            if self._leaves_narrow(group, sink):
                continue
            if group.pattern == OpPattern.OUT_ELEMWISE_FUSABLE:
                # An anchor takes elementwise/broadcast ops that follow it.
                if phase == 0 and dom.pattern == OpPattern.ELEMWISE:
                    if self._check_path(node, sink, lambda k, _: k <= OpPattern.BROADCAST):
                        self._commit_fuse(node, sink)
            elif group.pattern <= OpPattern.BROADCAST:
                if dom.pattern <= OpPattern.INJECTIVE or dom.pattern == OpPattern.COMM_REDUCE:
                    if self._check_path(node, sink, _broadcast_path):
                        self._commit_fuse(node, sink)
            elif group.pattern in (OpPattern.INJECTIVE, OpPattern.TUPLE):
                # Deferred to phase 1 so that anchors finish fusing first.
                if phase == 1 and self._check_path(
                    node, sink, lambda k, _: k <= OpPattern.INJECTIVE
                ):
                    self._commit_fuse(node, sink)

    def _fuse_into_tuple(self, node: Node, group: Group, sink: Node, sink_group: Group) -> None:
        if group.pattern > OpPattern.INJECTIVE:
            return
        sink_root = sink_group.find_root()
        if sink_root.pattern == OpPattern.TUPLE:
            return
        if sink_group.pattern == OpPattern.TUPLE and sink_root.pattern <= OpPattern.INJECTIVE:
            if self._check_path(node, sink, lambda k, _: k <= OpPattern.INJECTIVE):
                self._commit_fuse(node, sink)


def _widens_bytes(op: Operation) -> bool:
    """Whether ``op`` casts an 8-bit tensor to a wider type (a dequantize's first step)."""
    if op.name != "relay.cast" or not isinstance(op.operands[0].type, TensorType):
        return False
    source = getattr(op.operands[0].type.element_type, "bitwidth", None)
    result = getattr(op.results[0].type.element_type, "bitwidth", None)
    return source == 8 and result is not None and result > 8


def _broadcast_path(kind: OpPattern, is_sink: bool) -> bool:
    """Ops between an elementwise/broadcast op and its post-dominator: injective
    on parallel branches; the sink may also reduce or be an anchor's group."""
    if not is_sink:
        return kind <= OpPattern.INJECTIVE
    return kind <= OpPattern.INJECTIVE or kind in (
        OpPattern.COMM_REDUCE,
        OpPattern.OUT_ELEMWISE_FUSABLE,
    )
