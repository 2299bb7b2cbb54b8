"""Native code from llvm-dialect modules, with llvmlite.

* `jit(module, target=None)`: compile and return an `xtvm.runtime.Module`
  described by the module's `@__xtvm_metadata`, which MCJIT loads (and
  whose weights are placed) when first used; its `export_library` writes a
  .so, loaded or not (:class:`.jit.JitImage`); `jit(module, header,
  params)` embeds a hand-made header first (`embed_header`);
* `export_library(module_or_ir, path, target=None, data=None)`: an
  object file plus the data globals, linked by the system C compiler;
* `compile_objects(module, target=None)`: the build's one O3 + code
  generation, per kernel, in a process pool, through the on-disk kernel
  cache (:mod:`.cache`, ``$XTVM_CACHE_DIR``); the JIT and `export_library`
  share its objects;
* `emit_llvm_ir(module, target=None, optimized=True)`: the LLVM IR text;
* `tir_signature(prim_func)`: the metadata `functions` entry of a kernel.

`module` is the output of the `llvm-dialect` stage (docs/abi.md describes
what it exports); :mod:`.data` says how weights and workspaces bypass LLVM
IR text. Targets are `xtvm.target.Target`s or strings
such as `"llvm -mcpu=native"`.
"""

from xtvm.codegen.data import embed_header, read_metadata
from xtvm.codegen.export import export_library, find_c_compiler
from xtvm.codegen.jit import jit
from xtvm.codegen.llvm_ir import CodegenError, check_target, compile_module, emit_llvm_ir
from xtvm.codegen.objects import compile_objects
from xtvm.lowering.tir_to_llvm.signature import tir_signature

__all__ = [
    "CodegenError",
    "check_target",
    "compile_module",
    "compile_objects",
    "embed_header",
    "emit_llvm_ir",
    "export_library",
    "find_c_compiler",
    "jit",
    "read_metadata",
    "tir_signature",
]
