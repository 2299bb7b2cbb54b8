"""Shared libraries: object code + the metadata blob, linked by the system C compiler.

The library exports every kernel's packed function plus `__xtvm_metadata`
(the blob of `xtvm.runtime.metadata.pack_metadata`) and the u64
`__xtvm_metadata_size` (docs/abi.md); code with parallel loops links
libgomp. The blob enters through an assembler `.incbin`, so large parameters
link in well under a second.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen.llvm_ir import CodegenError, compile_module, uses_openmp
from xtvm.target import Target

_C_COMPILERS = ("cc", "gcc", "clang")

_METADATA_ASM = """\
    .section .rodata.xtvm_metadata,"a",@progbits
    .globl __xtvm_metadata
    .type __xtvm_metadata,@object
    .balign 64
__xtvm_metadata:
    .incbin "{blob}"
    .size __xtvm_metadata, {size}
    .globl __xtvm_metadata_size
    .type __xtvm_metadata_size,@object
    .balign 8
__xtvm_metadata_size:
    .quad {size}
    .size __xtvm_metadata_size, 8
    .section .note.GNU-stack,"",@progbits
"""


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
    header: dict[str, Any],
    params: Mapping[str, np.ndarray],
    path: str | os.PathLike[str],
    target: Target | str | None = None,
) -> None:
    """Write a shared library at `path` that `xtvm.runtime.load_module` loads.

    `module` is an llvm-dialect module or LLVM IR text (optimised or not; it
    is optimised again for `target`); `header` and `params` are the metadata.
    """
    from xtvm.runtime.metadata import pack_metadata

    compiler = find_c_compiler()
    blob = pack_metadata(header, dict(params))
    llvm_module, tm = compile_module(module, target, pic=True)
    with tempfile.TemporaryDirectory(prefix="xtvm-export-") as tmp:
        obj = os.path.join(tmp, "kernels.o")
        asm = os.path.join(tmp, "metadata.s")
        blob_path = os.path.join(tmp, "metadata.bin")
        with open(obj, "wb") as f:
            f.write(tm.emit_object(llvm_module))
        with open(blob_path, "wb") as f:
            f.write(blob)
        with open(asm, "w") as f:
            f.write(_METADATA_ASM.format(blob=blob_path.replace('"', '\\"'), size=len(blob)))
        libraries = ["-lgomp"] if uses_openmp(llvm_module) else []
        command = [compiler, "-shared", "-o", os.fspath(path), obj, asm, *libraries, "-lm"]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CodegenError(
                f"linking {os.fspath(path)} failed ({' '.join(command)}):\n{result.stderr}"
            )
