"""Shared libraries: object code + the data globals, linked by the system C compiler.

The library exports every kernel's packed function, the model's AOT entry
points, the metadata (``__xtvm_metadata``, ``__xtvm_metadata_size``: see
docs/abi.md) and one symbol per constant; code with parallel loops links
libgomp. Data globals (:mod:`xtvm.codegen.data`) enter through an assembler
file (``.incbin`` of one binary file), so 100 MB of weights link in well
under a second.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen.cc import find_c_compiler
from xtvm.codegen.data import DataFiles, DataGlobal, data_globals, read_metadata, write_data_files
from xtvm.codegen.llvm_ir import CodegenError, compile_module, uses_openmp
from xtvm.codegen.objects import CompiledObjects, compile_objects
from xtvm.target import Target


NO_BUILD_ID = ["-Wl,--build-id=none"] if sys.platform.startswith("linux") else []
"""No ``.note.gnu.build-id`` (Debian's and Fedora's compilers ask for one):
its SHA-1 of the whole library re-reads every weight after the link
(VGG-19's 574 MB: ld 2.6 s with it, 0.9 s without), and nothing loads a
model library by its build ID (xtvm checks the metadata's own SHA-256)."""


def export_library(
    module: ModuleOp | str,
    path: str | os.PathLike[str],
    target: Target | str | None = None,
    data: list[DataGlobal] | None = None,
) -> None:
    """Write a shared library at `path` that `xtvm.runtime.load_module` loads.

    `module` is an llvm-dialect module carrying its metadata
    (``llvm-embed-metadata``), or LLVM IR text (optimised or not; it is
    optimised again for `target`) whose data globals are given as `data`.
    """
    compiler = find_c_compiler()
    if isinstance(module, ModuleOp):
        if read_metadata(module) is None:
            raise CodegenError(
                "export_library: the module has no @__xtvm_metadata; run llvm-embed-metadata"
            )
        link_library(compile_objects(module, target), data_globals(module), path, compiler)
        return
    llvm_module, tm = compile_module(module, target, pic=True)
    compiled = CompiledObjects([tm.emit_object(llvm_module)], [], uses_openmp(llvm_module))
    link_library(compiled, data or [], path, compiler)


def link_library(
    compiled: CompiledObjects,
    data: list[DataGlobal] | DataFiles,
    path: str | os.PathLike[str],
    compiler: str | None = None,
) -> None:
    """Link object files and the data globals into the shared library
    ``path``; the data as a list is written for this link only, as
    :class:`DataFiles` it was written already (a JIT module's own)."""
    compiler = compiler or find_c_compiler()
    with tempfile.TemporaryDirectory(prefix="xtvm-export-") as tmp:
        objects = []
        for i, code in enumerate(compiled.objects):
            objects.append(os.path.join(tmp, f"unit{i}.o"))
            with open(objects[-1], "wb") as f:
                f.write(code)
        files = data if isinstance(data, DataFiles) else write_data_files(data, tmp)
        libraries = [*compiled.libraries, *(["-lgomp"] if compiled.uses_openmp else [])]
        command = [compiler, "-shared", *NO_BUILD_ID, "-o", os.fspath(path), *objects, *files.inputs]
        command += [*libraries, "-lm"]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CodegenError(
                f"linking {os.fspath(path)} failed ({' '.join(command)}):\n{result.stderr}"
            )
