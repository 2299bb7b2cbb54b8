"""Measuring a built library locally, on a server, or through a tracker, with one call.

    m = xtvm.rpc.measure("mlp.so", tracker=("127.0.0.1", 9190), key="x86-avx512",
                         number=10, repeat=3)
    m.results.mean, m.outputs[0]

The same code path runs in all three places, so a tuning run (or a
benchmark) compares like with like: the library is loaded (uploaded first
when remote), its inputs are placed on the device, the function is timed by
the runtime's time evaluator *where the library runs*, and the outputs are
copied back. A graph executor factory (a model) is timed on its ``run``
with ``inputs`` (by name; random ones, seeded, for those not given); a
kernel library on ``function`` with ``args`` (its outputs are the ``args``
after the calls).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xtvm.rpc.client import connect
from xtvm.runtime.base import XTVMError
from xtvm.runtime.module import load_module
from xtvm.runtime.ndarray import array, cpu
from xtvm.runtime.profiling import BenchmarkResult


@dataclass(frozen=True)
class Measurement:
    """A library's timing (seconds per call, each repeat) and its outputs, and where it ran."""

    results: BenchmarkResult
    outputs: list[np.ndarray]
    where: str

    @property
    def costs(self) -> tuple[float, ...]:
        """Seconds per call of each repeat (AutoTVM's ``MeasureResult.costs``)."""
        return self.results.results


def random_inputs(
    shapes: Mapping[str, Sequence[int]], dtypes: Mapping[str, str], seed: int
) -> dict[str, np.ndarray]:
    """Inputs for a model that was given none: uniform in [-1, 1) (integers in [-8, 8))."""
    rng = np.random.default_rng(seed)
    inputs = {}
    for name, shape in shapes.items():
        dtype = np.dtype(dtypes[name])
        if dtype.kind == "f":
            inputs[name] = rng.uniform(-1, 1, tuple(shape)).astype(dtype)
        else:
            inputs[name] = rng.integers(-8, 8, tuple(shape)).astype(dtype)
    return inputs


def measure(
    library: str | os.PathLike[str],
    *,
    function: str | None = None,
    args: Sequence[np.ndarray] | None = None,
    inputs: Mapping[str, np.ndarray] | None = None,
    number: int = 10,
    repeat: int = 3,
    min_repeat_ms: float = 0,
    cooldown_interval_ms: float = 0,
    tracker: tuple[str, int] | None = None,
    host: str | None = None,
    port: int | None = None,
    key: str = "",
    token: str | None = None,
    priority: float = 1,
    session_timeout: float | None = None,
    seed: int = 0,
) -> Measurement:
    """Time ``library`` (see the module docstring). Where: through ``tracker``
    (``(host, port)``: a server of ``key``), else on the server at ``host:port``,
    else in this process."""
    if tracker is not None:
        from xtvm.rpc.tracker import connect_tracker

        with connect_tracker(*tracker, token=token) as link:
            session = link.request(key, priority=priority, session_timeout=session_timeout)
    elif host is not None and port is not None:
        session = connect(host, port, key=key, token=token, session_timeout=session_timeout)
    else:
        session = None
    timing = {
        "number": number,
        "repeat": repeat,
        "min_repeat_ms": min_repeat_ms,
        "cooldown_interval_ms": cooldown_interval_ms,
    }
    try:
        if session is None:
            dev: Any = cpu(0)
            module: Any = load_module(library)
            where = "local"

            def to_device(x: np.ndarray) -> Any:
                return array(x, dev)
        else:
            dev = session.cpu(0)
            module = session.load_module(session.upload(library))
            where = session.address

            def to_device(x: np.ndarray) -> Any:
                return session.array(x, dev)

        if function is None:
            return _measure_graph(module, dev, inputs or {}, seed, timing, where)
        if args is None:
            raise XTVMError(f"measure: timing function '{function}' needs its args")
        on_device = [to_device(np.asarray(a)) for a in args]
        results = module.time_evaluator(function, dev, **timing)(*on_device)
        return Measurement(results, [a.numpy() for a in on_device], where)
    finally:
        if session is not None:
            session.close()


def _measure_graph(
    factory: Any, dev: Any, given: Mapping[str, np.ndarray], seed: int, timing: dict, where: str
) -> Measurement:
    gmod = factory["default"](dev)
    shapes, dtypes = gmod["get_input_info"]()
    unknown = sorted(set(given) - set(shapes))
    if unknown:
        raise XTVMError(
            f"measure: the model has no input(s) {', '.join(unknown)}; inputs: {', '.join(shapes)}"
        )
    inputs = {**random_inputs(shapes, dtypes, seed), **given}
    for name, value in inputs.items():
        gmod["set_input"](name, np.asarray(value))
    results = gmod.module.time_evaluator("run", dev, **timing)()
    gmod["run"]()
    outputs = [gmod["get_output"](i).numpy() for i in range(gmod["get_num_outputs"]())]
    return Measurement(results, outputs, where)


__all__ = ["Measurement", "measure", "random_inputs"]
