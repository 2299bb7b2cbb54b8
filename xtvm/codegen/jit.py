"""In-memory compilation with llvmlite's MCJIT, wrapped as a runtime Module."""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen.data import (
    DataFiles,
    DataGlobal,
    PlacedData,
    data_globals,
    drop_data_globals,
    embed_header,
    read_metadata,
    write_data_files,
)
from xtvm.codegen.export import link_library
from xtvm.codegen.llvm_ir import CodegenError, load_openmp, target_machine
from xtvm.codegen.objects import CompiledObjects, compile_objects
from xtvm.target import Target


def jit(
    module: ModuleOp,
    header: dict[str, Any] | None = None,
    params: Mapping[str, np.ndarray] | None = None,
    target: Target | str | None = None,
    consume: bool = False,
):
    """Compile an llvm-dialect module and return an `xtvm.runtime.Module`
    described by the module's own ``@__xtvm_metadata``
    (``llvm-embed-metadata``). A kernels-only module without one may pass
    ``header`` (``functions``, ``graph_json``) and ``params`` instead.

    The code is compiled once (:mod:`.objects`: per kernel, in parallel,
    cached on disk) into position-independent objects. The module is lazy
    (:class:`JitImage`): MCJIT loads the objects, and the data globals
    (weights, workspaces) are placed in aligned memory, only when the module
    is first used (a kernel looked up, the graph executor created, its
    parameters read); `export_library(path)` links the same objects and data
    into a shared library, loaded or not.

    ``consume=True`` (``xtvm.build``, whose lowered module is its own) erases
    the module's data globals once compiled: the weights then have one
    owner, the image, which gives them up as they are placed or exported.
    """
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
    if consume:
        drop_data_globals(module)  # now `data` holds the IR's only copy
    image = JitImage(compiled, data, target, consume)
    return Module.from_loader(found, image.load, image.export)


class JitImage:
    """A JIT module's compiled objects and data globals, from which it is
    loaded (:meth:`load`) and exported (:meth:`export`), in either order and
    any number of times.

    Where the data is: the bytes the IR gave (``data``) until the module is
    loaded or exported; placed in aligned memory once loaded first
    (``placed``, laid out as the data file); written once to a data object
    in a directory of its own (``files``, removed with the image) once
    exported. An export before any load gives each weight up as it is
    written, so the process does not hold the weights while the linker does
    (VGG-19: 574 MB), and a load after it maps that file
    (:meth:`PlacedData.mapped`) instead of reading the weights into memory;
    an export after a load maps the file over the placed weights at the
    same addresses (:meth:`PlacedData.remap`), with the same effect.
    """

    def __init__(
        self, compiled: CompiledObjects, data: list[DataGlobal], target: Target, own: bool
    ):
        """``own``: ``data`` is this image's alone (``jit(consume=True)``),
        so its bytes may be given up once placed or written."""
        self.compiled, self.data, self.target, self._own = compiled, data, target, own
        self.placed: PlacedData | None = None
        self.files: DataFiles | None = None
        self._dir: str | None = None

    def load(self) -> tuple[Callable[[str], int | None], Any]:
        """Place the data and load the code with MCJIT: ``(resolve,
        keepalive)`` for `Module.from_loader`."""
        compiled = self.compiled
        if compiled.uses_openmp:
            load_openmp()
        if compiled.libraries:  # external (BYOC) kernels' libraries, e.g. oneDNN
            from xtvm.byoc.compile import load_libraries

            load_libraries(compiled.libraries)
        if self.files is not None:
            placed = PlacedData.mapped(self.data, self.files)
        else:
            # laid out as the data file, which an export then maps in its place
            placed = PlacedData(self.data, consume=self._own, mirror=True)
        for name in placed.arrays:
            llvm.add_symbol(name, placed.address(name))
        tm = target_machine(self.target, pic=True)
        host = llvm.parse_assembly("")
        host.triple = tm.triple
        engine = llvm.create_mcjit_compiler(host, tm)
        for obj in compiled.objects:
            engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        addresses = {name: engine.get_function_address(name) for name in compiled.functions}
        addresses.update({name: placed.address(name) for name in placed.arrays})
        self.placed = placed
        if self.files is None:
            self.data = placed.views(self.data)  # an export reads the placed copy
        return addresses.get, (engine, placed, self)

    def export(self, path: str) -> None:
        """Link the library at ``path``; the data object is written on the
        first export and kept for the next ones and for a later load."""
        if sum(item.size for item in self.data) >= COLLECT_BEFORE_LINK_BYTES:
            gc.collect()
        if self.files is None:
            self._dir = tempfile.mkdtemp(prefix="xtvm-jit-")
            weakref.finalize(self, _remove, self._dir, os.getpid())
            # Each weight is given up once written: from then on the file is
            # the image's copy (with consume, unless loaded, the only one).
            self.files = write_data_files(self.data, self._dir, give_up=True)
            if self.placed is not None:  # loaded: its weights become the file's pages
                self.placed.remap(self.files)
        link_library(self.compiled, self.files, path)


def _remove(directory: str, owner: int) -> None:
    """Remove an image's directory, in the process that made it only (a
    forked child that exits through the interpreter runs the finalizers
    of objects it inherited)."""
    if os.getpid() == owner:
        shutil.rmtree(directory, ignore_errors=True)


COLLECT_BEFORE_LINK_BYTES = 1 << 26
"""An export of this much data or more first collects garbage: the build's
discarded IR is reference cycles that may still hold the weights the
caller's parameters shared (they outlive ``del params`` until the collector
runs), and the linker then holds the whole data object (VGG-19: +456 MB
while the data is written and beside ``ld``'s 567 MB if not collected; the
collection: ~0.06 s)."""
