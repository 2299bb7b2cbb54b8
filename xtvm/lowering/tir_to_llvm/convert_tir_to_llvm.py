"""`convert-tir-to-llvm`: every `tir.prim_func` becomes two `llvm.func`s.

The conversion is a set of rewrite patterns run by the project's conversion
driver (`xtvm/lowering/conversion.py`) with a legality check:

* `LowerPrimFunc` (here), one per `tir.prim_func`: the structural ops of
  its body — `tir.for` (serial, unrolled, vectorized, parallel), `tir.if`,
  `tir.load`, `tir.store`, `tir.allocate`, `tir.assert`, `tir.call_extern`,
  `tir.call_intrin`, `tir.return`, `tir.yield` — are lowered by it, in one
  walk of the body that builds the control-flow graph (`function.py`,
  `vectorize.py`, `parallel.py`); they are not patterns of their own;
* one `ScalarPattern` per `arith`/`math` op family (`arith.py`, `math.py`):
  inside a prim_func, `LowerPrimFunc` applies each op's family lowering as
  it reaches the op (through `scalar.LOWERINGS`); outside any prim_func, on
  llvm-typed values, the pattern rewrites the op in place.

Adding a scalar op's lowering is one row (or one family class) in its
category file; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.conversion import (
    ConversionError,
    ConversionTarget,
    apply_conversion,
    legality_report,
)
from xtvm.lowering.tir_to_llvm.function import (
    ModuleLowering,
    impl_name,
    lower_prim_func,
    unlowered_ops,
)
from xtvm.lowering.tir_to_llvm.packed_api import packed_entry
from xtvm.lowering.tir_to_llvm.parallel import openmp_support
from xtvm.lowering.tir_to_llvm.scalar import scalar_patterns
from xtvm.lowering.tir_to_llvm.types import PTR, LoweringError

PASS_NAME = "convert-tir-to-llvm"

TARGET = ConversionTarget(illegal_dialects=frozenset({"tir", "arith", "math"}))
"""No `tir`, `arith` or `math` op survives the conversion."""


class LowerPrimFunc(RewritePattern):
    """`tir.prim_func @NAME` → `llvm.func @NAME_impl` and `llvm.func @NAME`
    (the packed entry point), in its place; outlined parallel loop bodies and
    called external functions are collected in `state` for `finish_module`.
    A prim_func whose body holds an op that nothing lowers is left as it is."""

    def __init__(self, state: ModuleLowering):
        self.state = state

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PrimFuncOp, rewriter: PatternRewriter) -> None:
        if EXTERNAL_SOURCE_ATTR in op.attributes:
            rewriter.replace(op, [external_impl(op), packed_entry(op)], [])
            return
        if CACHED_OBJECT_ATTR in op.attributes:
            self.state.uses_openmp |= USES_OPENMP_ATTR in op.attributes
            rewriter.replace(op, [cached_entry(op)], [])
            return
        if unlowered_ops(op):
            return
        try:
            impl = lower_prim_func(op, self.state)
            entry = packed_entry(op)
        except LoweringError as e:
            e.op = e.op or op
            raise
        if KERNEL_KEY_ATTR in op.attributes:
            entry.attributes[KERNEL_KEY_ATTR] = op.attributes[KERNEL_KEY_ATTR]
        self.state.kernels.append(impl)
        rewriter.replace(op, [impl, entry], [])


EXTERNAL_SOURCE_ATTR = "tir.external_source"
"""An external kernel (BYOC, ``relay-external-codegen``): its ``_impl`` is C
source the prim_func carries instead of a body."""


KERNEL_KEY_ATTR = "xtvm.kernel_key"
"""Set by ``xtvm.build`` on a prim_func (never in a printed stage): the key
of its object in the kernel cache (:func:`xtvm.codegen.objects.kernel_key`,
the sha256 of the prim_func's text, the target and the code generator's
source). The lowered packed entry carries it, so that code generation files
the kernel's object under it too."""

