"""`RPCRunner`: the tuning runner that measures candidates on servers of a tracker
(TVM's ``autotvm.RPCRunner``), behind the interface of `xtvm.tuning.measure`.

    runner = RPCRunner("x86-avx512", tracker=("127.0.0.1", 9190), number=1, repeat=3)
    results = runner.run(inputs, builder.build(inputs))     # list[MeasureResult]

For each batch the runner requests a session from the tracker, and for each
candidate uploads its library, loads it, places seeded random arguments on
the server (`xtvm.tuning.measure.random_arguments`, the local runner's) and
times the kernel there with the runtime's ``time_evaluator`` at
``threads`` threads, on the same clock as `LocalRunner` (the serving
thread's CPU time at 1 thread, else the wall clock): the numbers are the
local runner's, measured on the server. With ``check``, the
candidate's outputs of one call are compared with those of the task's
hand-written schedule (built here, run on the server once per task).

Every failure is an error record, never an exception: a failed build is
passed through; a crash ends the session (the server says which signal, and
the runner asks the tracker for a new session for the next candidate); a
candidate slower than ``timeout`` is ``RUN_TIMEOUT`` (its session is closed,
which makes the server kill it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from xtvm.rpc.client import RPCSession
from xtvm.rpc.protocol import RPCError, RPCTimeout
from xtvm.rpc.tracker import connect_tracker
from xtvm.tuning.measure import (
    BuildResult,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    build_candidate,
    random_arguments,
)


class RPCRunner:
    """Measures candidates on a tracker's servers of ``key`` (see the module)."""

    def __init__(
        self,
        key: str,
        tracker: tuple[str, int],
        token: str | None = None,
        number: int = 1,
        repeat: int = 3,
        min_repeat_ms: float = 50,
        timeout: float = 30.0,
        priority: float = 1,
        session_timeout: float | None = None,
        check: bool = False,
        threads: int = 1,
        clock: str | None = None,
    ):
        clock = clock or ("cpu" if threads == 1 else "wall")
        if clock not in ("cpu", "wall") or (clock == "cpu" and threads != 1):
            raise ValueError(
                f"clock must be 'wall', or 'cpu' at 1 thread; got {clock!r} at {threads} threads"
            )
        self.key = key
        self.tracker = tracker
        self.token = token
        self.threads = threads
        self.options = {
            "number": number,
            "repeat": repeat,
            "min_repeat_ms": min_repeat_ms,
            "clock": clock,
        }
        self.timeout = timeout
        self.priority = priority
        self.session_timeout = session_timeout
        self.check = check
        self._references: dict[str, str | None] = {}  # task key -> reference library
        self._expected: dict[str, list[np.ndarray]] = {}  # task key -> reference outputs

    def _session(self) -> RPCSession:
        with connect_tracker(*self.tracker, token=self.token) as link:
            session = link.request(
                self.key, priority=self.priority, session_timeout=self.session_timeout
            )
        session.timeout = self.timeout
        session.get_function("runtime.set_num_threads")(self.threads)
        return session

    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        results: list[MeasureResult] = []
        session: RPCSession | None = None
        try:
            for inp, build in zip(inputs, builds, strict=True):
                start = time.perf_counter()
                if build.error_no or not build.filename:
                    results.append(
                        MeasureResult(
                            [build.error_msg], build.error_no, build.time_cost, time.time()
                        )
                    )
                    continue
                try:
                    if session is None or session.closed:
                        session = self._session()
                    costs = self._measure(session, inp, build)
                    code, record = MeasureErrorNo.NO_ERROR, costs
                except _WrongAnswer as err:
                    code, record = MeasureErrorNo.WRONG_ANSWER, [str(err)]
                except RPCTimeout as err:
                    code, record = MeasureErrorNo.RUN_TIMEOUT, [str(err)]
                except RPCError as err:
                    code, record = MeasureErrorNo.RUNTIME_DEVICE, [str(err)]
                cost = build.time_cost + time.perf_counter() - start
                results.append(MeasureResult(record, code, cost, time.time()))
        finally:
            if session is not None:
                session.close()
        return results

    def _measure(
        self, session: RPCSession, inp: MeasureInput | None, build: BuildResult
    ) -> list[float]:
        assert build.filename is not None
        dev = session.cpu(0)
        lib = session.load_module(session.upload(build.filename))
        if self.check and inp is not None:
            expected = self._reference_outputs(session, inp, build)
            got = _one_call(session, lib, build)
            for i, (a, b) in enumerate(zip(got, expected, strict=True)):
                scale = max(float(np.max(np.abs(b))), 1.0) if b.size else 1.0
                if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-4 * scale):
                    raise _WrongAnswer(f"argument {i} differs from the reference")
        arrays = [session.array(a, dev) for a in random_arguments(build.args)]
        timer = lib.time_evaluator(build.func_name, dev, **self.options)
        return list(timer(*arrays).results)

    def _reference_outputs(
        self, session: RPCSession, inp: MeasureInput, build: BuildResult
    ) -> list[np.ndarray]:
        key = inp.task.key
        if key not in self._expected:
            if key not in self._references:
                out_dir = os.path.dirname(build.filename or ".")
                reply = build_candidate(
                    {"task": inp.task.to_json(), "config": None, "out_dir": out_dir}
                )
                self._references[key] = reply.get("filename")
            reference = self._references[key]
            if reference is None:
                raise RPCError(f"the reference schedule of task '{inp.task.name}' did not build")
            lib = session.load_module(session.upload(reference))
            self._expected[key] = _one_call(session, lib, build)
        return self._expected[key]

    def close(self) -> None:
        """Nothing to release between runs (sessions are closed after each batch)."""


class _WrongAnswer(Exception):
    pass


def _one_call(session: RPCSession, lib: Any, build: BuildResult) -> list[np.ndarray]:
    """Every argument after one call on the seeded arguments (outputs written)."""
    arrays = [session.array(a) for a in random_arguments(build.args)]
    lib[build.func_name](*arrays)
    return [a.numpy() for a in arrays]
