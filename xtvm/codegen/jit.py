"""In-memory compilation with llvmlite's MCJIT, wrapped as a runtime Module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen.data import PlacedData, embed_header, read_metadata, split_data
from xtvm.codegen.export import export_library
from xtvm.codegen.llvm_ir import CodegenError, compile_module, load_openmp, uses_openmp
from xtvm.target import Target


def jit(
    module: ModuleOp,
    header: dict[str, Any] | None = None,
    params: Mapping[str, np.ndarray] | None = None,
    target: Target | str | None = None,
):
    """Compile an llvm-dialect module in memory and return an
    `xtvm.runtime.Module` described by the module's own ``@__xtvm_metadata``
    (``llvm-embed-metadata``). A kernels-only module without one may pass
    ``header`` (``functions``, ``graph_json``) and ``params`` instead.

    Data globals (weights, workspaces) are placed in aligned memory that the
    module keeps alive; `export_library(path)` on the result writes the same
    code and data as a shared library.
    """
    from xtvm.runtime.metadata import params_at
    from xtvm.runtime.module import Module

    if header is not None:
        module = embed_header(module, header, params or {})
    elif params:
        raise CodegenError("jit: params are given without a header; embed them in the module")
    found = read_metadata(module)
    if found is None:
        raise CodegenError(
            "jit: the module has no @__xtvm_metadata; run llvm-embed-metadata (or pass a header)"
        )
    target = Target.of(target)
    code, data = split_data(module)
    llvm_module, tm = compile_module(code, target)
    if uses_openmp(llvm_module):
        load_openmp()
    optimized_ir = str(llvm_module)
    placed = PlacedData(data)
    for name in placed.arrays:
        llvm.add_symbol(name, placed.address(name))
    engine = llvm.create_mcjit_compiler(llvm_module, tm)
    engine.finalize_object()
    addresses = {
        f.name: engine.get_function_address(f.name)
        for f in llvm_module.functions
        if not f.is_declaration
    }
    addresses.update({name: placed.address(name) for name in placed.arrays})
    arrays = params_at(found, addresses.get, placed)

    def exporter(path: str) -> None:
        export_library(optimized_ir, path, target, data)

    return Module.from_addresses(addresses, found, arrays, (engine, placed), exporter)