CACHED_OBJECT_ATTR = "xtvm.cached_object"
"""With ``KERNEL_KEY_ATTR``: the kernel's object is in the cache already, so
the prim_func is not lowered; it becomes the declaration of its packed entry
(carrying the key), whose object code generation takes from the cache."""

USES_OPENMP_ATTR = "xtvm.uses_openmp"
"""With ``CACHED_OBJECT_ATTR``: the cached object calls the OpenMP runtime
(the module then needs ``openmp_support``, as a lowered parallel loop does)."""


def cached_entry(op: PrimFuncOp) -> llvm.FuncOp:
    """The declaration of a cached kernel's packed entry ``@NAME`` (its
    ``_impl`` and parallel bodies are in the cached object too)."""
    decl = llvm.FuncOp(
        op.sym_name.data,
        llvm.LLVMFunctionType([PTR, i32], i32),
        linkage=llvm.LinkageAttr("external"),
    )
    decl.attributes[KERNEL_KEY_ATTR] = op.attributes[KERNEL_KEY_ATTR]
    decl.attributes[CACHED_OBJECT_ATTR] = op.attributes[CACHED_OBJECT_ATTR]
    return decl


def external_impl(op: PrimFuncOp) -> llvm.FuncOp:
    """The declaration of an external kernel's ``NAME_impl`` (one pointer per
    buffer, ``i32`` result), carrying its C source and link flags
    (``xtvm.external_source``, ``xtvm.external_link``, ``xtvm.external_ops``)
    for code generation; a declaration ``convert-memory-to-llvm`` made for
    its calls is replaced."""
    symbol = impl_name(op)
    module = op.parent_op()
    if module is not None:
        for other in list(module.regions[0].block.ops):
            if isinstance(other, llvm.FuncOp) and other.sym_name.data == symbol:
                other.detach()
                other.erase()
    decl = llvm.FuncOp(
        symbol,
        llvm.LLVMFunctionType([PTR] * len(op.args), i32),
        linkage=llvm.LinkageAttr("external"),
    )
    for key in ("source", "link", "ops"):
        value = op.attributes.get(f"tir.external_{key}")
        if value is not None:
            decl.attributes[f"xtvm.external_{key}"] = value
    return decl


def tir_to_llvm_patterns(state: ModuleLowering) -> list[RewritePattern]:
    """The patterns of one conversion, sharing `state`."""
    return [LowerPrimFunc(state), *scalar_patterns(state.externs)]


def convert_tir_to_llvm(module: ModuleOp, partial: bool = False) -> list[Operation]:
    """Lower `module`'s prim_funcs and scalar ops (see `ConvertTirToLlvmPass`).

    Returns the ops left unlowered because no pattern lowers them, with the
    prim_funcs holding them (empty after a full conversion); unless
    `partial`, any raises `ConversionError` naming each with its location.
    (The driver runs partially so that the report can leave out the ops of
    a kept prim_func that do have a lowering: `blocking_ops`.) Raises
    `LoweringError` for a construct a pattern rejects (e.g. one external
    function called with two signatures).
    """
    state = ModuleLowering()
    leftovers = apply_conversion(
        module,
        tir_to_llvm_patterns(state),
        TARGET,
        pass_name=PASS_NAME,
        partial=True,
        apply_recursively=False,  # every pattern produces llvm ops only
    )
    unlowered = blocking_ops(leftovers)
    if unlowered and not partial:
        raise ConversionError(legality_report(PASS_NAME, unlowered))
    finish_module(module, state)
    return unlowered


def blocking_ops(leftovers: Sequence[Operation]) -> list[Operation]:
    """What the legality report names: a prim_func left whole, then the ops
    in it that no pattern lowers (not every op it holds); any other illegal
    op left over, itself."""
    blocking: list[Operation] = []
    kept: list[PrimFuncOp] = []
    for op in leftovers:
        if any(func.is_ancestor(op) for func in kept):
            continue
        blocking.append(op)
        if isinstance(op, PrimFuncOp):
            kept.append(op)
            blocking += unlowered_ops(op)
    return blocking


