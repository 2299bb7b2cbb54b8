"""Object code of an llvm-dialect module, compiled once, in parallel, and cached.

``compile_objects(module, target)`` is the one LLVM optimisation and code
generation of a build: the JIT loads its objects into MCJIT and
``export_library`` links the same objects into a shared library.

The module is split into *units*, each translated to LLVM IR text of its own,
O3-optimised and compiled to an object file:

* one unit per kernel: the packed function the metadata names, with every
  function it reaches (its ``_impl``, its parallel-loop chunk and thread
  functions), so LLVM inlines within a kernel as before;
* one unit with the rest: the AOT entry, ``xtvm_set_num_threads``, the
  metadata and every other non-data global.

Kernels of the ``c`` target are C source the module carries; their objects
(:mod:`xtvm.codegen.c_source`, compiled by the system C compiler) follow the
llvm units'. Functions and globals another unit defines are declared; data globals
(weights, the workspace: :mod:`xtvm.codegen.data`) are declared in every
unit and defined by the caller. A global that was internal is defined hidden
(visible to the library's units, not exported).

Units compile in a process pool (``fork``; ``$XTVM_COMPILE_JOBS`` workers,
default: the cores this process may use), and each unit's object is looked
up in, and stored to, the on-disk cache (:mod:`xtvm.codegen.cache`) under
the sha256 of its LLVM IR text and the target.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import io
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm_binding
import llvmlite.ir as ir
from xdsl.backend.llvm.convert import _convert_func, _convert_global, _declare_func
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import LLVMTranslationException

from xtvm.codegen.cache import KernelCache, cache_key
from xtvm.codegen.data import is_data_global
from xtvm.codegen.llvm_ir import OPENMP_SYMBOL, CodegenError, optimize, target_machine
from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import (
    CACHED_OBJECT_ATTR,
    EXTERNAL_SOURCE_ATTR,
    KERNEL_KEY_ATTR,
    USES_OPENMP_ATTR,
)
from xtvm.target import Target

JOBS_ENV = "XTVM_COMPILE_JOBS"
O3_OPTIONS = "speed_level=3,loop_vectorization,slp_vectorization"
"""What :func:`xtvm.codegen.llvm_ir.optimize` runs (part of the cache key)."""


@dataclass
class Unit:
    """Functions compiled together into one object file."""

    funcs: list[llvm.FuncOp] = field(default_factory=list)
    refs: set[str] = field(default_factory=set)
    ops: int = 0
    rest: bool = False
    kernel_key: str | None = None
    """The unit is one kernel lowered from a prim_func of this cache key
    (:func:`kernel_key`): its object is filed under that key too."""


@dataclass
class CompiledObjects:
    """A module's object files (one per unit, in a fixed order), the
    functions they define and whether they call the OpenMP runtime."""

    objects: list[bytes]
    functions: list[str]
    uses_openmp: bool
    cache_hits: int = 0
    libraries: list[str] = field(default_factory=list)
    """Linker words the external (BYOC) kernels need (``-L...``, ``-ldnnl``)."""


def _references(fn: llvm.FuncOp) -> tuple[set[str], int]:
    refs: set[str] = set()
    count = 0
    for op in fn.body.walk():
        count += 1
        if isinstance(op, llvm.CallOp):
            if op.callee is not None:
                refs.add(op.callee.string_value())
        elif isinstance(op, llvm.AddressOfOp):
            refs.add(op.global_name.string_value())
    return refs, count


def split_units(module: ModuleOp, kernels: list[str]) -> list[Unit]:
    """The kernel units (in the order of ``kernels``) and the rest (last)."""
    defined: dict[str, llvm.FuncOp] = {}
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and op.body.blocks:
            defined[op.sym_name.data] = op
    info = {name: _references(fn) for name, fn in defined.items()}
    owner: dict[str, int] = {}
    parent: list[int] = []

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for root in kernels:
        if root not in defined:
            continue
        index = len(parent)
        parent.append(index)
        stack = [root]
        while stack:
            name = stack.pop()
            if name in owner:
                a, b = find(owner[name]), find(index)
                if a != b:
                    parent[max(a, b)] = min(a, b)
                continue
            owner[name] = index
            stack += [r for r in info[name][0] if r in defined]
    units: dict[int, Unit] = {}
    rest = Unit(rest=True)
    for name, fn in defined.items():  # module order within a unit
        unit = units.setdefault(find(owner[name]), Unit()) if name in owner else rest
        unit.funcs.append(fn)
        unit.refs |= info[name][0]
        unit.ops += info[name][1]
    for unit in units.values():
        keys = [fn.attributes[KERNEL_KEY_ATTR] for fn in unit.funcs if KERNEL_KEY_ATTR in fn.attributes]
        if len(keys) == 1:  # a unit of several kernels is not one prim_func's object
            unit.kernel_key = keys[0].data  # type: ignore[attr-defined]
    return [units[k] for k in sorted(units)] + [rest]


def unit_ir(
    unit: Unit,
    funcs: dict[str, llvm.FuncOp],
    globals_: dict[str, llvm.GlobalOp],
    tm: llvm_binding.TargetMachine,
) -> str:
    """The LLVM IR text of one unit (see the module docstring)."""
    m = ir.Module()
    m.triple = tm.triple
    m.data_layout = str(tm.target_data)
    own = {fn.sym_name.data for fn in unit.funcs}
    hidden: list[str] = []
    for name, op in globals_.items():
        data = is_data_global(op)
        if not (unit.rest or name in unit.refs):
            continue
        internal = op.linkage.linkage.data in ("internal", "private")
        if unit.rest and not data:
            _convert_global(op, m)
            value = m.get_global(name)
            if value.linkage in ("external", "internal", "private"):
                # a definition's default (xDSL's "external" reads as a declaration)
                value.linkage = ""
        else:
            ir.GlobalVariable(m, convert_type(op.global_type), name=name)
        if internal and not data:
            hidden.append(name)
    for name, fn in funcs.items():
        if name in own or name in unit.refs:
            _declare_func(fn, m)
    for fn in unit.funcs:
        _convert_func(fn, m)
    text = str(m)
    for name in hidden:  # llvmlite's IR builder cannot spell visibility
        text = re.sub(
            rf'^(@"{re.escape(name)}" = )(external )?', r"\1\2hidden ", text, count=1, flags=re.M
        )
    return text


@dataclass
class _Work:
    units: list[Unit]
    funcs: dict[str, llvm.FuncOp]
    globals_: dict[str, llvm.GlobalOp]
    tm: llvm_binding.TargetMachine
    key_prefix: tuple[str, ...]
    cache: KernelCache | None


_WORK: _Work | None = None  # what forked workers read


def worker_init() -> None:
    """A code generation worker's setup: translation makes many small
    objects (see ``compile_gc``)."""
    gc.set_threshold(50_000, 20, 100)


def _compile_unit(index: int) -> tuple[int, bytes, bool]:
    work = _WORK
    assert work is not None
    obj, hit = compile_unit(
        work.units[index], work.funcs, work.globals_, work.tm, work.key_prefix, work.cache
    )
    return index, obj, hit


def compile_unit(
    unit: Unit,
    funcs: dict[str, llvm.FuncOp],
    globals_: dict[str, llvm.GlobalOp],
    tm: llvm_binding.TargetMachine,
    key_prefix: tuple[str, ...],
    cache: KernelCache | None,
) -> tuple[bytes, bool]:
    """The object of one unit (:func:`unit_ir`, O3, code generation), from
    the cache if it holds it (then True), filed in the cache otherwise; a
    kernel unit's object is filed under its prim_func's key too."""
    try:
        text = unit_ir(unit, funcs, globals_, tm)
    except (NotImplementedError, LLVMTranslationException) as err:
        raise CodegenError(
            f"cannot translate the module to LLVM IR ({err}); code generation takes a "
            "module of llvm-dialect functions: run convert-tir-to-llvm first"
        ) from None
    key = cache_key(*key_prefix, text) if cache is not None else ""
    if cache is not None:
        cached = cache.get(key)
        if cached is not None:
            _file_kernel(cache, unit, cached)
            return cached, True
    obj = tm.emit_object(optimize(text, tm))
    if cache is not None:
        cache.put(key, obj)
        _file_kernel(cache, unit, obj)
    return obj, False


def _file_kernel(cache: KernelCache, unit: Unit, obj: bytes) -> None:
    """File a kernel unit's object under its prim_func's key as well, so the
    next build skips the kernel's lowering (``CACHED_OBJECT_ATTR``)."""
    if unit.kernel_key is not None and not cache.path(unit.kernel_key).exists():
        cache.put(unit.kernel_key, obj)


