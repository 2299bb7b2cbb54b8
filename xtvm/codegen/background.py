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

A build that keeps kernel stubs (:mod:`xtvm.codegen.stubs`) starts its
workers earlier still, once the primitive functions exist (before
``convert-relay-to-tir``): :class:`PrimitiveWorkers` gives each primitive
function without a cached stub to a worker, which runs its kernel's whole
path — the ``tir`` stage's passes on a module of that function alone, the
kernel key, verification, ``convert-tir-to-llvm``, the unit's compilation
— and files the object and the stub. Each worker sends the main process a
kernel's stub as soon as its ``tir`` passes are done; ``convert-relay-to-tir``
waits for it and puts it where the kernel would be, and the main process
goes on as a warm build does while the workers compile.
"""

from __future__ import annotations

import functools
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block

from xtvm.codegen.cache import KernelCache
from xtvm.codegen.llvm_ir import target_machine
from xtvm.codegen.objects import (
    KernelCacheMiss,
    compile_unit,
    default_jobs,
    kernel_key,
    split_units,
    target_key,
    uses_openmp,
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

if TYPE_CHECKING:
    from xtvm.codegen.stubs import PrimitiveKernels


@dataclass
class _Job:
    kernels: list[PrimFuncOp]
    target: Target
    cache: KernelCache


_JOB: _Job | None = None  # what the forked workers read


def _lower_and_compile(index: int) -> str | None:
    """In a worker: verify, lower and compile kernel ``index`` of the job and
    file its object under its key. None, or why it failed."""
    job = _JOB
    assert job is not None
    op = job.kernels[index]
    try:
        op.detach()  # this process's copy of the module is not used again
        for attr in (CACHED_OBJECT_ATTR, USES_OPENMP_ATTR):
            op.attributes.pop(attr, None)
        _compile_kernel(op, job.target, job.cache)
    except Exception as err:  # reported again by the main process's own lowering
        return f"{type(err).__name__}: {err}"
    return None


def _compile_kernel(op: PrimFuncOp, target: Target, cache: KernelCache) -> None:
    """Verify a keyed kernel that stands alone (detached), lower it in a
    module of its own, compile its unit and file its object under its key;
    raises what fails."""
    from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import convert_tir_to_llvm

    module = ModuleOp([op])
    op.verify()
    convert_tir_to_llvm(module)
    name = op.sym_name.data
    units = split_units(module, [name])
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, llvm.FuncOp)}
    globals_ = {g.sym_name.data: g for g in module.ops if isinstance(g, llvm.GlobalOp)}
    tm = target_machine(target, pic=True)
    unit = units[0]
    if unit.rest or unit.kernel_key is None:
        raise ValueError(f"kernel @{name} did not lower to a unit of its own")
    compile_unit(unit, funcs, globals_, tm, target_key(target, tm), cache)


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


@dataclass
class _Primitives:
    """What the forked primitive workers read (:class:`PrimitiveWorkers`)."""

    functions: list[func.FuncOp]  # largest first
    keys: list[str]  # each function's stub key (its primitive key)
    run_tir: Callable[[ModuleOp], None]  # the tir stage's passes
    target: Target
    cache: KernelCache
    next: Any  # a shared counter: the next function to take
    writers: list[Connection]  # one per worker: what it tells the main process


_PRIMITIVES: _Primitives | None = None  # what the forked primitive workers read


def _primitive_worker(me: int) -> None:
    """A primitive worker's life: take the next function until none is
    left, and tell the main process ``("start", i)``, then ``("stub", i,
    text, openmp)`` once the kernel's ``tir`` passes are done, then
    ``("done", i, error)`` (None once its object and stub are filed)."""
    from xtvm.lowering.relay_to_tir.kernel import KERNEL_REUSE

    job = _PRIMITIVES
    assert job is not None
    conn = job.writers[me]
    for other in job.writers:
        if other is not conn:
            other.close()  # so a worker's end is its pipe's end (EOF)
    worker_init()
    KERNEL_REUSE.set(None)  # lower every function given, and key none
    while True:
        with job.next.get_lock():
            i = job.next.value
            job.next.value = i + 1
        if i >= len(job.functions):
            break
        conn.send(("start", i))
        conn.send(("done", i, _lower_primitive(job, i, conn)))
    conn.close()


def _lower_primitive(job: _Primitives, i: int, conn: Connection) -> str | None:
    """In a worker: primitive function ``i`` through the ``tir`` stage's
    passes alone (its kernel as the main process would make it), keyed,
    its stub sent; then, unless the cache holds its object, verified,
    lowered, compiled and filed; its stub filed last. None, or why it
    failed."""
    from xtvm.codegen.stubs import stub_text

    try:
        fn = job.functions[i]
        fn.detach()  # this process's copy of the module is not used again
        module = ModuleOp([fn])
        job.run_tir(module)
        (op,) = module.ops
        if not isinstance(op, PrimFuncOp):
            return f"@{fn.sym_name.data} lowered to '{op.name}', not one tir.prim_func"
        op.detach()
        key = kernel_key(op, job.target, target_machine(job.target, pic=True))
        op.attributes[KERNEL_KEY_ATTR] = StringAttr(key)
        obj = job.cache.get(key)
        text = stub_text(op)
        conn.send(("stub", i, text, uses_openmp(obj) if obj is not None else _survey(op).parallel))
        if obj is None:
            _compile_kernel(op, job.target, job.cache)
        job.cache.put(job.keys[i], text.encode())
    except Exception as err:  # reported again by the main process's own lowering
        return f"{type(err).__name__}: {err}"
    return None


def _relay_size(fn: func.FuncOp) -> int:
    """How large a primitive function's kernel will be, roughly (the
    largest go first): its ops, a Winograd conv counted as its kernel's
    transforms and batched products make it (ResNet-50's largest)."""
    return sum(40 if "winograd" in op.name else 1 for op in fn.body.walk())


class PrimitiveWorkers:
    """Primitive functions lowered and compiled in worker processes, from
    relay (see the module docstring); their stubs stand in for their
    kernels in the main process."""

    def __init__(self, processes: list[BaseProcess], readers: list[Connection], names: list[str]):
        self._processes = processes
        self._readers = {conn: k for k, conn in enumerate(readers)}
        self._names = names
        self._current: dict[int, int] = {}  # worker → the function it works on
        self._stubs: dict[int, tuple[str, bool] | None] = {}  # None: failed before
        self._done: dict[int, str | None] = {}  # the error, if any
        self._given: set[int] = set()  # the functions whose stub the build took

    @classmethod
    def start(
        cls,
        module: ModuleOp,
        kernels: PrimitiveKernels,
        run_tir: Callable[[ModuleOp], None],
        target: Target,
        jobs: int | None = None,
    ) -> PrimitiveWorkers | None:
        """Before ``convert-relay-to-tir`` (``module``, a graph module at the
        ``relay-opt`` stage): merge its identical primitive functions, look
        each one's stub up in ``kernels``, and start lowering (``run_tir``:
        the ``tir`` stage's passes), compiling and filing those it lacks in
        worker processes, largest first. Every looked-up function's answer
        is left with ``kernels`` (:meth:`PrimitiveKernels.decide`) for
        ``convert-relay-to-tir``'s lookup: a stub found, or the stub a
        worker sends. None (nothing started) with one core, without
        ``fork``, in a daemon process or when every stub was found."""
        global _PRIMITIVES
        from xtvm.dialects.relay.primitive import is_primitive
        from xtvm.lowering.relay_to_tir.convert_relay_to_tir import merge_identical_primitives

        jobs = default_jobs() if jobs is None else jobs
        if (
            jobs <= 1
            or "fork" not in multiprocessing.get_all_start_methods()
            or multiprocessing.current_process().daemon
        ):
            return None
        merge_identical_primitives(module)  # as the pass does first: one kernel each
        todo: list[tuple[int, func.FuncOp, str]] = []
        for op in module.ops:
            if not is_primitive(op) or op.is_declaration:
                continue
            key, stub = kernels.find(op)
            if stub is not None:
                kernels.decide(op.sym_name.data, functools.partial(_found, key, stub))
            elif key is not None:
                todo.append((_relay_size(op), op, key))
        if not todo:
            return None
        todo.sort(key=lambda t: -t[0])
        context = multiprocessing.get_context("fork")
        pipes = [context.Pipe(duplex=False) for _ in range(min(jobs, len(todo)))]
        _PRIMITIVES = _Primitives(
            [op for _, op, _ in todo],
            [key for _, _, key in todo],
            run_tir,
            target,
            kernels.cache,
            context.Value("i", 0),
            [w for _, w in pipes],
        )
        processes: list[BaseProcess] = []
        try:
            for k in range(len(pipes)):
                process = context.Process(target=_primitive_worker, args=(k,), daemon=True)
                process.start()
                processes.append(process)
        except BaseException:
            for process in processes:
                process.terminate()
            raise
        finally:
            _PRIMITIVES = None
            for _, w in pipes:
                w.close()
        workers = cls(processes, [r for r, _ in pipes], [op.sym_name.data for _, op, _ in todo])
        for i, (_, op, key) in enumerate(todo):
            kernels.decide(op.sym_name.data, functools.partial(workers._stub, i, key))
        return workers

    def _receive(self) -> None:
        """Wait for the next messages of the workers (or their end)."""
        if not self._readers:  # every worker has ended: what is not done failed
            for i in range(len(self._names)):
                self._stubs.setdefault(i, None)
                self._done.setdefault(i, "its worker ended before it")
            return
        for conn in wait(list(self._readers)):
            assert isinstance(conn, Connection)
            worker = self._readers[conn]
            try:
                message = conn.recv()
            except (EOFError, OSError):  # the worker ended (or died)
                del self._readers[conn]
                conn.close()
                if (i := self._current.pop(worker, None)) is not None and i not in self._done:
                    self._stubs.setdefault(i, None)
                    self._done[i] = "its worker died"
                continue
            kind, i = message[0], message[1]
            if kind == "start":
                self._current[worker] = i
            elif kind == "stub":
                self._stubs[i] = (message[2], message[3])
            else:
                self._done[i] = message[2]
                self._stubs.setdefault(i, None)
                self._current.pop(worker, None)

    def _stub(self, i: int, key: str) -> tuple[str | None, PrimFuncOp | None]:
        """Function ``i``'s key and the stub its worker sent (marked cached),
        waiting for it; no stub if the worker failed before (the main
        process lowers the function)."""
        from xtvm.codegen.stubs import _parse_stub, mark_stub

        while i not in self._stubs:
            self._receive()
        sent = self._stubs[i]
        stub = _parse_stub(sent[0].encode()) if sent is not None else None
        if sent is None or stub is None or stub.sym_name.data != self._names[i]:
            return key, None
        self._given.add(i)
        return key, mark_stub(stub, sent[1])

    def wait(self) -> None:
        """Wait for every function's object; raise :class:`KernelCacheMiss`
        naming the first whose stub the build took and that failed (the
        caller lowers the module again); the main process lowered those
        whose stub never came."""
        try:
            while len(self._done) < len(self._names):
                self._receive()
            while self._readers:  # each worker ends once no function is left
                self._receive()
            for process in self._processes:
                process.join()
            for i, name in enumerate(self._names):
                if i in self._given and (error := self._done[i]) is not None:
                    raise KernelCacheMiss(f"kernel '{name}' failed in a worker: {error}")
        finally:
            self.close()

    def close(self) -> None:
        """Stop the workers (a function not started is not lowered)."""
        for process in self._processes:
            if process.is_alive():
                process.terminate()
        for process in self._processes:
            process.join()
        for conn in self._readers:
            conn.close()
        self._readers = {}


def _found(key: str | None, stub: PrimFuncOp) -> tuple[str | None, PrimFuncOp | None]:
    return key, stub


__all__ = ["BackgroundKernels", "PrimitiveWorkers"]
