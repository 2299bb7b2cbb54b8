"""`convert-tir-to-llvm`: every `tir.prim_func` becomes two `llvm.func`s."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.tir_to_llvm.function import ModuleLowering, lower_prim_func
from xtvm.lowering.tir_to_llvm.packed_api import packed_entry
from xtvm.lowering.tir_to_llvm.parallel import openmp_support
from xtvm.lowering.tir_to_llvm.types import LoweringError

SOURCE_DIALECTS = ("tir", "arith", "math")
"""Dialects that must not survive the conversion."""


def convert_module(module: ModuleOp) -> None:
    """Replace each prim_func of `module` by its `_impl` and packed functions and
    declare the external functions they call. Raises `LoweringError`."""
    state = ModuleLowering()
    funcs = [op for op in module.ops if isinstance(op, PrimFuncOp)]
    new_ops: list[Operation] = []
    for func in funcs:
        new_ops += [lower_prim_func(func, state), packed_entry(func)]
    new_ops += state.outlined
    if state.uses_openmp:
        new_ops = openmp_support(state) + new_ops
    names = [op.sym_name.data for op in new_ops if isinstance(op, llvm.FuncOp)]
    names += [op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise LoweringError(
            f"convert-tir-to-llvm: the symbol(s) {', '.join(twice)} would be defined twice "
            "(a prim_func named like another kernel's generated functions); rename it"
        )
    clashes = sorted(set(names) & set(state.externs.signatures))
    if clashes:
        raise LoweringError(
            f"convert-tir-to-llvm: {', '.join(clashes)} is both a kernel symbol and an "
            "external function called by a kernel; rename the prim_func"
        )
    for func in funcs:
        func.detach()
        func.erase()
    module.body.block.add_ops([*state.externs.declarations(), *new_ops])


def check_converted(module: ModuleOp) -> None:
    """Fail, printing the op, if any tir/arith/math op survived."""
    for op in module.walk():
        if op.dialect_name() in SOURCE_DIALECTS:
            raise PassFailedException(f"convert-tir-to-llvm: {op.name} was not converted:\n{op!s}")


@dataclass(frozen=True)
class ConvertTirToLlvmPass(ModulePass):
    """Lower `tir` (with `arith` and `math`) to xDSL's `llvm` dialect.

    Input: a module of `tir.prim_func`s (buffers of any rank; flattening first
    is optional). Output: for each `@NAME`,

    * `llvm.func @NAME_impl(%A: !llvm.ptr {llvm.noalias}, ...) -> i32`, the
      loop program as a control-flow graph (see `function.py`), returning 0
      or the code of the failed `tir.assert`;
    * `llvm.func @NAME(%args: !llvm.ptr, %num_args: i32) -> i32`, the packed
      entry point that checks every DLTensor argument (docs/abi.md, see
      `packed_api.py`) before calling `NAME_impl`;

    plus one `llvm.func` declaration per external function called (libm,
    `aligned_alloc`/`free`), and, for parallel loops, their outlined bodies
    and OpenMP glue (see `parallel.py`). Other ops of the module are left alone. After
    the conversion no `tir`, `arith` or `math` op remains; if one does (or an
    op has no lowering) the pass fails and prints it.

        tir.prim_func @addone(%A: memref<3xf32>, %B: memref<3xf32>) { ... }
      becomes
        llvm.func @addone_impl(%A: !llvm.ptr {llvm.noalias}, %B: !llvm.ptr {llvm.noalias}) -> i32
        llvm.func @addone(%args: !llvm.ptr, %num_args: i32) -> i32
    """

    name = "convert-tir-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            convert_module(op)
        except LoweringError as e:
            raise PassFailedException(str(e)) from e
        check_converted(op)
