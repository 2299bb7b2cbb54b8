"""Object code of the external kernels a module carries (BYOC).

``convert-tir-to-llvm`` leaves each external kernel's ``NAME_impl`` as an
``llvm.func`` declaration carrying its codegen's C source
(``xtvm.external_source``), the compiler and linker flags it needs
(``xtvm.external_link``: ``-I...``, ``-L...``, ``-l...``) and the relay ops
it computes (``xtvm.external_ops``). :func:`compile_external` compiles
each with the system C compiler (:mod:`xtvm.codegen.cc`, in parallel and
cached); ``compile_objects`` adds the objects to the module's, ``export``
links the libraries (with an rpath for their directories) and the JIT loads
them into the process before MCJIT resolves the symbols.
"""

from __future__ import annotations

import ctypes.util
import os
from dataclasses import dataclass, field

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from xtvm.codegen import cc
from xtvm.target import Target

SOURCE_ATTR = "xtvm.external_source"
LINK_ATTR = "xtvm.external_link"
OPS_ATTR = "xtvm.external_ops"


@dataclass
class ExternalObjects:
    """The objects of a module's external kernels, the functions they
    define, and the linker words their libraries need."""

    objects: list[bytes] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)


def _strings(op: llvm.FuncOp, name: str) -> list[str]:
    value = op.attributes.get(name)
    if isinstance(value, ArrayAttr):
        return [s.data for s in value.data if isinstance(s, StringAttr)]
    return []


def compile_external(module: ModuleOp, target: Target | str | None = None) -> ExternalObjects:
    """Compile every external kernel source ``module`` carries."""
    found = [
        op
        for op in module.ops
        if isinstance(op, llvm.FuncOp) and SOURCE_ATTR in op.attributes
    ]
    result = ExternalObjects()
    for op in found:
        source = op.attributes[SOURCE_ATTR]
        assert isinstance(source, StringAttr)
        link = _strings(op, LINK_ATTR)
        kernel = op.sym_name.data.removesuffix("_impl")
        what = f"external kernel @{kernel} (ops: {', '.join(_strings(op, OPS_ATTR))})"
        includes = [w for w in link if w.startswith("-I")]
        result.objects.append(
            cc.compile_object(source.data, what, [*cc.target_flags(target), *includes])
        )
        result.functions.append(op.sym_name.data)
        for word in link:
            if word.startswith(("-L", "-l")) and word not in result.libraries:
                result.libraries.append(word)
                if word.startswith("-L") and not _system_dir(word[2:]):
                    result.libraries.append(f"-Wl,-rpath,{word[2:]}")
    return result


def _system_dir(path: str) -> bool:
    return path.startswith(("/usr/lib", "/lib", "/usr/lib64"))


def load_libraries(libraries: list[str]) -> None:
    """Load the ``-l`` libraries (found in the ``-L`` directories, else by
    the system's search) into the process, so the JIT resolves their symbols."""
    import llvmlite.binding as llvm_binding

    from xtvm.runtime.threads import starting_openmp

    dirs = [w[2:] for w in libraries if w.startswith("-L")]
    for word in libraries:
        if not word.startswith("-l"):
            continue
        name = word[2:]
        path = next(
            (p for d in dirs if os.path.exists(p := os.path.join(d, f"lib{name}.so"))),
            None,
        ) or ctypes.util.find_library(name)
        if path is None:
            raise cc.CCompilerError(
                f"cannot find the library lib{name}.so that an external kernel needs"
            )
        with starting_openmp():  # oneDNN's library links libgomp
            llvm_binding.load_library_permanently(path)
