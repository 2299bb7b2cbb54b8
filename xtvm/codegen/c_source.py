"""Object code of the C a module carries (the ``c`` target's kernels).

``convert-tir-to-c`` leaves each kernel as an ``llvm.func`` declaration
carrying its C source (``xtvm.c_source``). :func:`compile_c_sources`
compiles each one as its own translation unit with the system C compiler
(:mod:`xtvm.codegen.cc`: in parallel, through the kernel cache), with
:func:`c_flags` for the target; :func:`xtvm.codegen.objects.compile_objects`
adds these objects to the llvm ones, so the JIT (MCJIT loads them too) and
``export_library`` treat both alike. A unit the compiler rejects is a
``CCompilerError`` naming the kernel; so is an object that calls the C
compiler's own runtime library (``__powisf2``, ``__nehf2``, ...: a
translation that leaves GCC a construct it does not expand inline), which
the JIT cannot resolve and the library does not link (:func:`check_calls`).
"""

from __future__ import annotations

import struct
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
            compiled = cc.compile_objects(units, c_flags(target, openmp))
            for (what, _), obj in zip(units, compiled, strict=True):
                check_calls(obj, what)
            objects += compiled
    functions = [s for name, source, _ in found for s in defined_symbols(name, source)]
    return CObjects(objects, functions, bool(groups[True]))


ALLOWED_RUNTIME_SYMBOLS = frozenset({"__xtvm_num_threads"})
"""Undefined symbols starting with ``__`` that a C unit may reference."""


def undefined_symbols(obj: bytes) -> list[str]:
    """The undefined symbols of an ELF64 little-endian object (its symbol table)."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return []  # not ELF64-LE: nothing to check
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strtab = sections[link][4]
        for k in range(size // entsize):
            name, _, _, shndx = struct.unpack_from("<IBBH", obj, offset + k * entsize)
            if shndx == 0 and name:
                end = obj.index(b"\0", strtab + name)
                names.append(obj[strtab + name : end].decode())
    return names


def check_calls(obj: bytes, what: str) -> None:
    """Refuse an object that calls the compiler's runtime library (see the module docstring)."""
    runtime = [
        s for s in undefined_symbols(obj) if s.startswith("__") and s not in ALLOWED_RUNTIME_SYMBOLS
    ]
    if runtime:
        raise cc.CCompilerError(
            f"the C of {what} calls the C compiler's runtime library ({', '.join(sorted(runtime))}), "
            "which xtvm neither links nor resolves in the JIT; convert-tir-to-c must expand "
            "this construct itself (docs/c-target.md)"
        )
