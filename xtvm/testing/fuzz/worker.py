"""Cases run in a child process, so that a crash or a hang costs a child.

The parent starts ``python -m xtvm.testing.fuzz.worker MODULE`` and sends it
one JSON task a line; the child calls ``MODULE.handle(task)`` and answers one
JSON line (its own stdout is sent to stderr, so prints cannot break the
protocol). :meth:`Worker.call` returns that answer, or
``{"status": "crash", ...}`` when the child died (a negative return code is
the signal), or ``{"status": "hang"}`` after the timeout (the child is
killed; the task is tried once more with three times the time first). An
exception escaping ``handle`` is ``{"status": "traceback"}``.
The next call starts a fresh child. The child's address space is limited
(``memory_limit``), so a case that allocates without bound fails with
``MemoryError`` instead of taking the machine.
"""

from __future__ import annotations

import faulthandler
import importlib
import json
import os
import resource
import selectors
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any

DEFAULT_MEMORY_LIMIT = 6 << 30
"""Bytes of address space a child may map (6 GiB)."""


def limit_memory(limit: int = DEFAULT_MEMORY_LIMIT) -> None:
    """``preexec_fn`` of the fuzzers' subprocesses: caps their address space."""
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class Worker:
    """A child process running ``module.handle`` on one task at a time."""

    def __init__(
        self,
        module: str,
        timeout: float,
        recycle: int = 100,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
    ):
        self.module = module
        self.timeout = timeout
        self.recycle = recycle  # a fresh child after this many tasks (bounds leaks)
        self.memory_limit = memory_limit
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._served = 0

    def _start(self) -> subprocess.Popen[bytes]:
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "xtvm.testing.fuzz.worker", self.module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            preexec_fn=lambda: limit_memory(self.memory_limit),
        )
        self._served = 0
        return self._proc

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read()[-12000:].decode(errors="replace")

    def call(self, task: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Runs one task; see the module docstring for the answers. A hang
        (the child's silence, or a ``hang`` answer from the case's own
        timeouts) is tried once more with three times the time, and
        ``"time_scale": 3`` in the task for the case's own timeouts: on a
        loaded machine a slow case is not a hang, and a second hang says
        both limits."""
        limit = timeout or self.timeout
        answer = self._call_once(task, limit)
        if answer["status"] != "hang":
            return answer
        again = self._call_once({**task, "time_scale": 3}, 3 * limit)
        if again["status"] == "hang":
            first = answer.get("detail", f"no answer within {limit:g} s")
            again["detail"] = f"{again.get('detail', '')} (tried twice; first: {first})"
        return again

    def _call_once(self, task: dict[str, Any], timeout: float) -> dict[str, Any]:
        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        if self._stderr is not None:
            self._stderr.seek(0)
            self._stderr.truncate()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(task).encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.close()
                    detail = f"no answer within {timeout:g} s"
                    return {"status": "hang", "stderr": "", "detail": detail}
                line = proc.stdout.readline()
                break
        if not line:
            rc = proc.wait()
            tail = self._stderr_tail()
            self._proc = None
            return {"status": "crash", "returncode": rc, "stderr": tail}
        self._served += 1
        if self._served >= self.recycle:
            self.close()
        return json.loads(line)

    def close(self) -> None:
        """Stops the child (killing it if it does not leave at once)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=2)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            proc.kill()
            proc.wait()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve(module_name: str) -> None:
    """The child's loop: one task a line in, one answer a line out."""
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the tasks' own prints go to stderr
    sys.stdout = sys.stderr
    faulthandler.enable()  # a crash prints the Python stack to stderr (the report shows its tail)
    module = importlib.import_module(module_name)
    for line in sys.stdin:
        task = json.loads(line)
        try:
            answer = module.handle(task)
        except BaseException:  # noqa: BLE001 - reported to the parent
            answer = {"status": "traceback", "traceback": traceback.format_exc()}
        protocol.write(json.dumps(answer) + "\n")
        protocol.flush()


if __name__ == "__main__":
    serve(sys.argv[1])
