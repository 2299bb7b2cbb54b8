"""``convert-relay-to-tir``: relay compute ops become ``tir.prim_func`` kernels
called from the graph with ``relay.call_lowered`` (TVM's ``LowerTE``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, TupleType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from xtvm.dialects import relay
from xtvm.lowering.relay_to_tir.base import lowering_error
from xtvm.lowering.relay_to_tir.kernel import (
    GRAPH_OPS,
    flat_result_types,
    lower_primitive_function,
    lower_single_op,
)
from xtvm.lowering.relay_to_tir.schedule import CONFIG_KEY as SCHEDULES_KEY
from xtvm.transform import PassContext

PRIMITIVE = "relay.primitive"
"""The unit attribute marking a fused group outlined by ``relay-fuse-ops``."""


def is_primitive(op: Operation) -> bool:
    return isinstance(op, func.FuncOp) and PRIMITIVE in op.attributes


def kernel_name(op_name: str) -> str:
    """TVM's kernel name of one op: ``relay.nn.dense`` → ``fused_nn_dense``."""
    return "fused_" + op_name.removeprefix("relay.").replace(".", "_")


@dataclass
class _Kernels:
    """The kernels of single graph-level ops: one per distinct (op, attributes,
    types), named ``fused_<op>`` with a numeric suffix when taken."""

    module: ModuleOp
    taken: set[str]
    by_key: dict[tuple[object, ...], str] = field(default_factory=dict)

    def get(self, op: relay.RelayOp, rewriter: PatternRewriter) -> str:
        key = (
            op.name,
            tuple(sorted((k, str(v)) for k, v in op.properties.items())),
            tuple(str(v.type) for v in op.operands),
            tuple(str(t) for t in op.inferred_types()),
        )
        if key not in self.by_key:
            base = name = kernel_name(op.name)
            n = 0
            while name in self.taken:
                n += 1
                name = f"{base}_{n}"
            self.taken.add(name)
            graph_fn = op.parent_op()
            while graph_fn is not None and graph_fn.parent_op() is not self.module:
                graph_fn = graph_fn.parent_op()
            assert graph_fn is not None
            rewriter.insert(lower_single_op(op, name), InsertPoint.before(graph_fn))
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


@dataclass
class LowerPrimitiveCall(RewritePattern):
    """``func.call @fused_f(...)`` of a lowered primitive function →
    ``relay.call_lowered @fused_f(...)``."""

    lowered: set[str]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        callee = op.callee.root_reference.data
        if callee in self.lowered:
            _call_lowered(rewriter, op, callee, list(op.arguments))


@dataclass
class LowerGraphOp(RewritePattern):
    """A relay compute op left in a graph function (not fused) → a call of its
    own kernel ``fused_<op>``."""

    kernels: _Kernels

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, relay.RelayOp) or isinstance(op, GRAPH_OPS):
            return
        _call_lowered(rewriter, op, self.kernels.get(op, rewriter), list(op.operands))


@dataclass(frozen=True)
class ConvertRelayToTirPass(ModulePass):
    """Lower relay compute ops to ``tir.prim_func`` kernels (TVM's ``LowerTE``).

    Input: ``func.func`` graph functions of relay ops, possibly with fused
    groups outlined by ``relay-fuse-ops`` as ``func.func private @fused_...``
    with the unit attribute ``relay.primitive``, called with ``func.call``.

    Output: each primitive function becomes ``tir.prim_func`` of the same name
    (arguments: the inputs ``p0, p1, ...``, then the outputs; its body: the
    topi computes, elementwise stages inlined, see ``xtvm.te.placement``); each
    call becomes ``relay.call_lowered``. A relay op left in a graph function
    becomes its own kernel ``fused_<op>`` (``relay.nn.dense`` →
    ``fused_nn_dense``; identical ops share one kernel, other name clashes get
    ``_1``, ``_2``, ...).

    ```mlir
    func.func private @fused_nn_dense_nn_relu(%p0: tensor<1x8xf32>, %p1: tensor<4x8xf32>) -> tensor<1x4xf32>
        attributes {relay.primitive} { ... }
    %y = func.call @fused_nn_dense_nn_relu(%x, %w) : (...) -> tensor<1x4xf32>
    ```
    becomes
    ```mlir
    tir.prim_func @fused_nn_dense_nn_relu(%p0: memref<1x8xf32>, %p1: memref<4x8xf32>, %T_relu: memref<1x4xf32>)
        attributes {arg_names = ["p0", "p1", "T_relu"]} { ... }
    %y = relay.call_lowered @fused_nn_dense_nn_relu(%x, %w) : (...) -> tensor<1x4xf32>
    ```

    Each kernel gets the schedule its computes name (:mod:`xtvm.topi.x86`);
    ``convert-relay-to-tir{schedules=false}`` keeps the default loop nests.

    Invariants after the pass: graph functions hold only ``relay.const``,
    ``relay.tuple``, ``relay.tuple_get``, ``relay.call_lowered`` and calls of
    other graph functions. Shapes must be static; a non-scalar constant inside
    a primitive function is an error (constants are graph parameters).
    """

    name = "convert-relay-to-tir"

    schedules: bool = True
    """Apply the x86 schedules the computes name (``schedules=false``: the
    default loop nests, as ``PassContext`` config ``tir.apply_schedules``)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.schedules:
            self._lower(op)
            return
        current = PassContext.current()
        with replace(current, config={**current.config, SCHEDULES_KEY: False}):
            self._lower(op)

    def _lower(self, op: ModuleOp) -> None:
        primitives = [f for f in op.body.block.ops if is_primitive(f)]
        for fn in primitives:
            assert isinstance(fn, func.FuncOp)
            if fn.is_declaration:
                raise lowering_error(f"primitive function @{fn.sym_name.data} has no body", fn)
            fn.parent_block().insert_op_before(lower_primitive_function(fn), fn)  # type: ignore[union-attr]
        lowered = {f.sym_name.data for f in primitives}  # type: ignore[union-attr]
        for fn in primitives:
            fn.detach()
            fn.erase()
        taken = {
            s.data
            for o in op.body.block.ops
            if isinstance(s := o.properties.get("sym_name"), StringAttr)
        }
        patterns = GreedyRewritePatternApplier(
            [LowerPrimitiveCall(lowered), LowerGraphOp(_Kernels(op, taken))],
            dce_enabled=False,
        )
        PatternRewriteWalker(patterns, apply_recursively=False).rewrite_module(op)
        for leftover in op.walk():
            if isinstance(leftover, relay.RelayOp) and not isinstance(leftover, GRAPH_OPS):
                raise lowering_error(f"'{leftover.name}' was left unlowered", leftover)
