"""Two engines timed in alternating rounds, each in a process of its own.

On a shared machine the speed a process gets drifts over minutes (other
tenants' load, the host's clock), so timing one engine after the other
compares two different machines. Here each engine lives in a child process
that compiles or loads its model once and then waits on its stdin; the parent
asks them in turn for a few runs at a time (``rounds`` rounds, the order
swapped every round) and takes each engine's median over all its runs. Both
then saw the same stretches of load, and the idle one only waits on a pipe
(its worker threads park once their spin ends; a short pause before each
round lets them).

Protocol (JSON lines): the child prints ``{"ready": true, ...}`` (plus any
facts of its own, e.g. its compile time) once prepared, then answers each
``{"threads": n, "runs": k}`` with ``{"seconds": [k floats], "cpu": [k
floats]}`` (wall and process CPU time of each run); a closed stdin ends it.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

PAUSE_S = 0.05
"""Pause before each round: the other engine's spinning threads park."""


def serve(runner: Callable[[int], Callable[[], object]], info: dict) -> None:
    """The child's side: announce ``info`` as ready, then time ``runner(n)``
    (a callable running the model once at ``n`` threads, made once per
    thread count) for each request on stdin, after one untimed run: each
    run's wall time and its process CPU time (at one thread, the latency
    without the preemptions of a shared machine)."""
    runs: dict[int, Callable[[], object]] = {}
    print(json.dumps({"ready": True, **info}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        n, k = int(request["threads"]), int(request["runs"])
        if n not in runs:
            runs.clear()  # one thread count at a time (onnxruntime: one session)
            runs[n] = runner(n)
        run, seconds, cpu = runs[n], [], []
        run()  # untimed: wakes the worker threads parked while the other engine ran
        for _ in range(k):
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            cpu.append(time.process_time() - start_cpu)
            seconds.append(time.perf_counter() - start)
        print(json.dumps({"seconds": seconds, "cpu": cpu}), flush=True)


class Engine:
    """A child process serving timings: ``python -m xtvm.bench *args``.
    ``cpu[n]`` collects the process CPU seconds of its runs at ``n`` threads."""

    def __init__(self, args: Sequence[str], env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "xtvm.bench", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**os.environ, **(env or {})},
        )
        self.info = self._reply()
        self.cpu: dict[int, list[float]] = {}

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            lines = self.proc.stderr.read().strip().splitlines() or ["(no output)"]
            raise RuntimeError(lines[-1])
        return json.loads(line)

    def time(self, threads: int, runs: int) -> list[float]:
        """``runs`` timed runs at ``threads`` threads (seconds each)."""
        self.proc.stdin.write(json.dumps({"threads": threads, "runs": runs}) + "\n")
        self.proc.stdin.flush()
        reply = self._reply()
        self.cpu.setdefault(threads, []).extend(reply.get("cpu", []))
        return reply["seconds"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def alternate(
    engines: Sequence[Engine],
    threads: Sequence[int],
    repeat: int,
    rounds: int,
    summarize: Callable[[list[float]], Any] = statistics.median,
) -> list[dict[int, Any]]:
    """Each engine's median seconds (or ``summarize`` of its seconds) per
    thread count over ``repeat`` runs, taken in ``rounds`` rounds of
    ``ceil(repeat / rounds)`` runs, the engines' order reversed every round."""
    per_round = max(1, math.ceil(repeat / max(1, rounds)))
    medians: list[dict[int, Any]] = [{} for _ in engines]
    for n in threads:
        samples: list[list[float]] = [[] for _ in engines]
        for r in range(max(1, rounds)):
            order = list(range(len(engines)))
            for i in order if r % 2 == 0 else reversed(order):
                time.sleep(PAUSE_S)
                samples[i] += engines[i].time(n, per_round)
        for i, s in enumerate(samples):
            medians[i][n] = summarize(s)
    return medians
