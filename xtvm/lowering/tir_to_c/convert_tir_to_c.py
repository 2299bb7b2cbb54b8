"""`convert-tir-to-c`: every `tir.prim_func` becomes C source (TVM's CodeGenC).

The C of kernel `@NAME` (`function.py`, `packed_api.py`) defines

* `int32_t NAME_impl(T* restrict buffer, ..., scalar, ...)`: the loop
  program, returning 0 or a failed assert's code;
* `int32_t NAME(void** args, int32_t num_args)`: the packed entry, with the
  llvm path's argument checks (docs/abi.md),

so the rest of the program (the AOT entry, which calls `NAME_impl`, the
metadata, the weights: the llvm dialect) is the same for both targets.

The pass replaces each prim_func by a declaration that carries its C:

    tir.prim_func @add(%A: memref<3xf32>, %B: memref<3xf32>) { ... }
  becomes
    llvm.func @add(!llvm.ptr, i32) -> i32 attributes {xtvm.c_source = "int32_t add_impl(..."}

and, when a kernel has parallel loops, a declaration of
`xtvm_set_num_threads` carrying the C of the thread-count setting they
read. Code generation (:mod:`xtvm.codegen.c_source`) compiles each carried
source with the system C compiler, one translation unit a kernel
(:func:`translation_unit` adds the prelude), and links the objects with
the llvm objects of the rest. The module stays a whole program in text:
`xtvm-compile --emit llvm-dialect --target c` prints it and compiling that
file gives the same library; `--emit c` (and `xtvm-opt -t c`) prints the C
alone (:func:`emit_c`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr, i32
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.tir_to_c.function import NUM_THREADS, FunctionWriter, is_c_identifier
from xtvm.lowering.tir_to_c.packed_api import packed_entry
from xtvm.lowering.tir_to_c.prelude import OPENMP_INCLUDE, PRELUDE
from xtvm.lowering.tir_to_c.types import CTranslationError
from xtvm.lowering.tir_to_llvm.function import impl_name
from xtvm.lowering.tir_to_llvm.parallel import SET_NUM_THREADS

PASS_NAME = "convert-tir-to-c"
C_SOURCE_ATTR = "xtvm.c_source"
"""The C source a body-less `llvm.func` is compiled from."""
C_OPENMP_ATTR = "xtvm.c_openmp"
"""Present when that source has parallel loops (compiled with -fopenmp, links libgomp)."""


@dataclass(frozen=True)
class CKernel:
    """The C of one prim_func and whether it runs OpenMP threads."""

    name: str
    source: str
    uses_openmp: bool


def translate_prim_func(func: PrimFuncOp) -> CKernel:
    """The C of `func` (see the module docstring); raises `CTranslationError`."""
    name = func.sym_name.data
    writer = FunctionWriter(func)
    impl = writer.impl()
    entry = packed_entry(func)
    head = [f"// kernel @{name}"]
    head += sorted(writer.externs.values())
    if writer.uses_openmp:
        head.append(f'extern int32_t {NUM_THREADS} __attribute__((visibility("hidden")));')
    if not is_c_identifier(name):  # C spells the symbols through asm labels
        raise CTranslationError(
            f"{PASS_NAME}: the kernel name @{name} is not a C identifier; rename the prim_func"
        )
    return CKernel(name, "\n".join([*head, impl, "", entry]) + "\n", writer.uses_openmp)


NUM_THREADS_SOURCE = f"""\
// the thread count of parallel loops: xtvm_set_num_threads (docs/abi.md); 0: OpenMP's default
int32_t {NUM_THREADS} __attribute__((visibility("hidden"))) = 0;
void {SET_NUM_THREADS}(int32_t n) {{ {NUM_THREADS} = n; }}
"""


def translation_unit(source: str, uses_openmp: bool) -> str:
    """The whole C file of one carried source: the prelude, then the source."""
    return PRELUDE + (OPENMP_INCLUDE if uses_openmp else "") + "\n" + source


def convert_tir_to_c(module: ModuleOp) -> list[CKernel]:
    """Replace every prim_func of `module` by its C (see the module docstring)."""
    kernels: list[CKernel] = []
    for op in list(module.ops):
        if not isinstance(op, PrimFuncOp) or "tir.external_source" in op.attributes:
            continue  # an external (BYOC) kernel's C is its codegen's: convert-tir-to-llvm
        try:
            kernel = translate_prim_func(op)
        except CTranslationError as e:
            e.op = e.op or op
            raise
        decl = llvm.FuncOp(
            kernel.name,
            llvm.LLVMFunctionType([llvm.LLVMPointerType(), i32], i32),
            linkage=llvm.LinkageAttr("external"),
        )
        decl.attributes[C_SOURCE_ATTR] = StringAttr(kernel.source)
        if kernel.uses_openmp:
            decl.attributes[C_OPENMP_ATTR] = UnitAttr()
        module.body.block.insert_op_before(decl, op)
        op.detach()
        op.erase()
        kernels.append(kernel)
    if any(k.uses_openmp for k in kernels):
        setter = llvm.FuncOp(
            SET_NUM_THREADS,
            llvm.LLVMFunctionType([i32]),
            linkage=llvm.LinkageAttr("external"),
        )
        setter.attributes[C_SOURCE_ATTR] = StringAttr(NUM_THREADS_SOURCE)
        module.body.block.add_op(setter)
    return kernels


def c_sources(module: ModuleOp) -> list[tuple[str, str, bool]]:
    """`(symbol, source, uses_openmp)` of every `llvm.func` carrying C."""
    found = []
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and C_SOURCE_ATTR in op.attributes:
            source = op.attributes[C_SOURCE_ATTR]
            assert isinstance(source, StringAttr)
            found.append((op.sym_name.data, source.data, C_OPENMP_ATTR in op.attributes))
    return found


def defined_symbols(name: str, source: str) -> list[str]:
    """The functions a carried source defines: a kernel and its `_impl`, or the setter."""
    return [name] if name == SET_NUM_THREADS else [name, f"{name}_impl"]


def emit_c(module: ModuleOp) -> str:
    """All the C of `module` as one file (what `--emit c` prints): the
    prelude, then each kernel's C (prim_funcs are translated on the fly,
    declarations carrying C give theirs), then the thread-count setting."""
    pieces: list[str] = []
    openmp = False
    for op in module.ops:
        if isinstance(op, PrimFuncOp) and "tir.external_source" in op.attributes:
            source = op.attributes["tir.external_source"]  # a BYOC kernel: its codegen's C
            assert isinstance(source, StringAttr)
            pieces.append(f"/* external kernel @{op.sym_name.data} */\n{source.data}")
        elif isinstance(op, PrimFuncOp):
            kernel = translate_prim_func(op)
            pieces.append(kernel.source)
            openmp |= kernel.uses_openmp
    carried = c_sources(module)
    pieces += [source for name, source, _ in carried if name != SET_NUM_THREADS]
    pieces += [  # BYOC kernels, lowered by convert-tir-to-llvm: their codegens' C
        f"/* external kernel @{op.sym_name.data.removesuffix('_impl')} */\n{source.data}"
        for op in module.ops
        if isinstance(op, llvm.FuncOp)
        and isinstance(source := op.attributes.get("xtvm.external_source"), StringAttr)
    ]
    openmp |= any(uses for _, _, uses in carried)
    if openmp:
        pieces.append(NUM_THREADS_SOURCE)
    return PRELUDE + (OPENMP_INCLUDE if openmp else "") + "".join("\n" + p for p in pieces)


@dataclass(frozen=True)
class ConvertTirToCPass(ModulePass):
    """Translate every `tir.prim_func` to C source carried by an `llvm.func`
    declaration (see the module docstring).

    Input: a module whose kernels are `tir.prim_func`s (flattened or not),
    e.g. after `llvm-embed-metadata` (which reads their signatures).
    Output: each prim_func replaced, in its place, by
    `llvm.func @NAME(!llvm.ptr, i32) -> i32 attributes {xtvm.c_source = ...}`;
    other ops are left alone (`convert-tir-to-llvm` then lowers what remains).
    Invariant: no `tir.prim_func` remains; a construct without a C
    translation fails the pass, naming the op and its kernel.
    """

    name = PASS_NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            convert_tir_to_c(op)
        except CTranslationError as e:
            error = PassFailedException(str(e))
            error.op = e.op  # type: ignore[attr-defined]  # where xtvm-opt reports it
            raise error from e


__all__ = [
    "C_OPENMP_ATTR",
    "C_SOURCE_ATTR",
    "CKernel",
    "ConvertTirToCPass",
    "c_sources",
    "convert_tir_to_c",
    "defined_symbols",
    "emit_c",
    "translate_prim_func",
    "translation_unit",
]
