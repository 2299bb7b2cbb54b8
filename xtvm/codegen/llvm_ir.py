"""llvm-dialect module → optimised LLVM IR for a target, with llvmlite.

The steps (the field guide's JIT recipe): `xdsl.backend.llvm.convert_module`
translates the llvm-dialect ops to llvmlite IR; llvmlite parses and verifies
it; the new pass manager's O3 pipeline, built for the target CPU, optimises
it (without it LLVM does not vectorise).
"""

from __future__ import annotations

import ctypes.util
import subprocess
import sys
from functools import cache

import llvmlite.binding as llvm
from xdsl.backend.llvm.convert import convert_module
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import LLVMTranslationException

from xtvm.runtime.threads import starting_openmp
from xtvm.target import Target


class CodegenError(Exception):
    """Code generation failed; the message says at which step and why."""


OPENMP_SYMBOL = "GOMP_parallel"
"""Generated code that runs parallel loops calls this libgomp entry point."""


@cache
def initialize() -> None:
    """Initialise LLVM's native target once and make libm's symbols visible to the JIT."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    libm = ctypes.util.find_library("m")
    if libm:
        llvm.load_library_permanently(libm)


@cache
def load_openmp() -> None:
    """Make libgomp's symbols visible to the JIT (for parallel loops)."""
    libgomp = ctypes.util.find_library("gomp")
    if libgomp is None:
        raise CodegenError(
            "this module has parallel loops, which run on OpenMP threads, but libgomp "
            "is not installed (install GCC's OpenMP runtime, e.g. the libgomp1 package)"
        )
    with starting_openmp():
        llvm.load_library_permanently(libgomp)


def uses_openmp(module: llvm.ModuleRef) -> bool:
    """Whether optimised code calls the OpenMP runtime."""
    return any(f.name == OPENMP_SYMBOL and f.is_declaration for f in module.functions)


_PROBE = """
import sys
import llvmlite.binding as llvm
llvm.initialize_native_target(); llvm.initialize_native_asmprinter()
tm = llvm.Target.from_triple(sys.argv[1]).create_target_machine(
    cpu=sys.argv[2], features=sys.argv[3], opt=3)
tm.emit_object(llvm.parse_assembly("define i32 @f(i32 %x) { ret i32 %x }"))
"""


@cache
def _probe_target(triple: str, cpu: str, features: str) -> str | None:
    """LLVM's complaint about a CPU or feature set, or None if it generates
    code for it. LLVM ends the process on some invalid targets, so a child
    process asks it first."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, triple, cpu, features],
        capture_output=True, text=True, timeout=120,
    )
    lines = [line for line in result.stderr.splitlines() if "not a recognized" in line]
    if result.returncode != 0 or lines:
        reason = (lines or result.stderr.strip().splitlines() or ["LLVM failed"])[-1]
        return reason.replace("LLVM ERROR: ", "")
    return None


def check_target(target: Target | str | None) -> Target:
    """The target, once LLVM has accepted its CPU and features (the host's
    always are); a `CodegenError` naming the problem otherwise, before any
    compilation work and without letting LLVM end the process."""
    target = Target.of(target)
    if target.is_host_cpu and not target.mattr and not target.mtriple:
        return target
    triple = target.mtriple or llvm.get_default_triple()
    problem = _probe_target(triple, target.cpu_name, target.llvm_features)
    if problem is not None:
        raise CodegenError(f"target '{target}' is not usable: {problem}")
    return target


def target_machine(target: Target | str | None = None, pic: bool = False) -> llvm.TargetMachine:
    """An O3 target machine for `target` (position-independent for shared libraries)."""
    initialize()
    target = check_target(target)
    triple = target.mtriple or llvm.get_default_triple()
    try:
        llvm_target = llvm.Target.from_triple(triple)
    except RuntimeError as err:
        raise CodegenError(f"unknown target triple '{triple}': {err}") from None
    return llvm_target.create_target_machine(
        cpu=target.cpu_name,
        features=target.llvm_features,
        opt=3,
        reloc="pic" if pic else "default",
        codemodel="default" if pic else "jitdefault",
    )


def translate(module: ModuleOp, tm: llvm.TargetMachine) -> str:
    """The unoptimised LLVM IR text of an llvm-dialect module."""
    try:
        ir_module = convert_module(
            module, fallback_target_triple=tm.triple, data_layout=str(tm.target_data)
        )
    except (NotImplementedError, LLVMTranslationException) as err:
        raise CodegenError(
            f"cannot translate the module to LLVM IR ({err}); code generation takes a "
            "module of llvm-dialect functions: run convert-tir-to-llvm first"
        ) from None
    for value in ir_module.global_values:
        # xDSL spells a defined global of external linkage `external`, which
        # LLVM IR reads as a declaration: a definition's default is no keyword.
        if getattr(value, "initializer", None) is not None and value.linkage == "external":
            value.linkage = ""
    return str(ir_module)


def optimize(ir: str, tm: llvm.TargetMachine) -> llvm.ModuleRef:
    """Parse, verify and O3-optimise LLVM IR text for the target machine."""
    try:
        module = llvm.parse_assembly(ir)
        module.verify()
    except RuntimeError as err:
        raise CodegenError(f"LLVM rejected the generated IR: {err}") from None
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    options = llvm.create_pipeline_tuning_options(speed_level=3)
    options.loop_vectorization = True
    options.slp_vectorization = True
    builder = llvm.create_pass_builder(tm, options)
    builder.getModulePassManager().run(module, builder)
    return module


def compile_module(
    module: ModuleOp | str, target: Target | str | None = None, pic: bool = False
) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    """An optimised LLVM module (and its target machine) from an llvm-dialect
    module or LLVM IR text."""
    tm = target_machine(target, pic=pic)
    ir = module if isinstance(module, str) else translate(module, tm)
    return optimize(ir, tm), tm


def emit_llvm_ir(
    module: ModuleOp | str, target: Target | str | None = None, optimized: bool = True
) -> str:
    """The LLVM IR of a module, O3-optimised for the target unless `optimized=False`
    (what `xtvm-compile --emit llvm-ir` prints)."""
    if not optimized:
        if isinstance(module, str):
            return module
        return translate(module, target_machine(target))
    return str(compile_module(module, target)[0])
