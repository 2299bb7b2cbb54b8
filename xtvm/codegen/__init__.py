"""Native code from llvm-dialect modules, with llvmlite.

* `jit(module, header, params, target=None)`: compile in memory (MCJIT) and
  return an `xtvm.runtime.Module` (its `export_library` writes a .so);
* `export_library(module_or_ir, header, params, path, target=None)`: an
  object file plus the metadata blob, linked by the system C compiler;
* `emit_llvm_ir(module, target=None, optimized=True)`: the LLVM IR text;
* `tir_signature(prim_func)`: the metadata `functions` entry of a kernel.

`module` is the output of `convert-tir-to-llvm`; `header` and `params` are
the metadata of docs/abi.md. Targets are `xtvm.target.Target`s or strings
such as `"llvm -mcpu=native"`.
"""

from xtvm.codegen.export import export_library, find_c_compiler
from xtvm.codegen.jit import jit
from xtvm.codegen.llvm_ir import CodegenError, compile_module, emit_llvm_ir
from xtvm.lowering.tir_to_llvm.signature import tir_signature

__all__ = [
    "CodegenError",
    "compile_module",
    "emit_llvm_ir",
    "export_library",
    "find_c_compiler",
    "jit",
    "tir_signature",
]
