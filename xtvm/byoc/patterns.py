"""Composite patterns: ``xtvm.rewrite`` rules whose result is a call of a
new composite function (TVM's ``MergeComposite`` pattern table).

``composite("dnnl.conv2d_bias_relu", Pat(ReluOp, Pat(BiasAddOp, Pat(Conv2dOp, "x", "w"), "b")))``
is a rule that outlines every match into ``func.func private
@composite_dnnl_conv2d_bias_relu(...)`` marked ``relay.composite =
"dnnl.conv2d_bias_relu"`` and replaces the match by a ``func.call`` of it.
Its parameters are the values the matched ops read from outside the match,
in the order the ops read them. A match is taken only in a graph function,
and only if no op of it but the root is used outside it.

The constraint helpers below are those the codegens' pattern tables share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import count

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.passes.relay.partition.attrs import COMPOSITE_ATTR, is_graph_function
from xtvm.rewrite import Constraint, Pat, Rule, rewrite, value_of
from xtvm.rewrite.pattern import Captures

_OP_NAME = "_op{}"


def _name_every_op(pat: Pat, counter: count) -> None:
    """Give every op of the pattern a capture name, so a match captures all its ops."""
    if pat.name is None:
        pat.name = _OP_NAME.format(next(counter))
    for operand in pat.operands:
        if isinstance(operand, Pat):
            _name_every_op(operand, counter)


def _matched_ops(captures: Captures) -> list[Operation]:
    """The matched ops, in program order."""
    ops = {c for c in captures.values() if isinstance(c, Operation)}
    block = captures["root"].parent
    assert block is not None
    return [op for op in block.ops if op in ops]


def _enclosing_function(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent


def _in_graph_function(captures: Captures) -> bool:
    function = _enclosing_function(captures["root"])
    return function is not None and is_graph_function(function)


def _only_root_escapes(captures: Captures) -> bool:
    ops = set(_matched_ops(captures))
    root = captures["root"]
    return all(
        use.operation in ops for op in ops if op is not root for r in op.results for use in r.uses
    )


IN_GRAPH_FUNCTION = Constraint("in_graph_function", (), _in_graph_function)
"""The match lies in a graph function (not in a fused, composite or
partitioned one)."""
ONLY_ROOT_ESCAPES = Constraint("only_root_escapes", (), _only_root_escapes)
"""No matched op but the root is used outside the match."""


def _outline(name: str, captures: Captures) -> func.CallOp:
    """A composite function computing the match (inserted after its graph
    function) and the call that replaces the match (returned, not inserted)."""
    ops = _matched_ops(captures)
    members = set(ops)
    root = captures["root"]
    inputs: list[SSAValue] = []
    for op in ops:
        for operand in op.operands:
            if operand.owner not in members and operand not in inputs:
                inputs.append(operand)
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = {}
    for i, (value, arg) in enumerate(zip(inputs, block.args)):
        arg.name_hint = f"p{i}"
        mapping[value] = arg
    for op in ops:
        block.add_op(op.clone(value_mapper=mapping))
    result = root.results[0]
    block.add_op(func.ReturnOp(mapping[result]))
    graph = _enclosing_function(root)
    assert graph is not None
    module = graph.parent_op()
    assert isinstance(module, ModuleOp)
    used = {o.sym_name.data for o in module.ops if isinstance(o, func.FuncOp)}
    symbol = "composite_" + name.replace(".", "_")
    unique, n = symbol, 0
    while unique in used:
        n += 1
        unique = f"{symbol}_{n}"
    function = func.FuncOp(
        unique, ([v.type for v in inputs], [result.type]), Region(block), visibility="private"
    )
    function.attributes[COMPOSITE_ATTR] = StringAttr(name)
    Rewriter.insert_op(function, InsertPoint.after(graph))
    call = func.CallOp(unique, inputs, [result.type])
    return call


def composite(
    name: str,
    pattern: Pat,
    when: Sequence[Constraint | Callable[..., bool]] = (),
    doc: str = "",
) -> Rule:
    """A rule outlining each match of ``pattern`` (where ``when`` holds) into
    a composite function named ``name`` (``"<codegen>.<what>"``)."""
    _name_every_op(pattern, count())
    return rewrite(
        pattern,
        when=[IN_GRAPH_FUNCTION, ONLY_ROOT_ESCAPES, *when],
        to=lambda **captures: _outline(name, captures),
        name=name,
        doc=doc or f"outline a match as composite '{name}'",
    )


def _shape(capture) -> tuple[int, ...] | None:
    ty = value_of(capture).type
    return tuple(ty.get_shape()) if isinstance(ty, TensorType) and ty.has_static_shape() else None


def channel_bias(bias: str, of: str, axis: int = 1) -> Constraint:
    """``bias`` adds one value per channel (``axis``) of ``of``'s result:
    shape ``[C]`` for a bias_add along ``axis``, or ``[C, 1, ...]`` /
    ``[1, C, 1, ...]`` (broadcast along the axes after ``axis``) for an add."""

    def check(captures: Captures) -> bool:
        out, b = _shape(captures[of]), _shape(captures[bias])
        if out is None or b is None or len(out) <= axis:
            return False
        channels = out[axis]
        trailing = (1,) * (len(out) - axis - 1)
        return b in {(channels, *trailing), (1, channels, *trailing)}

    return Constraint(f"channel_bias({bias!r}, {of!r}, axis={axis})", (bias, of), check)


def same_shape(a: str, b: str) -> Constraint:
    """``a`` and ``b`` have one static shape (an add without broadcasting)."""
    return Constraint(
        f"same_shape({a!r}, {b!r})",
        (a, b),
        lambda c: (s := _shape(c[a])) is not None and s == _shape(c[b]),
    )
