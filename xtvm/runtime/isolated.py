"""Running exported model libraries in a child process, so that a crash of
generated code (a signal: SIGSEGV, SIGBUS, SIGFPE, SIGILL, an abort) is an
exception in the caller instead of the end of the caller's process.

```python
with IsolatedRunner() as runner:
    outputs = runner.run("model.so", [(0, x)], what="model 'mlp'")
```

The child is ``python -m xtvm.runtime.isolated``: it imports the runtime
only, loads each library it is given once (``load_module(path)["default"]``),
and serves requests over a pipe until its input closes. A request is the
library's path and ``(input index, array)`` pairs; the answer is the outputs
(NumPy arrays) or the Python exception the run raised (an ``XTVMError`` for
a wrong input, as in-process). When the child dies, the runner raises
:class:`IsolatedCrash` naming what ran and the signal, and starts a new
child at the next run.

Each run pays for pickling its inputs and outputs through a pipe (and the
first run of a library for loading it in the child): isolation is for
untrusted models and fuzzing, not for speed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO, Self

import numpy as np

from xtvm.runtime.base import XTVMError


class IsolatedCrash(XTVMError):
    """Generated code crashed in the child process that ran it."""

    def __init__(self, message: str, signal_number: int | None) -> None:
        super().__init__(message)
        self.signal_number = signal_number


def _describe_exit(code: int | None) -> tuple[str, int | None]:
    if code is not None and code < 0:
        number = -code
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        description = signal.strsignal(number) or name
        return f"was killed by signal {name} ({description})", number
    return f"exited with code {code}", None


class IsolatedRunner:
    """A child process that runs exported libraries (see the module docstring)."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown
            self.close()

    def _start(self) -> subprocess.Popen[bytes]:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "xtvm.runtime.isolated"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        return self._process

    def run(
        self,
        library: str | os.PathLike[str],
        inputs: Sequence[tuple[int, np.ndarray]],
        what: str = "the model",
        test_hook: str | None = None,
    ) -> list[np.ndarray]:
        """Runs ``library``'s graph on ``inputs`` (``(index, array)`` pairs)
        in the child and returns its outputs. ``what`` names the model in a
        crash's message; ``test_hook`` (tests only) is ``"null-deref"``: the
        child reads address 0 just before the run."""
        process = self._process if self._process and self._process.poll() is None else None
        process = process or self._start()
        assert process.stdin is not None and process.stdout is not None
        request = (os.fspath(library), [(i, np.ascontiguousarray(a)) for i, a in inputs], test_hook)
        try:
            pickle.dump(request, process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            process.stdin.flush()
            status, payload = pickle.load(process.stdout)
        except (BrokenPipeError, EOFError, pickle.UnpicklingError):
            code = process.wait()
            self._process = None
            how, number = _describe_exit(code)
            raise IsolatedCrash(
                f"{what} crashed in generated code: the child process running it {how}",
                number,
            ) from None
        if status == "ok":
            return payload
        raise payload

    def close(self) -> None:
        """Ends the child (it exits when its input closes)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """The child's loop: one answer per request until ``requests`` ends."""
    from xtvm.runtime.module import load_module
    from xtvm.runtime.ndarray import cpu

    executors: dict[str, Any] = {}
    while True:
        try:
            library, inputs, test_hook = pickle.load(requests)
        except EOFError:
            return
        try:
            gmod = executors.get(library)
            if gmod is None:
                gmod = executors[library] = load_module(library)["default"](cpu(0))
            for index, array in inputs:
                gmod["set_input"](index, array)
            if test_hook == "null-deref":
                import ctypes

                ctypes.string_at(0)  # a NULL read, as a broken kernel would do
            gmod["run"]()
            count = gmod["get_num_outputs"]()
            answer: tuple[str, Any] = (
                "ok",
                [gmod["get_output"](i).numpy().copy() for i in range(count)],
            )
        except Exception as e:  # noqa: BLE001 - sent to the caller to raise
            try:
                pickle.dumps(e)
                answer = ("error", e)
            except Exception:  # noqa: BLE001
                answer = ("error", XTVMError(f"{type(e).__name__}: {e}"))
        pickle.dump(answer, answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()


def main() -> None:
    # The protocol gets its own descriptor; what generated or library code
    # prints on stdout goes to stderr instead of into the answers.
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    _serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
