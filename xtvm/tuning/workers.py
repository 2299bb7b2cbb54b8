"""Worker processes that run one JSON request at a time, with a timeout.

Builders and runners both need work done in another process so that a
candidate that crashes (a signal in generated code, LLVM aborting) or hangs
costs one error record, not the search: :class:`WorkerPool` keeps ``size``
worker processes, sends each request as JSON text over a pipe (nothing is
pickled: requests and replies are ``json.dumps`` strings) and, when a
worker dies or overruns its deadline, kills it, reports the failure for
that request and starts a fresh worker.

A handler is named ``"module:function"`` and imported in the worker; it
takes the request dict and returns a JSON-compatible reply (an exception
it raises is replied as ``{"worker_error": "Type: message"}``).
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any


@dataclass
class WorkerFailure:
    """A request whose worker died (``signal`` or exit code) or timed out."""

    timeout: bool
    message: str


def _serve(handler: str) -> None:
    """The worker's loop: read a request line, run ``handler``, reply one
    line, until the input closes. The protocol uses the process's original
    stdout; anything the handler (or LLVM) prints goes to stderr."""
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    module, _, name = handler.partition(":")
    function = getattr(importlib.import_module(module), name)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = function(request)
        except Exception as err:  # a handler's bug: reported, the worker lives on
            reply = {"worker_error": f"{type(err).__name__}: {err}"}
        protocol.write(json.dumps(reply) + "\n")
        protocol.flush()


class _Worker:
    """One worker process: ``python -m xtvm.tuning.workers HANDLER``."""

    def __init__(self, handler: str, env: dict[str, str] | None):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "xtvm.tuning.workers", handler],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.reader = self.process.stdout

    def send(self, request: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()

    def receive(self) -> Any:
        line = self.reader.readline()  # type: ignore[union-attr]
        if not line:
            raise EOFError
        return json.loads(line)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def death(self) -> str:
        try:
            code = self.process.wait(5)
        except subprocess.TimeoutExpired:
            return "the worker stopped answering"
        if code < 0:
            return f"the worker died of signal {signal.Signals(-code).name}"
        return f"the worker exited with code {code}"


class WorkerPool:
    """``size`` worker processes serving ``handler`` (see the module);
    ``env`` is set in the workers' environment (e.g. thread counts)."""

    def __init__(self, handler: str, size: int = 1, env: dict[str, str] | None = None):
        if size < 1:
            raise ValueError(f"a worker pool needs at least one worker, got {size}")
        self.handler, self.env = handler, env
        self.workers = [_Worker(handler, env) for _ in range(size)]

    def map(self, requests: Sequence[dict[str, Any]], timeout: float) -> list[Any]:
        """Each request's reply, or a :class:`WorkerFailure`, in order; at
        most ``size`` run at once, each given ``timeout`` seconds."""
        results: list[Any] = [None] * len(requests)
        pending = list(range(len(requests)))[::-1]
        busy: dict[int, tuple[int, float]] = {}  # worker slot -> (request, deadline)
        while pending or busy:
            for slot in range(len(self.workers)):
                if slot not in busy and pending:
                    index = pending.pop()
                    self.workers[slot].send(requests[index])
                    busy[slot] = (index, time.monotonic() + timeout)
            nearest = min(deadline for _, deadline in busy.values())
            ready = wait(
                [self.workers[s].reader for s in busy], timeout=max(nearest - time.monotonic(), 0)
            )
            for slot, (index, deadline) in list(busy.items()):
                worker = self.workers[slot]
                if worker.reader in ready:
                    try:
                        results[index] = worker.receive()
                        del busy[slot]
                        continue
                    except (EOFError, OSError, ValueError):
                        results[index] = WorkerFailure(False, worker.death())
                elif time.monotonic() >= deadline:
                    results[index] = WorkerFailure(True, f"no reply within {timeout:g} s")
                else:
                    continue
                worker.kill()
                self.workers[slot] = _Worker(self.handler, self.env)
                del busy[slot]
        return results

    def close(self) -> None:
        for worker in self.workers:
            worker.kill()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    _serve(sys.argv[1])
