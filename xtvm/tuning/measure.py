"""Measuring candidates: a builder and a runner (TVM's ``autotvm.measure``).

The interface (stable; an RPC runner implements :class:`Runner` too)::

    inputs  = [MeasureInput(task, config), ...]
    builds  = builder.build(inputs)            # list[BuildResult], same order
    results = runner.run(inputs, builds)       # list[MeasureResult], same order

* :class:`MeasureInput`: a :class:`~xtvm.tuning.task.Task` and a candidate
  (an AutoTVM :class:`~xtvm.autotvm.space.ConfigEntity`);
* :class:`BuildResult`: ``filename``, a shared library exported by
  ``export_library`` holding the kernel ``func_name`` (what a remote runner
  uploads), ``args`` (each argument's name, shape and dtype, from the
  library's metadata), ``error_no``/``error_msg`` when the build failed, and
  ``time_cost`` (seconds);
* :class:`MeasureResult`: ``costs`` (seconds per call of each repeat; the
  error message instead when ``error_no`` is not 0), ``error_no``,
  ``all_cost`` (seconds spent building and measuring), ``timestamp``.

A runner must give a failed build's error through unchanged and must never
raise for a candidate: a crash, a hang or a wrong answer is an error
record (:class:`MeasureErrorNo`) and the search goes on.

:class:`LocalBuilder` compiles candidates in ``jobs`` worker processes
(parallel); :class:`LocalRunner` measures them one at a time in one worker
process with :func:`measure_library` (the runtime's ``time_evaluator``:
a warm-up call, then ``repeat`` rounds of ``number`` calls, ``number``
grown until a round lasts ``min_repeat_ms``; at 1 thread by default on
the measuring thread's CPU time, ``clock=time.thread_time``), with a timeout, so a
candidate that crashes or hangs kills only that worker, which is restarted.
"""

from __future__ import annotations

import enum
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from xtvm.autotvm.dispatch import config_from_json
from xtvm.autotvm.space import ConfigEntity
from xtvm.tuning.task import Task
from xtvm.tuning.workers import WorkerFailure, WorkerPool


class MeasureErrorNo(enum.IntEnum):
    """Why a candidate has no time (TVM's numbering)."""

    NO_ERROR = 0
    INSTANTIATION_ERROR = 1
    COMPILE_HOST = 2
    COMPILE_DEVICE = 3
    RUNTIME_DEVICE = 4
    WRONG_ANSWER = 5
    BUILD_TIMEOUT = 6
    RUN_TIMEOUT = 7
    UNKNOWN_ERROR = 8


@dataclass
class MeasureInput:
    """A candidate: ``config`` of ``task``."""

    task: Task
    config: ConfigEntity


@dataclass
class BuildResult:
    """What the builder made of one candidate (see the module)."""

    filename: str | None
    func_name: str
    args: list[dict[str, Any]] = field(default_factory=list)
    error_no: int = MeasureErrorNo.NO_ERROR
    error_msg: str = ""
    time_cost: float = 0.0


@dataclass
class MeasureResult:
    """One candidate's measurement (see the module)."""

    costs: list[float] | list[str]
    error_no: int
    all_cost: float
    timestamp: float

    @property
    def mean(self) -> float:
        """Mean seconds per call; infinity for an error."""
        if self.error_no or not self.costs:
            return float("inf")
        return sum(self.costs) / len(self.costs)  # type: ignore[arg-type]

    @property
    def cost(self) -> float:
        """The fastest round's seconds per call (what the search ranks by:
        on a shared machine the least disturbed round is the kernel's own
        speed); infinity for an error."""
        if self.error_no or not self.costs:
            return float("inf")
        return min(self.costs)  # type: ignore[type-var]


class Builder(Protocol):
    def build(self, inputs: Sequence[MeasureInput]) -> list[BuildResult]: ...


class Runner(Protocol):
    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]: ...


# -- building ----------------------------------------------------------------------


