"""The rewrite patterns of ``convert-relay-to-tir`` (TVM's ``LowerTE`` as
conversion patterns).

* :class:`LowerOp`, made by :func:`lower`: one per relay op (or op family),
  declared in the category file of the op (``tensor.py`` for
  ``relay.add``, as ``xtvm/dialects/relay/tensor.py`` defines it). It holds
  the op's te compute, which lowers the op wherever it is: a graph-level op
  becomes a call of its own kernel ``fused_<op>``, and a primitive function
  computes the op with it.
* :class:`LowerPrimitiveFunction`: a ``func.func`` marked ``relay.primitive``
  (a group outlined by ``relay-fuse-ops``) → a ``tir.prim_func`` of the same
  name, from the computes of the ops it holds.
* :class:`LowerKernelCall`: ``func.call`` of a ``tir.prim_func`` →
  ``relay.call_lowered``.

The patterns of one conversion share one :class:`Kernels` (the kernel
builder with its options, and the single-op kernels already made), and the
op lowerings run indexed by op class (:class:`LowerOpByClass`):
:func:`~xtvm.lowering.relay_to_tir.convert_relay_to_tir.populate_relay_to_tir_patterns`
binds them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TupleType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from xtvm.dialects import relay, tir
from xtvm.dialects.relay.primitive import is_primitive, kernel_name, unique_name
from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.lowering.relay_to_tir.kernel import (
    KERNEL_REUSE,
    PRIMITIVE_KEY_ATTR,
    KernelBuilder,
    flat_result_types,
)
from xtvm.passes.memory.concat_in_place import CONCATENATE_AXIS_ATTR


def _top_level(op: Operation) -> Operation:
    """The ancestor of ``op`` that sits directly in the module (its function)."""
    while (parent := op.parent_op()) is not None and not isinstance(parent, ModuleOp):
        op = parent
    return op


def _module_symbols(top: Operation) -> set[str]:
    """The symbol names defined at the top level of ``top``'s module."""
    block = top.parent_block()
    assert block is not None
    return {
        s.data for o in block.ops if isinstance(s := o.properties.get("sym_name"), StringAttr)
    }


@dataclass
class Kernels:
    """One conversion's kernel builder and the kernels it made for single
    graph-level ops: one per distinct (op, attributes, types), named
    ``fused_<op>`` with a numeric suffix when the name is taken."""

    builder: KernelBuilder
    by_key: dict[tuple[object, ...], str] = field(default_factory=dict)

    def for_op(self, op: relay.RelayOp, compute: ComputeFn, rewriter: PatternRewriter) -> str:
        """The name of ``op``'s kernel, built (before ``op``'s function) on
        first use."""
        key = (
            op.name,
            tuple(sorted((k, str(v)) for k, v in op.properties.items())),
            tuple(str(v.type) for v in op.operands),
            tuple(str(t) for t in op.inferred_types()),
        )
        if key not in self.by_key:
            graph_fn = _top_level(op)
            name = unique_name(kernel_name(op.name), _module_symbols(graph_fn))
            kernel = self.builder.single_op(op, compute, name)
            rewriter.insert(kernel, InsertPoint.before(graph_fn))
            self.by_key[key] = name
        return self.by_key[key]


def _call_lowered(
    rewriter: PatternRewriter,
    op: Operation,
    callee: str,
    args: list[SSAValue],
) -> None:
    """Replace ``op`` by ``relay.call_lowered @callee(args)``; a tuple result is
    rebuilt with ``relay.tuple`` from the kernel's flat outputs."""
    result_types = [r.type for r in op.results]
    call = relay.CallLoweredOp(callee, args, flat_result_types(result_types))
    new_ops: list[Operation] = [call]
    values: list[SSAValue] = []
    flat = iter(call.res)
    for ty in result_types:
        if isinstance(ty, TupleType):
            tup = relay.TupleOp([next(flat) for _ in ty.types])
            new_ops.append(tup)
            values.append(tup.result)
        else:
            values.append(next(flat))
    rewriter.replace(op, new_ops, values)


