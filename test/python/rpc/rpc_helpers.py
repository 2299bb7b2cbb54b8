"""Helpers of the RPC tests: starting servers and trackers as subprocesses on
127.0.0.1 with ephemeral ports (the fixtures in conftest.py stop them), the
process and descriptor counts the leak checks read from /proc, and the
libraries the servers run (small kernels, hand-made bad libraries).

Every wait here is bounded: reading a server's first line, stopping it,
polling for a state (``wait_for``).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
HOST = "127.0.0.1"


@dataclass
class Proc:
    """A started server or tracker: its process, port, log (stderr) and session directory."""

    process: subprocess.Popen
    port: int
    log_path: Path
    work_dir: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        return self.log_path.read_text()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        if self.process.stdout is not None:
            self.process.stdout.close()


def wait_for(
    condition: Callable[[], bool], timeout: float = 15.0, what: str = "a condition"
) -> None:
    """Poll ``condition`` every 50 ms for at most ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def child_pids(pid: int) -> list[int]:
    """The child processes of ``pid``, from /proc, zombies included (a child not yet
    reaped still holds its parent's descriptors for it)."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            children.append(int(entry))
    return children


def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot), None if it is gone: with the pid,
    it names a process even after it is re-parented."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def start(module: str, args: list[str], directory: Path) -> Proc:
    directory.mkdir(parents=True, exist_ok=True)
    log_path = directory / "log.txt"
    work_dir = directory / "sessions"
    work_dir.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XTVM_NUM_THREADS": "1"}
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", module, "--host", HOST, "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            cwd=ROOT,
            env=env,
        )
    proc = Proc(process, 0, log_path, work_dir)
    ready, _, _ = select.select([process.stdout], [], [], 60)
    line = process.stdout.readline() if ready else ""
    if "listening on" not in line:
        proc.stop()
        raise AssertionError(f"{module} did not start: {line!r}\n{log_path.read_text()}")
    proc.port = int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])
    return proc


def kernel_library(directory: Path, name: str, compute: Callable) -> tuple[Path, list[dict]]:
    """A library of one kernel ``B = compute(A)``, A and B float32[4]; its path and args."""
    import xtvm
    from xtvm import te

    a = te.placeholder((4,), "float32", "A")
    lib = xtvm.build(te.create_prim_func([a, compute(a)], name))
    path = directory / f"{name}.so"
    lib.export_library(path)
    return path, lib.header["functions"][name]["args"]


def local_outputs(library: Path, x: np.ndarray) -> np.ndarray:
    """The MLP's output for ``x``, run in this process."""
    from xtvm import runtime

    gmod = runtime.load_module(library)["default"](runtime.cpu(0))
    gmod["set_input"]("data", x)
    gmod["run"]()
    return gmod["get_output"](0).numpy()


BAD_LIBRARY_C = r"""
#include <stdint.h>
/* A packed kernel that writes through a NULL pointer. */
int32_t null_write(void **args, int32_t num_args) {
  *(volatile int32_t *)0 = num_args;
  return 0;
}
#ifdef CRASH_ON_LOAD
/* A constructor: dlopen runs it, so load_module itself crashes. */
__attribute__((constructor)) static void crash_on_load(void) { *(volatile int32_t *)0 = 1; }
#endif
"""


def bad_library(directory: Path, on_load: bool) -> Path:
    """A hand-made xtvm library (C, with xtvm metadata, built as the runtime's own
    test libraries are) whose kernel ``null_write`` segfaults; with ``on_load``,
    loading it segfaults already."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "native_kernels", ROOT / "test" / "python" / "runtime" / "native_kernels.py"
    )
    native = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(native)
    source = ("#define CRASH_ON_LOAD\n" if on_load else "") + BAD_LIBRARY_C
    header = {"functions": {"null_write": {"args": []}}, "graph_json": None}
    name = "crash_on_load.so" if on_load else "null_write.so"
    return native.build_library(directory, header, {}, name=name, source=source)