def default_jobs() -> int:
    """Worker processes: ``$XTVM_COMPILE_JOBS``, else the usable cores."""
    value = os.environ.get(JOBS_ENV)
    if value:
        return max(1, int(value))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def compile_objects(
    module: ModuleOp,
    target: Target | str | None = None,
    kernels: list[str] | None = None,
    cache: KernelCache | None | bool = True,
    jobs: int | None = None,
) -> CompiledObjects:
    """Position-independent object files of an llvm-dialect module whose data
    globals are defined elsewhere (``data_globals``), one per unit (kernels
    are the packed functions to split apart: by default the metadata's
    ``functions``). ``cache=True`` uses the environment's cache
    (:meth:`KernelCache.from_env`), ``False``/``None`` none."""
    global _WORK
    from xtvm.byoc.compile import compile_external
    from xtvm.codegen.c_source import compile_c_sources
    from xtvm.codegen.data import read_metadata

    if kernels is None:
        kernels = list((read_metadata(module) or {}).get("functions", {}))
    if cache is True:
        cache = KernelCache.from_env()
    elif cache is False:
        cache = None
    target = Target.of(target)
    tm = target_machine(target, pic=True)
    units = split_units(module, kernels)
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, llvm.FuncOp)}
    globals_ = {op.sym_name.data: op for op in module.ops if isinstance(op, llvm.GlobalOp)}
    key_prefix = target_key(target, tm)
    prebuilt = _cached_kernels(module, cache)
    _WORK = _Work(units, funcs, globals_, tm, key_prefix, cache)
    jobs = default_jobs() if jobs is None else jobs
    order = sorted(range(len(units)), key=lambda i: -units[i].ops)  # largest first
    results: dict[int, tuple[bytes, bool]] = {}
    try:
        if (
            jobs <= 1
            or len(units) <= 1
            or "fork" not in multiprocessing.get_all_start_methods()
            or multiprocessing.current_process().daemon  # may not have children (conformance worker)
        ):
            for i in order:
                _, obj, hit = _compile_unit(i)
                results[i] = (obj, hit)
        else:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(
                min(jobs, len(units)), mp_context=context, initializer=worker_init
            ) as pool:
                for i, obj, hit in pool.map(_compile_unit, order):
                    results[i] = (obj, hit)
    except BrokenProcessPool as err:
        raise CodegenError(
            f"a code generation worker died ({err}); LLVM may have aborted"
        ) from None
    finally:
        _WORK = None
    refs = set().union(*(u.refs for u in units))
    c = compile_c_sources(module, target)  # the kernels of the c target
    external = compile_external(module, target)  # BYOC kernels (xtvm.byoc.compile)
    return CompiledObjects(
        objects=[results[i][0] for i in range(len(units))]
        + list(prebuilt.values())
        + c.objects
        + external.objects,
        functions=[fn.sym_name.data for u in units for fn in u.funcs]
        + list(prebuilt)
        + c.functions
        + external.functions,
        uses_openmp=OPENMP_SYMBOL in refs
        or any(uses_openmp(obj) for obj in prebuilt.values())
        or c.uses_openmp,
        cache_hits=sum(hit for _, hit in results.values()) + len(prebuilt),
        libraries=external.libraries,
    )


