"""Kernels lowered to LLVM and compiled while the rest of the build goes on.

A cold build used to run in two phases: the main process lowered every
kernel from ``tir`` to the llvm dialect (ResNet-50: about half of its CPU
time) while the code generation workers were not yet started, then the
workers ran O3 and code generation while the main process waited. Here
the workers start as soon as the kernels are final (``xtvm.build``'s
``kernels_ready``, after the ``tir`` stage): each one takes a kernel,
verifies it, lowers it with ``convert-tir-to-llvm`` in a module of its own
(:func:`~xtvm.codegen.objects.split_units` then finds the kernel's unit
exactly as in the whole module), compiles it (:func:`~xtvm.codegen.objects.compile_unit`)
and files its object in the kernel cache under the kernel's key. The main
process marks those kernels ``CACHED_OBJECT_ATTR`` and goes on with the
memory stages, the AOT entry, the metadata and the rest unit; before code
generation takes the kernels' objects from the cache, :meth:`wait` waits
for the workers.

Only ``xtvm.build`` does this, with a kernel cache (the keys are the
cache's) and more than one core; the printed stages (``xtvm-compile
--emit``, ``lower``) still hold every kernel in full. A kernel a worker
cannot verify, lower or compile makes :meth:`wait` raise
:class:`~xtvm.codegen.objects.KernelCacheMiss`, on which ``xtvm.build``
lowers the whole module again in the main process, where the error is
reported as without workers.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block

from xtvm.codegen.cache import KernelCache
from xtvm.codegen.llvm_ir import target_machine
from xtvm.codegen.objects import (
    KernelCacheMiss,
    compile_unit,
    default_jobs,
    split_units,
    target_key,
    worker_init,
)
from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import (
    CACHED_OBJECT_ATTR,
    EXTERNAL_SOURCE_ATTR,
    KERNEL_KEY_ATTR,
    USES_OPENMP_ATTR,
)
from xtvm.lowering.tir_to_llvm.function import ASSERT_MESSAGES_ATTR, assert_message
from xtvm.target import Target


@dataclass
class _Job:
    kernels: list[PrimFuncOp]
    target: Target
    cache: KernelCache


_JOB: _Job | None = None  # what the forked workers read


def _lower_and_compile(index: int) -> str | None:
    """In a worker: verify, lower and compile kernel ``index`` of the job and
    file its object under its key. None, or why it failed."""
    from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import convert_tir_to_llvm

    job = _JOB
    assert job is not None
    op = job.kernels[index]
    try:
        op.detach()  # this process's copy of the module is not used again
        for attr in (CACHED_OBJECT_ATTR, USES_OPENMP_ATTR):
            op.attributes.pop(attr, None)
        module = ModuleOp([op])
        op.verify()
        convert_tir_to_llvm(module)
        name = op.sym_name.data
        units = split_units(module, [name])
        funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, llvm.FuncOp)}
        globals_ = {g.sym_name.data: g for g in module.ops if isinstance(g, llvm.GlobalOp)}
        tm = target_machine(job.target, pic=True)
        unit = units[0]
        if unit.rest or unit.kernel_key is None:
            return f"kernel @{name} did not lower to a unit of its own"
        compile_unit(unit, funcs, globals_, tm, target_key(job.target, tm), job.cache)
    except Exception as err:  # reported again by the main process's own lowering
        return f"{type(err).__name__}: {err}"
    return None


@dataclass
class _Survey:
    """What the main process keeps of a kernel it gives to the workers."""

    parallel: bool  # it has a parallel loop (its object may call OpenMP)
    size: int  # how many ops it holds (the largest go first)
    asserts: list[str]  # its assert messages (``assert_messages``), which the metadata lists


def _survey(op: PrimFuncOp) -> _Survey:
    """One walk over a kernel: see :class:`_Survey`."""
    parallel, size, asserts = False, 0, []
    for inner in op.walk():
        size += 1
        if inner.name == "tir.for" and inner.kind.data == "parallel":  # type: ignore[attr-defined]
            parallel = True
        elif (message := assert_message(inner)) is not None:
            asserts.append(message)
    return _Survey(parallel, size, asserts)


def _leave_out_body(op: PrimFuncOp, asserts: list[str]) -> None:
    """Make a kernel the workers have (they forked with it) its stub in the
    main process, as a warm build's (:mod:`xtvm.codegen.stubs`): its assert
    messages kept as an attribute, its body left out. The rest of the build
    then neither walks the kernel's ops (``convert-tir-to-llvm`` declares
    its packed entry, the metadata reads the messages) nor erases them one
    by one: the detached body is garbage for the collector."""
    op.attributes[ASSERT_MESSAGES_ATTR] = ArrayAttr(StringAttr(m) for m in asserts)
    block = op.body.block
    op.body.detach_block(block)
    op.body.add_block(Block(arg_types=[arg.type for arg in block.args]))


class BackgroundKernels:
    """The kernels being lowered and compiled in worker processes."""

    def __init__(self, pool: ProcessPoolExecutor, futures: dict[str, Future[str | None]]):
        self._pool = pool
        self._futures = futures

    @classmethod
    def start(
        cls, module: ModuleOp, target: Target, jobs: int | None = None
    ) -> BackgroundKernels | None:
        """Start compiling every kernel of ``module`` that has a cache key and
        no cached object, and mark it ``CACHED_OBJECT_ATTR`` (with
        ``USES_OPENMP_ATTR`` if it has a parallel loop). None (nothing
        started) without a cache, with one core, without ``fork``, in a
        daemon process (which may not have children) or with no such kernel."""
        global _JOB
        cache = KernelCache.from_env()
        jobs = default_jobs() if jobs is None else jobs
        if (
            cache is None
            or jobs <= 1
            or "fork" not in multiprocessing.get_all_start_methods()
            or multiprocessing.current_process().daemon
        ):
            return None
        kernels: list[tuple[PrimFuncOp, _Survey]] = []
        for op in module.ops:
            if (
                isinstance(op, PrimFuncOp)
                and isinstance(op.attributes.get(KERNEL_KEY_ATTR), StringAttr)
                and CACHED_OBJECT_ATTR not in op.attributes
                and EXTERNAL_SOURCE_ATTR not in op.attributes
            ):
                kernels.append((op, _survey(op)))
        if not kernels:
            return None
        kernels.sort(key=lambda k: -k[1].size)  # largest first
        _JOB = _Job([op for op, _ in kernels], target, cache)
        futures: dict[str, Future[str | None]] = {}
        try:
            pool = ProcessPoolExecutor(
                min(jobs, len(kernels)),
                mp_context=multiprocessing.get_context("fork"),
                initializer=worker_init,
            )
            for i, (op, _) in enumerate(kernels):
                futures[op.sym_name.data] = pool.submit(_lower_and_compile, i)
        finally:
            _JOB = None  # the workers forked with it (on the first submit)
        for op, survey in kernels:
            op.attributes[CACHED_OBJECT_ATTR] = UnitAttr()
            if survey.parallel:
                op.attributes[USES_OPENMP_ATTR] = UnitAttr()
            _leave_out_body(op, survey.asserts)
        return cls(pool, futures)

    def wait(self) -> None:
        """Wait for every kernel; raise :class:`KernelCacheMiss` naming the
        first that failed (the caller lowers the module again)."""
        try:
            for name, future in self._futures.items():
                error = future.result()
                if error is not None:
                    raise KernelCacheMiss(f"kernel '{name}' failed in a worker: {error}")
        except Exception as err:
            if isinstance(err, KernelCacheMiss):
                raise
            raise KernelCacheMiss(f"a code generation worker failed ({err})") from None
        finally:
            self.close()

    def close(self) -> None:
        """Stop the workers (a kernel not started is not compiled)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["BackgroundKernels"]
