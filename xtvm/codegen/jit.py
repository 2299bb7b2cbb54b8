"""In-memory compilation with llvmlite's MCJIT, wrapped as a runtime Module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen.export import export_library
from xtvm.codegen.llvm_ir import compile_module, load_openmp, uses_openmp
from xtvm.target import Target


def jit(
    module: ModuleOp | str,
    header: dict[str, Any],
    params: Mapping[str, np.ndarray] | None = None,
    target: Target | str | None = None,
):
    """Compile `module` (llvm dialect or LLVM IR text) in memory and return an
    `xtvm.runtime.Module` whose functions are the kernels named in
    `header["functions"]`.

    The execution engine lives as long as the module; `export_library(path)`
    on the result writes the same code (and metadata) as a shared library.
    """
    from xtvm.runtime.module import Module

    params = dict(params or {})
    target = Target.of(target)
    llvm_module, tm = compile_module(module, target)
    if uses_openmp(llvm_module):
        load_openmp()
    optimized_ir = str(llvm_module)
    engine = llvm.create_mcjit_compiler(llvm_module, tm)
    engine.finalize_object()
    addresses = {
        f.name: engine.get_function_address(f.name)
        for f in llvm_module.functions
        if not f.is_declaration
    }

    def exporter(path: str) -> None:
        export_library(optimized_ir, header, params, path, target)

    return Module.from_addresses(addresses, header, params, engine, exporter)