class KernelCacheMiss(CodegenError):
    """A kernel marked as cached (``CACHED_OBJECT_ATTR``) has no intact
    entry any more (removed or corrupted since): ``xtvm.build`` lowers it."""


def _cached_kernels(module: ModuleOp, cache: KernelCache | None) -> dict[str, bytes]:
    """The objects of the kernels ``xtvm.build`` found in the cache (their
    packed entries are declarations marked ``CACHED_OBJECT_ATTR``), by name."""
    found: dict[str, bytes] = {}
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and CACHED_OBJECT_ATTR in op.attributes:
            key = op.attributes[KERNEL_KEY_ATTR].data  # type: ignore[attr-defined]
            obj = cache.get(key) if cache is not None else None
            if obj is None:
                raise KernelCacheMiss(f"the cached object of kernel '{op.sym_name.data}' is gone")
            found[op.sym_name.data] = obj
    return found


def uses_openmp(obj: bytes) -> bool:
    """Whether an object file calls the OpenMP runtime (names its symbol)."""
    return OPENMP_SYMBOL.encode() in obj


def target_key(target: Target, tm: llvm_binding.TargetMachine) -> tuple[str, ...]:
    """What of the target and the toolchain every cache key holds: triple,
    data layout, CPU, features, relocation model, llvmlite's and LLVM's
    versions and the O3 options."""
    return (
        tm.triple,
        str(tm.target_data),
        target.cpu_name,
        target.llvm_features,
        "pic",
        llvmlite.__version__,
        ".".join(map(str, llvm_binding.llvm_version_info)),
        O3_OPTIONS,
    )


KEYED_SOURCES = (
    "lowering/tir_to_llvm",
    "lowering/conversion.py",
    "arith",
    "codegen/objects.py",
    "codegen/llvm_ir.py",
    "codegen/cache.py",
)
"""The source (under ``xtvm/``) that turns a prim_func into its object: a
change to it changes every prim_func key (:func:`kernel_key`)."""


