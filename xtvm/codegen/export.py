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
import shutil
import subprocess
import tempfile

from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen.data import DataGlobal, assembly, read_metadata, split_data
from xtvm.codegen.llvm_ir import CodegenError, compile_module, uses_openmp
from xtvm.target import Target

_C_COMPILERS = ("cc", "gcc", "clang")


def find_c_compiler() -> str:
    """The system C compiler (`$CC`, else cc, gcc or clang on PATH)."""
    candidates = [os.environ["CC"]] if os.environ.get("CC") else list(_C_COMPILERS)
    for name in candidates:
        path = shutil.which(name)
        if path:
            return path
    raise CodegenError(
        "export_library needs a C compiler to link the shared library, and none of "
        f"{', '.join(candidates)} is on PATH; install one (e.g. gcc) or set CC"
    )


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
        module, data = split_data(module)
    llvm_module, tm = compile_module(module, target, pic=True)
    with tempfile.TemporaryDirectory(prefix="xtvm-export-") as tmp:
        obj = os.path.join(tmp, "kernels.o")
        asm = os.path.join(tmp, "data.s")
        blob_path = os.path.join(tmp, "data.bin")
        with open(obj, "wb") as f:
            f.write(tm.emit_object(llvm_module))
        text, blob = assembly(data or [], blob_path.replace('"', '\\"'))
        with open(blob_path, "wb") as f:
            f.write(blob)
        with open(asm, "w") as f:
            f.write(text)
        libraries = ["-lgomp"] if uses_openmp(llvm_module) else []
        command = [compiler, "-shared", "-o", os.fspath(path), obj, asm, *libraries, "-lm"]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CodegenError(
                f"linking {os.fspath(path)} failed ({' '.join(command)}):\n{result.stderr}"
            )