def lower_kernel(prim, target: str):
    """A module holding ``prim`` (a ``tir.prim_func`` as the kernel builder
    made it) after the tir stage's passes, as a model's kernels get them:
    ``tir-flatten-buffer``, ``tir-simplify``, ``tir-unroll-loop`` at opt
    level 3. (``xtvm.build`` of a bare prim_func takes it as already past
    them: its index arithmetic stays unfolded, and the hand-written
    schedules, which rely on ``tir-simplify``, ran at about half their
    speed in a model.)"""
    from xdsl.dialects.builtin import ModuleOp

    from xtvm.driver.build_module import lower
    from xtvm.target import Target
    from xtvm.transform import PassContext

    with Target.of(target), PassContext(opt_level=3):
        return lower(ModuleOp([prim.clone()]), None, stage="tir", start="relay-opt")


def compile_kernel(prim, target: str):
    """The kernel library of ``prim``, compiled as a model's kernels are
    (:func:`lower_kernel`, then LLVM)."""
    import xtvm
    from xtvm.target import Target
    from xtvm.transform import PassContext

    module = lower_kernel(prim, target)
    with Target.of(target), PassContext(opt_level=3):
        return xtvm.build(module, target=target)


def build_candidate(request: dict[str, Any]) -> dict[str, Any]:
    """The build worker's handler: lower ``request["task"]`` under
    ``request["config"]`` (None: the hand-written schedule), compile and
    export the kernel library into ``request["out_dir"]``."""
    start = time.perf_counter()
    task = Task.from_json(request["task"])
    try:
        config = config_from_json(request["config"]) if request.get("config") else None
        prim = task.build_kernel(config)
    except Exception as err:  # a config the template cannot apply
        return {
            "error_no": MeasureErrorNo.INSTANTIATION_ERROR,
            "error_msg": f"{type(err).__name__}: {err}",
        }
    try:
        lib = compile_kernel(prim, task.target)
        fd, filename = tempfile.mkstemp(suffix=".so", dir=request["out_dir"])
        os.close(fd)
        lib.export_library(filename)
    except Exception as err:
        return {
            "error_no": MeasureErrorNo.COMPILE_HOST,
            "error_msg": f"{type(err).__name__}: {err}",
        }
    name = prim.sym_name.data
    return {
        "filename": filename,
        "func_name": name,
        "args": lib.header["functions"][name]["args"],
        "time_cost": time.perf_counter() - start,
    }