@functools.cache
def source_fingerprint(names: tuple[str, ...]) -> str:
    """The sha256 of the source files (``*.py``) under each of ``names``
    (directories or files under ``xtvm/``; ``"."``: all of xtvm) and of
    xDSL's version: a change to that source changes the keys built on it."""
    import xdsl

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(f"xdsl {getattr(xdsl, '__version__', '?')}".encode())
    for name in names:
        path = root / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(str(file.relative_to(root)).encode())
            h.update(file.read_bytes())
    return h.hexdigest()


def kernel_key(prim_func: Operation, target: Target, tm: llvm_binding.TargetMachine) -> str:
    """The cache key of a prim_func's object: its structure
    (:func:`structure_text`; its name included: it names the symbols), the
    target (:func:`target_key`) and the fingerprint of the source that
    lowers and compiles it."""
    text = structure_text(prim_func)
    if text is None:  # a value from outside the op: its printed form says how it is used
        out = io.StringIO()
        Printer(stream=out).print_op(prim_func)
        text = "printed\n" + out.getvalue()
    return cache_key("prim_func", *target_key(target, tm), source_fingerprint(KEYED_SOURCES), text)


def structure_text(root: Operation) -> str | None:
    """Everything an op holds, as text: per op (pre-order) its name, its
    operands (numbered values), successors (numbered blocks), properties,
    attributes, result types and regions (blocks with their argument
    types). Three times cheaper than printing a large unrolled kernel (each
    distinct attribute is spelled once); value names are left out. None if
    an operand is defined outside ``root``."""
    ids: dict[SSAValue, int] = {}
    block_ids: dict[Block, int] = {}
    spelled: dict[Attribute, str] = {}
    out: list[str] = []

    def spell(attr: Attribute) -> str:
        try:
            found = spelled.get(attr)
        except TypeError:  # an attribute with unhashable parameters
            return str(attr)
        if found is None:
            found = spelled[attr] = str(attr)
        return found

    def visit(op: Operation) -> None:
        out.append(op.name)
        out.append("(" + ",".join(str(ids[v]) for v in op.operands) + ")")
        out.append("[" + ",".join(str(block_ids[b]) for b in op.successors) + "]")
        for name in sorted(op.properties):
            out.append(f"<{name}={spell(op.properties[name])}>")
        for name in sorted(op.attributes):
            out.append(f"{{{name}={spell(op.attributes[name])}}}")
        for result in op.results:
            ids[result] = len(ids)
            out.append(":" + spell(result.type))
        for region in op.regions:
            out.append("{")
            for block in region.blocks:  # branches may name a later block
                block_ids[block] = len(block_ids)
            for block in region.blocks:
                out.append(f"^{block_ids[block]}(")
                for arg in block.args:
                    ids[arg] = len(ids)
                    out.append(spell(arg.type) + ",")
                out.append(")")
                for child in block.ops:
                    visit(child)
            out.append("}")
        out.append(";")

    try:
        visit(root)
    except KeyError:
        return None
    return "\n".join(out)


def mark_cached_kernels(module: ModuleOp, target: Target | str | None = None) -> int:
    """Before ``convert-tir-to-llvm`` (in ``xtvm.build``, whose stages are
    not printed): key every kernel (``KERNEL_KEY_ATTR``) and mark those whose
    object the cache holds (``CACHED_OBJECT_ATTR``), which the conversion
    then only declares. Returns how many are marked (none without a cache)."""
    from xtvm.dialects.tir import PrimFuncOp

    cache = KernelCache.from_env()
    if cache is None:
        return 0
    target = Target.of(target)
    tm = target_machine(target, pic=True)
    marked = 0
    for op in module.ops:
        if not isinstance(op, PrimFuncOp) or EXTERNAL_SOURCE_ATTR in op.attributes:
            continue
        if CACHED_OBJECT_ATTR in op.attributes:  # a stub (codegen/stubs.py): marked already
            marked += 1
            continue
        key = kernel_key(op, target, tm)
        op.attributes[KERNEL_KEY_ATTR] = StringAttr(key)
        obj = cache.get(key)
        if obj is not None:
            op.attributes[CACHED_OBJECT_ATTR] = UnitAttr()
            if uses_openmp(obj):
                op.attributes[USES_OPENMP_ATTR] = UnitAttr()
            marked += 1
    return marked


__all__ = [
    "JOBS_ENV",
    "CompiledObjects",
    "KernelCacheMiss",
    "Unit",
    "compile_objects",
    "compile_unit",
    "kernel_key",
    "mark_cached_kernels",
    "source_fingerprint",
    "split_units",
    "structure_text",
    "unit_ir",
    "worker_init",
]
