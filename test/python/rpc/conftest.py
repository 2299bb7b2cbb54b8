"""Fixtures of the RPC tests (see rpc_helpers.py): servers and trackers started as
subprocesses on 127.0.0.1 with ephemeral ports and always stopped, the example
MLP as a library, and small kernels (one that segfaults, one that spins)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rpc_helpers import ROOT, Proc, child_pids, kernel_library, start, start_time


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Callable[..., Proc]]:
    """``launch("server", *args)`` / ``launch("tracker", *args)``: started now, stopped
    at the end of the test (and checked to leave no session process behind)."""
    started: list[Proc] = []

    def launch(kind: str, *args: str) -> Proc:
        directory = tmp_path / f"{kind}{len(started)}"
        extra = ["--work-dir", str(directory / "sessions")] if kind == "server" else []
        proc = start(f"xtvm.rpc.{kind}", [*extra, *args], directory)
        started.append(proc)
        return proc

    yield launch
    leftovers = []
    for proc in reversed(started):
        children = [(c, start_time(c)) for c in child_pids(proc.pid)] if proc.alive() else []
        proc.stop()
        leftovers += [c for c, since in children if since is not None and start_time(c) == since]
    assert not leftovers, f"session processes outlived their server: {leftovers}"


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proc]:
    """One plain server (key ``test``, no token) shared by a module's tests."""
    directory = tmp_path_factory.mktemp("server")
    proc = start(
        "xtvm.rpc.server", ["--key", "test", "--work-dir", str(directory / "sessions")], directory
    )
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def mlp_library(tmp_path_factory: pytest.TempPathFactory, mlp_path: Path) -> Path:
    """The example MLP compiled for a batch of 8, exported as a library (README's recipe)."""
    import onnx

    import xtvm
    from xtvm.frontend import from_onnx

    mod, params = from_onnx(onnx.load(mlp_path), shape={"data": (8, 784)})
    with xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, target="llvm", params=params)
    path = tmp_path_factory.mktemp("mlp") / "mlp.so"
    lib.export_library(path)
    return path


@pytest.fixture(scope="session")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[dict]]]:
    """``double`` (B = 2A), ``crash`` (reads 1.6 GB past A: SIGSEGV) and ``spin`` (10^10
    iterations: runs until killed)."""
    from xtvm import te

    directory = tmp_path_factory.mktemp("kernels")

    def spin(a):
        k = te.reduce_axis((0, 100000), "k")
        m = te.reduce_axis((0, 100000), "m")
        return te.compute(
            (4,), lambda i: te.sum(a[i] * te.cast("float32", k + m), axis=[k, m]), name="B"
        )

    return {
        "double": kernel_library(
            directory, "double", lambda a: te.compute((4,), lambda i: a[i] * 2.0, name="B")
        ),
        "crash": kernel_library(
            directory, "crash", lambda a: te.compute((4,), lambda i: a[i * 400000000], name="B")
        ),
        "spin": kernel_library(directory, "spin", spin),
    }