@dataclass(frozen=True)
class LowerOp(RewritePattern):
    """The lowering of one relay op (family): its te ``compute``.

    As a pattern, it rewrites a graph-level op of one of ``ops`` (one in a
    function that is not primitive) into ``relay.call_lowered`` of its own
    kernel; ops inside primitive functions are lowered with their function.
    It runs bound to a conversion's :class:`Kernels` (:meth:`bound`)."""

    ops: tuple[type[relay.RelayOp], ...]
    compute: ComputeFn
    kernels: Kernels | None = None

    def bound(self, kernels: Kernels) -> LowerOp:
        """This lowering, making its kernels with ``kernels``."""
        return replace(self, kernels=kernels)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in self.ops or is_primitive(_top_level(op)):
            return
        if self.kernels is None:
            raise RuntimeError(
                f"the lowering of '{op.name}' is not bound to a conversion: take the "
                "patterns from populate_relay_to_tir_patterns"
            )
        assert isinstance(op, relay.RelayOp)
        callee = self.kernels.for_op(op, self.compute, rewriter)
        _call_lowered(rewriter, op, callee, list(op.operands))


def lower(
    ops: type[relay.RelayOp] | tuple[type[relay.RelayOp], ...], compute: ComputeFn
) -> LowerOp:
    """The lowering of the relay op class ``ops`` (or of each class of a
    family) by ``compute``: one entry of a category's ``PATTERNS``."""
    return LowerOp(ops if isinstance(ops, tuple) else (ops,), compute)


def ops_of(patterns: Sequence[LowerOp]) -> tuple[type[relay.RelayOp], ...]:
    """The relay op classes ``patterns`` lower (a category's op list)."""
    return tuple(op for p in patterns for op in p.ops)


@dataclass(frozen=True)
class LowerOpByClass(RewritePattern):
    """Op lowerings tried only on ops of their classes: one dict look-up per
    op instead of one call per lowering (MLIR's pattern applicator indexes
    patterns by their root op the same way)."""

    by_class: Mapping[type[Operation], LowerOp]

    @staticmethod
    def of(patterns: Sequence[LowerOp]) -> LowerOpByClass:
        """The index of ``patterns``; an op lowered twice is an error."""
        by_class: dict[type[Operation], LowerOp] = {}
        for p in patterns:
            for op in p.ops:
                if op in by_class:
                    raise ValueError(f"'{op.name}' has two lowering patterns")
                by_class[op] = p
        return LowerOpByClass(by_class)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (pattern := self.by_class.get(type(op))) is not None:
            pattern.match_and_rewrite(op, rewriter)


def concatenate_axis(fn: func.FuncOp) -> int | None:
    """The axis of a primitive function whose body only concatenates its
    arguments, each once, in order (``memory-concat-in-place`` may then
    place them in its output); else None."""
    block = fn.body.block
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(concat := ops[0], relay.ConcatenateOp):
        return None
    ret = ops[1]
    if not isinstance(ret, func.ReturnOp) or list(ret.arguments) != [concat.result]:
        return None
    if list(concat.inputs) != list(block.args):
        return None
    rank = len(concat.result.type.get_shape())  # type: ignore[attr-defined]
    return concat.axis.value.data % rank


@dataclass(frozen=True)
class LowerPrimitiveFunction(RewritePattern):
    """A primitive function → the ``tir.prim_func`` of the same name, when
    every op it holds has a lowering (else it stays, for the legality check
    to report the ops without one)."""

    kernels: Kernels

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        if not (is_primitive(op) and self.kernels.builder.can_lower(op)):
            return
        reuse = KERNEL_REUSE.get()
        key, stub = reuse.lookup(op) if reuse is not None else (None, None)
        if stub is not None:  # its object is cached: not lowered (xtvm/codegen/stubs.py)
            rewriter.replace(op, stub, [])
            return
        kernel = self.kernels.builder.primitive_function(op)
        if (axis := concatenate_axis(op)) is not None:
            kernel.attributes[CONCATENATE_AXIS_ATTR] = IntegerAttr(axis, i64)
        if key is not None:
            kernel.attributes[PRIMITIVE_KEY_ATTR] = StringAttr(key)
        rewriter.replace(op, kernel, [])


class LowerKernelCall(RewritePattern):
    """``func.call @f(...)`` of a ``tir.prim_func @f`` (a lowered primitive
    function) → ``relay.call_lowered @f(...)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        callee = op.callee.root_reference.data
        block = _top_level(op).parent_block()
        assert block is not None
        for o in block.ops:
            if isinstance(o, tir.PrimFuncOp) and o.sym_name.data == callee:
                _call_lowered(rewriter, op, callee, list(op.arguments))
                return
