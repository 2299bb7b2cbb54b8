"""``vm-embed-executable``: the vm stage's functions become the executable
(:mod:`.bytecode`), embedded in the module as data for the kernel library.

Input: a module at the vm stage (``vm.func``s and ``tir.prim_func``
kernels). Output: the kernels alone, plus an exported, 64-byte aligned
constant global ``@__xtvm_vm_executable`` holding ``Executable.save()``'s
bytes (docs/vm.md); ``llvm-embed-metadata`` and ``convert-tir-to-llvm``
then make the kernel library as for any kernels-only module. The runtime
finds the executable by that symbol (``Executable.from_library``), and
checks it (magic, version, lengths, digest, kernels) when it loads it.

```mlir
llvm.mlir.global external constant @__xtvm_vm_executable(dense<[88, 84, ...]> : tensor<N x i8>) {alignment = 64 : i64} : !llvm.array<N x i8>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, IntegerType, ModuleOp, TensorType
from xdsl.passes import ModulePass

from xtvm.dialects import vm
from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.memory_to_vm.bytecode import BytecodeError, compile_executable
from xtvm.runtime.vm.executable import EXECUTABLE_SYMBOL


def executable_global(blob: bytes) -> llvm.GlobalOp:
    """The exported constant global holding an executable's bytes."""
    i8 = IntegerType(8)
    return llvm.GlobalOp(
        llvm.LLVMArrayType(len(blob), i8),
        EXECUTABLE_SYMBOL,
        "external",
        constant=True,
        value=DenseIntOrFPElementsAttr(TensorType(i8, [len(blob)]), BytesAttr(blob)),
        alignment=64,
    )


@dataclass(frozen=True)
class EmbedExecutablePass(ModulePass):
    """Compile the ``vm.func``s to an executable, embed it as
    ``@__xtvm_vm_executable`` and erase them (see the module docstring)."""

    name = "vm-embed-executable"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        exe = compile_executable(op)
        kernels = {f.sym_name.data for f in op.ops if isinstance(f, PrimFuncOp)}
        missing = [k for k in exe.kernels if k not in kernels]
        if missing:
            raise BytecodeError(
                f"vm-embed-executable: the vm functions call {', '.join('@' + k for k in missing)}, "
                "which the module does not define as tir.prim_func"
            )
        for fn in [f for f in op.ops if isinstance(f, vm.FuncOp)]:
            fn.detach()
            fn.erase()
        op.body.block.add_op(executable_global(exe.save()))