def _drop_forward_declarations(module: ModuleOp) -> None:
    """Erase body-less ``llvm.func``s that the module now defines (e.g. the
    ``_impl`` declarations ``convert-memory-to-llvm`` makes for its calls)."""
    funcs = [op for op in module.ops if isinstance(op, llvm.FuncOp)]
    defined = {op.sym_name.data for op in funcs if op.body.blocks}
    for op in funcs:
        if not op.body.blocks and op.sym_name.data in defined:
            op.detach()
            op.erase()


def finish_module(module: ModuleOp, state: ModuleLowering) -> None:
    """Add what the lowered kernels share: the external function declarations
    and OpenMP support before the first kernel, outlined parallel bodies at
    the end. Raises `LoweringError` on a symbol defined twice."""
    _drop_forward_declarations(module)
    shared: list[Operation] = openmp_support(state) if state.uses_openmp else []
    new_funcs = [op for op in [*shared, *state.outlined] if isinstance(op, llvm.FuncOp)]
    names = [op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)]
    names += [op.sym_name.data for op in new_funcs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise LoweringError(
            f"{PASS_NAME}: the symbol(s) {', '.join(twice)} would be defined twice "
            "(a prim_func named like another kernel's generated functions); rename it"
        )
    clashes = sorted(set(names) & set(state.externs.signatures))
    if clashes:
        raise LoweringError(
            f"{PASS_NAME}: {', '.join(clashes)} is both a kernel symbol and an "
            "external function called by a kernel; rename the prim_func"
        )
    shared = [*state.externs.declarations(), *shared]
    if state.kernels:
        Rewriter.insert_op(shared, InsertPoint.before(state.kernels[0]))
    else:  # only scalar ops were lowered, in place
        module.body.block.add_ops(shared)
    module.body.block.add_ops(state.outlined)


@dataclass(frozen=True)
class ConvertTirToLlvmPass(ModulePass):
    """Lower `tir` (with `arith` and `math`) to xDSL's `llvm` dialect.

    Input: a module of `tir.prim_func`s (buffers of any rank; flattening first
    is optional). Output: for each `@NAME`, in its place,

    * `llvm.func @NAME_impl(%A: !llvm.ptr {llvm.noalias}, ...) -> i32`, the
      loop program as a control-flow graph (see `function.py`), returning 0
      or the code of the failed `tir.assert`;
    * `llvm.func @NAME(%args: !llvm.ptr, %num_args: i32) -> i32`, the packed
      entry point that checks every DLTensor argument (docs/abi.md, see
      `packed_api.py`) before calling `NAME_impl`;

    plus one `llvm.func` declaration per external function called (libm,
    `aligned_alloc`/`free`), and, for parallel loops, their outlined bodies
    and OpenMP glue (see `parallel.py`). `arith`/`math` ops outside
    prim_funcs on llvm types (`f32`, `i32`, ...) become llvm ops in place;
    other ops of the module are left alone.

        tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>) { ... }
      becomes
        llvm.func @addone_impl(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}) -> i32
        llvm.func @addone(%args: !llvm.ptr, %num_args: i32) -> i32

    Invariant: no `tir`, `arith` or `math` op remains. If one does because
    no pattern lowers it (an op with no lowering keeps its prim_func whole),
    the pass fails, naming the prim_func and each such op with its location.
    With `partial=true` (MLIR's partial conversion) it leaves them in place
    and lowers the rest.
    """

    name = PASS_NAME

    partial: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            convert_tir_to_llvm(op, self.partial)
        except LoweringError as e:
            error = PassFailedException(str(e))
            error.op = e.op  # type: ignore[attr-defined]  # where xtvm-opt reports it
            raise error from e