class LocalBuilder:
    """Builds candidates in ``jobs`` worker processes (see the module);
    libraries go to ``out_dir`` (a temporary directory by default)."""

    def __init__(self, jobs: int = 1, timeout: float = 120.0, out_dir: str | None = None):
        self.timeout = timeout
        self._tmp = None if out_dir else tempfile.TemporaryDirectory(prefix="xtvm-tune-")
        self.out_dir = out_dir or self._tmp.name  # type: ignore[union-attr]
        self.pool = WorkerPool("xtvm.tuning.measure:build_candidate", jobs)

    def build(self, inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        requests = [
            {"task": i.task.to_json(), "config": i.config.to_json(), "out_dir": self.out_dir}
            for i in inputs
        ]
        results = []
        for inp, reply in zip(inputs, self.pool.map(requests, self.timeout)):
            if isinstance(reply, WorkerFailure):
                code = (
                    MeasureErrorNo.BUILD_TIMEOUT if reply.timeout else MeasureErrorNo.COMPILE_HOST
                )
                results.append(
                    BuildResult(None, inp.task.name, error_no=code, error_msg=reply.message)
                )
            elif "worker_error" in reply:
                results.append(
                    BuildResult(
                        None,
                        inp.task.name,
                        error_no=MeasureErrorNo.UNKNOWN_ERROR,
                        error_msg=reply["worker_error"],
                    )
                )
            else:
                results.append(
                    BuildResult(
                        reply.get("filename"),
                        reply.get("func_name", inp.task.name),
                        reply.get("args", []),
                        reply.get("error_no", 0),
                        reply.get("error_msg", ""),
                        reply.get("time_cost", 0.0),
                    )
                )
        return results

    def close(self) -> None:
        self.pool.close()
        if self._tmp is not None:
            self._tmp.cleanup()


# -- running -----------------------------------------------------------------------


def random_arguments(args: Sequence[dict[str, Any]], seed: int = 0) -> list[Any]:
    """Seeded random NumPy arrays of the kernel's arguments' shapes and dtypes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for arg in args:
        dtype = np.dtype(arg["dtype"])
        if dtype.kind == "f":
            out.append(rng.standard_normal(arg["shape"]).astype(dtype))
        else:
            out.append(rng.integers(0, 8, arg["shape"]).astype(dtype))
    return out


_REFERENCES: dict[str, list[Any]] = {}
"""The runner worker's reference outputs, by reference library."""


def _outputs(filename: str, func_name: str, args: Sequence[dict[str, Any]]) -> list[Any]:
    """Every argument of one seeded call of the kernel (inputs unchanged, outputs written)."""
    import xtvm

    lib = xtvm.runtime.load_module(filename)
    arrays = [xtvm.nd.array(a) for a in random_arguments(args)]
    lib[func_name](*arrays)
    return [a.numpy() for a in arrays]


def measure_library(request: dict[str, Any]) -> dict[str, Any]:
    """The runner worker's handler (also what a remote runner calls): time
    ``func_name`` of library ``filename`` on seeded random arguments with
    ``time_evaluator(number, repeat, min_repeat_ms)`` at ``threads``
    threads (``clock="cpu"``: on the thread's CPU time; ``flush_cache``:
    :func:`cold_calls`); with ``reference`` (another library of the same kernel), first
    compare the outputs of one call with the reference's."""
    import numpy as np

    import xtvm

    if request.get("threads"):
        xtvm.runtime.set_num_threads(int(request["threads"]))
    filename, name, args = request["filename"], request["func_name"], request["args"]
    reference = request.get("reference")
    if reference:
        if reference not in _REFERENCES:
            _REFERENCES[reference] = _outputs(reference, name, args)
        got = _outputs(filename, name, args)
        for i, (a, b) in enumerate(zip(got, _REFERENCES[reference], strict=True)):
            scale = max(float(np.max(np.abs(b))), 1.0) if b.size else 1.0
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-4 * scale):
                return {
                    "error_no": MeasureErrorNo.WRONG_ANSWER,
                    "error_msg": f"argument {i} differs from the reference",
                }
    lib = xtvm.runtime.load_module(filename)
    arrays = [xtvm.nd.array(a) for a in random_arguments(args)]
    number, repeat = int(request.get("number", 1)), int(request.get("repeat", 3))
    min_repeat_ms = float(request.get("min_repeat_ms", 50))
    # "cpu": the calling thread's CPU time, a 1-thread kernel's own time (on a
    # shared machine the wall clock mostly measures the load)
    clock = time.thread_time if request.get("clock") == "cpu" else time.perf_counter
    if request.get("flush_cache"):
        return {"costs": cold_calls(lib[name].bind(arrays), arrays[0], repeat, clock)}
    timer = lib.time_evaluator(
        name, xtvm.cpu(0), number=number, repeat=repeat, min_repeat_ms=min_repeat_ms, clock=clock
    )
    return {"costs": list(timer(*arrays).results)}


FLUSH_BYTES = 64 << 20
"""What a cache flush writes over: more than the last-level cache."""

_FLUSH: list[Any] = []


