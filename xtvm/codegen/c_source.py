"""Object code of the C a module carries (the ``c`` target's kernels).

``convert-tir-to-c`` leaves each kernel as an ``llvm.func`` declaration
carrying its C source (``xtvm.c_source``). :func:`compile_c_sources`
compiles each one as its own translation unit with the system C compiler
(:mod:`xtvm.codegen.cc`: in parallel, through the kernel cache), with
:func:`c_flags` for the target; :func:`xtvm.codegen.objects.compile_objects`
adds these objects to the llvm ones, so the JIT (MCJIT loads them too) and
``export_library`` treat both alike. A unit the compiler rejects is a
``CCompilerError`` naming the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from xtvm.codegen import cc
from xtvm.lowering.tir_to_c.convert_tir_to_c import (
    c_sources,
    defined_symbols,
    translation_unit,
)
from xtvm.target import Target


@dataclass
class CObjects:
    """The objects of a module's C units, the functions they define, and
    whether they run OpenMP threads (link libgomp)."""

    objects: list[bytes]
    functions: list[str]
    uses_openmp: bool


def c_flags(target: Target | str | None, openmp: bool) -> list[str]:
    """The compiler flags of a C unit: the target's (``cc.target_flags``),
    OpenMP for parallel loops, OpenMP SIMD for ``omp simd`` otherwise."""
    return [*cc.target_flags(target), "-fopenmp" if openmp else "-fopenmp-simd"]


def compile_c_sources(module: ModuleOp, target: Target | str | None = None) -> CObjects:
    """Compile every C source ``module`` carries (see the module docstring)."""
    found = c_sources(module)
    if not found:
        return CObjects([], [], False)
    groups: dict[bool, list[tuple[str, str]]] = {False: [], True: []}
    for name, source, openmp in found:
        groups[openmp].append((f"kernel @{name} (target c)", translation_unit(source, openmp)))
    objects = []
    for openmp, units in groups.items():
        if units:
            objects += cc.compile_objects(units, c_flags(target, openmp))
    functions = [s for name, source, _ in found for s in defined_symbols(name, source)]
    return CObjects(objects, functions, bool(groups[True]))
