"""Building candidates on a Dask cluster (``xtvm-tune --cluster tcp://host:8786``).

:class:`DaskBuilder` implements the builder interface of
:mod:`xtvm.tuning.measure`: each candidate's build request (plain JSON
data: the task's text and the config) is one Dask task running
:func:`build_remote` on a worker, which compiles the kernel, exports the
library and returns its bytes; the builder writes them into its own
directory, so the runner (local, or an RPC runner) finds the library
wherever the build ran. A worker error or a lost worker is an error
record like any failed build.

Why Dask rather than Ray (docs/tuning.md): builds are independent,
short, CPU-bound Python functions on plain data — exactly ``client.map``
over a pool of worker processes. Dask distributed is pure Python, installs
from PyPI as two small wheels, and its ``LocalCluster(processes=False)``
runs in-process for tests; Ray brings a C++ core, an object store and a
raylet daemon for features (actors, GPUs, shared memory) the tuner does
not need.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Sequence
from typing import Any

from xtvm.tuning.measure import BuildResult, MeasureErrorNo, MeasureInput, build_candidate


def build_remote(request: dict[str, Any]) -> dict[str, Any]:
    """The Dask task: :func:`build_candidate` in a scratch directory, with
    the library's bytes (base64) instead of its path."""
    with tempfile.TemporaryDirectory(prefix="xtvm-build-") as scratch:
        reply = build_candidate({**request, "out_dir": scratch})
        filename = reply.pop("filename", None)
        if filename:
            with open(filename, "rb") as f:
                reply["library"] = base64.b64encode(f.read()).decode()
    return reply


class DaskBuilder:
    """Builds candidates as Dask tasks on ``client`` (a
    ``distributed.Client``, or an address such as ``tcp://host:8786``)."""

    def __init__(self, client: Any, timeout: float = 300.0, out_dir: str | None = None):
        if isinstance(client, str):
            try:
                from distributed import Client
            except ImportError:
                raise ImportError(
                    "--cluster needs Dask distributed: pip install 'xtvm[distributed]' (or distributed)"
                ) from None
            client = Client(client)
        self.client, self.timeout = client, timeout
        self._tmp = None if out_dir else tempfile.TemporaryDirectory(prefix="xtvm-tune-")
        self.out_dir = out_dir or self._tmp.name  # type: ignore[union-attr]

    def build(self, inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        requests = [{"task": i.task.to_json(), "config": i.config.to_json()} for i in inputs]
        futures = self.client.map(build_remote, requests, pure=False)
        results = []
        for inp, future in zip(inputs, futures):
            try:
                reply = future.result(timeout=self.timeout)
            except Exception as err:  # a lost worker, a timeout
                code = (
                    MeasureErrorNo.BUILD_TIMEOUT
                    if "imeout" in type(err).__name__
                    else MeasureErrorNo.COMPILE_HOST
                )
                results.append(
                    BuildResult(
                        None, inp.task.name, error_no=code, error_msg=f"{type(err).__name__}: {err}"
                    )
                )
                continue
            if reply.get("error_no"):
                results.append(
                    BuildResult(
                        None,
                        inp.task.name,
                        error_no=reply["error_no"],
                        error_msg=reply["error_msg"],
                    )
                )
                continue
            fd, filename = tempfile.mkstemp(suffix=".so", dir=self.out_dir)
            with os.fdopen(fd, "wb") as f:
                f.write(base64.b64decode(reply["library"]))
            results.append(
                BuildResult(
                    filename, reply["func_name"], reply["args"], time_cost=reply["time_cost"]
                )
            )
        return results

    def close(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
