"""In-memory compilation with llvmlite's MCJIT, wrapped as a runtime Module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen.data import (
    PlacedData,
    data_globals,
    drop_data_globals,
    embed_header,
    read_metadata,
)
from xtvm.codegen.export import link_library
from xtvm.codegen.llvm_ir import CodegenError, load_openmp, target_machine
from xtvm.codegen.objects import compile_objects
from xtvm.target import Target


def jit(
    module: ModuleOp,
    header: dict[str, Any] | None = None,
    params: Mapping[str, np.ndarray] | None = None,
    target: Target | str | None = None,
    consume: bool = False,
):
    """Compile an llvm-dialect module in memory and return an
    `xtvm.runtime.Module` described by the module's own ``@__xtvm_metadata``
    (``llvm-embed-metadata``). A kernels-only module without one may pass
    ``header`` (``functions``, ``graph_json``) and ``params`` instead.

    Data globals (weights, workspaces) are placed in aligned memory that the
    module keeps alive. The code is compiled once (:mod:`.objects`: per
    kernel, in parallel, cached on disk) into position-independent objects
    that MCJIT loads; `export_library(path)` on the result links the same
    objects and data into a shared library.

    ``consume=True`` (``xtvm.build``, whose lowered module is its own) erases
    the module's data globals once compiled, as their bytes are placed: the
    weights are not held twice.
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
    data = data_globals(module)
    compiled = compile_objects(module, target)  # the build's one O3 + code generation
    if compiled.uses_openmp:
        load_openmp()
    if compiled.libraries:  # external (BYOC) kernels' libraries, e.g. oneDNN
        from xtvm.byoc.compile import load_libraries

        load_libraries(compiled.libraries)
    if consume:
        drop_data_globals(module)  # now `data` holds the IR's only copy, given up as placed
    placed = PlacedData(data, consume=consume)
    for name in placed.arrays:
        llvm.add_symbol(name, placed.address(name))
    tm = target_machine(target, pic=True)
    host = llvm.parse_assembly("")
    host.triple = tm.triple
    engine = llvm.create_mcjit_compiler(host, tm)
    for obj in compiled.objects:
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    addresses = {name: engine.get_function_address(name) for name in compiled.functions}
    addresses.update({name: placed.address(name) for name in placed.arrays})
    arrays = params_at(found, addresses.get, placed)
    exported = placed.views(data)  # the IR's copy of the weights may go

    def exporter(path: str) -> None:
        link_library(compiled, exported, path)

    return Module.from_addresses(addresses, found, arrays, (engine, placed), exporter)
