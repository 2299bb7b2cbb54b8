"""``convert-relay-to-tir``: relay compute ops become ``tir.prim_func`` kernels
called from the graph with ``relay.call_lowered`` (TVM's ``LowerTE``), as
conversion patterns run by :func:`xtvm.lowering.conversion.apply_conversion`.

The patterns of each relay op are in the lowering's file of the op's category
(``tensor``, ``nn``, ``conv``, ``packed``, ..., named like the relay
dialect's files); :data:`CATEGORIES` lists them.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer

from xtvm.dialects import relay
from xtvm.dialects.relay.primitive import is_primitive
from xtvm.lowering.conversion import ConversionTarget, apply_conversion
from xtvm.lowering.relay_to_tir import (
    algorithm,
    bitcast,
    conv,
    creation,
    dynamic,
    einsum,
    image,
    indexing,
    layout,
    linalg,
    logical,
    math,
    nn,
    packed,
    pool,
    reduce,
    scatter,
    tensor,
    transform,
    winograd,
)
from xtvm.lowering.relay_to_tir.base import PASS_NAME, ComputeFn, lowering_error
from xtvm.lowering.relay_to_tir.kernel import GRAPH_OPS, KernelBuilder
from xtvm.lowering.relay_to_tir.patterns import (
    Kernels,
    LowerKernelCall,
    LowerOp,
    LowerOpByClass,
    LowerPrimitiveFunction,
)
from xtvm.transform import PassContext

CATEGORIES = (
    tensor,
    math,
    logical,
    reduce,
    nn,
    conv,
    pool,
    algorithm,
    transform,
    indexing,
    scatter,
    layout,
    packed,
    creation,
    image,
    einsum,
    dynamic,
    bitcast,
    linalg,
    winograd,
)
"""The category files of the lowering, one per relay dialect file that
defines compute ops; each holds ``PATTERNS`` (one per op or op family) and
``OPS`` (the ops they lower)."""

PATTERNS: tuple[LowerOp, ...] = tuple(p for c in CATEGORIES for p in c.PATTERNS)
"""Every relay op's lowering."""

COMPUTES: dict[str, ComputeFn] = {op.name: p.compute for p in PATTERNS for op in p.ops}
"""Relay op name → its te compute, read from :data:`PATTERNS`."""


def category_name(category: ModuleType) -> str:
    """A category's name: its file's (``tensor`` for ``.../tensor.py``)."""
    return category.__name__.rsplit(".", 1)[-1]


def patterns_of(names: Sequence[str]) -> tuple[LowerOp, ...]:
    """The lowerings of the named categories (in :data:`CATEGORIES` order)."""
    known = [category_name(c) for c in CATEGORIES]
    if unknown := [n for n in names if n not in known]:
        raise lowering_error(
            f"unknown categor{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)} "
            f"(categories: {', '.join(known)})"
        )
    return tuple(p for c in CATEGORIES if category_name(c) in names for p in c.PATTERNS)


SCHEDULES_KEY = "tir.apply_schedules"
"""The ``PassContext`` config that gives ``schedules`` when the pass's
option is not set (``PassContext(config={"tir.apply_schedules": False})``)."""

TARGET = ConversionTarget(
    illegal_ops=(relay.RelayOp,),
    legal_ops=(*GRAPH_OPS, relay.IfOp, relay.WhileOp),
    illegal_if=is_primitive,
)
"""What must not survive: relay compute ops (every relay op but
``relay.const``, ``relay.tuple``, ``relay.tuple_get`` and
``relay.call_lowered``) and primitive functions."""


def populate_relay_to_tir_patterns(
    op_patterns: Sequence[LowerOp] = PATTERNS, *, schedules: bool = True
) -> list[RewritePattern]:
    """The conversion's patterns: primitive functions → ``tir.prim_func``,
    their calls → ``relay.call_lowered``, and ``op_patterns`` (the ops they
    lower, alone or inside primitive functions), all sharing one kernel
    builder; ``schedules=False`` keeps the kernels' default loop nests."""
    computes = {op.name: p.compute for p in op_patterns for op in p.ops}
    kernels = Kernels(KernelBuilder(computes, schedules))
    return [
        LowerPrimitiveFunction(kernels),
        LowerKernelCall(),
        LowerOpByClass.of([p.bound(kernels) for p in op_patterns]),
    ]


_VALUE_NAME = re.compile(r"%[A-Za-z0-9_.$-]+")


def structural_key(fn: func.FuncOp) -> str:
    """The sha256 of a function's text with its name and its values' names
    left out: equal keys, the same computation (TVM's structural hash of a
    primitive function, the key of its ``TECompiler`` cache)."""
    out = io.StringIO()
    Printer(stream=out).print_op(fn)
    text = out.getvalue().replace(f"@{fn.sym_name.data}(", "@_(", 1)
    names: dict[str, str] = {}
    text = _VALUE_NAME.sub(lambda m: names.setdefault(m.group(0), f"%{len(names)}"), text)
    return hashlib.sha256(text.encode()).hexdigest()


def merge_identical_primitives(module: ModuleOp) -> dict[str, str]:
    """Primitive functions equal up to names (ResNet's repeated blocks)
    become the first of them: its calls are redirected and the others
    erased, so each computation lowers and compiles once. Returns the
    merged names (erased → kept)."""
    first: dict[str, str] = {}
    merged: dict[str, str] = {}
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and is_primitive(op):
            kept = first.setdefault(structural_key(op), op.sym_name.data)
            if kept != op.sym_name.data:
                merged[op.sym_name.data] = kept
                module.body.block.erase_op(op)
    if merged:
        for op in module.walk():
            if isinstance(op, func.CallOp) and op.callee.string_value() in merged:
                op.callee = SymbolRefAttr(merged[op.callee.string_value()])
    return merged


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

    Primitive functions equal up to names (:func:`structural_key`) lower to
    one kernel that each of their calls names (ResNet's repeated blocks: 58
    fused groups, 29 kernels).

    Each kernel gets the schedule its computes name (:mod:`xtvm.topi.x86`);
    ``convert-relay-to-tir{schedules=false}`` keeps the default loop nests.

    Invariants after the pass: graph functions hold only ``relay.const``,
    ``relay.tuple``, ``relay.tuple_get``, ``relay.call_lowered``, calls of
    other graph functions and control flow (``relay.if``, ``relay.while``,
    whose bodies hold the same); a relay op that no pattern lowers is an error
    naming it and its location (``partial=true`` leaves it, and a primitive
    function holding it, in place; ``categories=...`` lowers the ops of some
    categories only). Shapes must be static; a non-scalar
    constant inside a primitive function is an error (constants are graph
    parameters).
    """

    name = PASS_NAME

    schedules: bool | None = None
    """Apply the x86 schedules the computes name (``schedules=false``: the
    default loop nests); unset, the ``PassContext`` config
    ``tir.apply_schedules`` decides (default true)."""

    partial: bool = False
    """Leave the ops no pattern lowers instead of failing (a partial conversion)."""

    categories: tuple[str, ...] = ()
    """Lower only the ops of these category files (``categories=tensor,nn``),
    e.g. to test one category; all of them when empty."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        schedules = self.schedules
        if schedules is None:
            schedules = bool(PassContext.current().config.get(SCHEDULES_KEY, True))
        op_patterns = patterns_of(self.categories) if self.categories else PATTERNS
        merge_identical_primitives(op)
        apply_conversion(
            op,
            populate_relay_to_tir_patterns(op_patterns, schedules=schedules),
            TARGET,
            pass_name=self.name,
            partial=self.partial,
        )