def cold_calls(call, first, repeat: int, clock) -> list[float]:
    """``repeat`` timed single calls, each after the caches were flushed
    and the first argument (the activation, which the previous kernel of
    a model has just written) read back in: the weights come from memory,
    as in a model (TVM's ``enable_cpu_cache_flush``, which warm repeated
    calls overstate)."""
    import numpy as np

    if not _FLUSH:
        _FLUSH.append(np.zeros(FLUSH_BYTES // 8))
    buffer = _FLUSH[0]
    call()
    costs = []
    for _ in range(repeat):
        buffer += 1.0
        first.numpy().sum()
        start = clock()
        call()
        costs.append(clock() - start)
    return costs


class LocalRunner:
    """Measures candidates one at a time in a worker process (see the
    module). ``threads``: the kernel's thread count (1 by default: the
    schedule's own speed, steadier on a shared machine); ``check``: compare
    each candidate's outputs with the hand-written schedule's; ``clock``:
    ``"wall"`` or ``"cpu"`` (``time_evaluator``'s clock: the thread's CPU
    time, the default at 1 thread); ``flush_cache``: ``repeat`` single
    calls each on cold caches (:func:`cold_calls`)."""

    def __init__(
        self,
        number: int = 1,
        repeat: int = 3,
        min_repeat_ms: float = 50,
        timeout: float = 30.0,
        threads: int = 1,
        check: bool = False,
        clock: str | None = None,
        flush_cache: bool = False,
    ):
        clock = clock or ("cpu" if threads == 1 else "wall")
        if clock not in ("cpu", "wall") or (clock == "cpu" and threads != 1):
            raise ValueError(
                f"clock must be 'wall', or 'cpu' at 1 thread; got {clock!r} at {threads} threads"
            )
        self.options = {
            "number": number,
            "repeat": repeat,
            "min_repeat_ms": min_repeat_ms,
            "threads": threads,
            "clock": clock,
            "flush_cache": flush_cache,
        }
        self.timeout = timeout
        self.check = check
        self.references: dict[str, str] = {}
        self.pool = WorkerPool(
            "xtvm.tuning.measure:measure_library", 1, env={"OMP_NUM_THREADS": str(threads)}
        )

    def _reference(self, task: Task, builder_dir: str) -> str | None:
        if task.key not in self.references:
            reply = build_candidate(
                {"task": task.to_json(), "config": None, "out_dir": builder_dir}
            )
            self.references[task.key] = reply.get("filename")
        return self.references[task.key]

    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        results: list[MeasureResult] = []
        for inp, build in zip(inputs, builds, strict=True):
            start = time.perf_counter()
            if build.error_no or not build.filename:
                results.append(
                    MeasureResult([build.error_msg], build.error_no, build.time_cost, time.time())
                )
                continue
            request = {
                "filename": build.filename,
                "func_name": build.func_name,
                "args": build.args,
                **self.options,
            }
            if self.check:
                request["reference"] = self._reference(inp.task, os.path.dirname(build.filename))
            (reply,) = self.pool.map([request], self.timeout)
            cost = build.time_cost + time.perf_counter() - start
            if isinstance(reply, WorkerFailure):
                code = (
                    MeasureErrorNo.RUN_TIMEOUT if reply.timeout else MeasureErrorNo.RUNTIME_DEVICE
                )
                results.append(MeasureResult([reply.message], code, cost, time.time()))
            elif "worker_error" in reply:
                results.append(
                    MeasureResult(
                        [reply["worker_error"]], MeasureErrorNo.RUNTIME_DEVICE, cost, time.time()
                    )
                )
            elif reply.get("error_no"):
                results.append(
                    MeasureResult([reply["error_msg"]], reply["error_no"], cost, time.time())
                )
            else:
                results.append(
                    MeasureResult(reply["costs"], MeasureErrorNo.NO_ERROR, cost, time.time())
                )
        return results

    def close(self) -> None:
        self.pool.close()


def measure(
    builder: Builder, runner: Runner, inputs: Sequence[MeasureInput]
) -> list[MeasureResult]:
    """Build then run ``inputs``."""
    return runner.run(inputs, builder.build(inputs))
