"""Regression tests of the runtime's reliability fixes: a truncated or foreign
library is an error before the loader maps it (no SIGBUS), running a model
leaves the caller's CPU affinity alone, an executor refuses a second thread,
and outputs can be read by name."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import xtvm
from xtvm.runtime import XTVMError, load_module


@pytest.fixture(scope="module")
def mlp_library(tmp_path_factory) -> Path:
    """The example MLP (batch 2) as an exported library."""
    import onnx

    from xtvm.frontend import from_onnx

    root = Path(__file__).resolve().parents[3]
    tmp = tmp_path_factory.mktemp("mlp")
    model = tmp / "mlp.onnx"
    subprocess.run(
        [sys.executable, str(root / "examples" / "make_mlp.py"), "--output", str(model)],
        check=True, capture_output=True,
    )
    mod, params = from_onnx(onnx.load(model), shape={"data": (2, 784)})
    path = tmp / "mlp.so"
    xtvm.build(mod, params=params).export_library(path)
    return path


@pytest.mark.parametrize("fraction", [0.0, 0.001, 0.1, 0.5, 0.99])
def test_truncated_library_is_an_error_not_a_crash(mlp_library: Path, tmp_path: Path, fraction):
    data = mlp_library.read_bytes()
    cut = tmp_path / "cut.so"
    cut.write_bytes(data[: int(len(data) * fraction)])
    # In a child process: a SIGBUS there would be a negative return code.
    script = (
        "import sys\nfrom xtvm.runtime import load_module, XTVMError\n"
        "try:\n    load_module(sys.argv[1])\nexcept XTVMError as e:\n    print(e)\n"
    )
    result = subprocess.run([sys.executable, "-c", script, cut], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "cannot load module" in result.stdout
    assert "not an ELF" in result.stdout or "truncated" in result.stdout


def test_foreign_files_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.so"
    text.write_text("hello")
    with pytest.raises(XTVMError, match="not an ELF shared library"):
        load_module(text)
    libm = next(Path(p) for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6") if Path(p).exists())
    with pytest.raises(XTVMError, match="not an xtvm library: it does not define __xtvm_metadata"):
        load_module(libm)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_running_a_model_keeps_the_callers_cpu_affinity(mlp_library: Path) -> None:
    script = (
        "import os, sys, numpy as np, xtvm.runtime as rt\n"
        "before = os.sched_getaffinity(0)\n"
        "g = rt.load_module(sys.argv[1])['default'](rt.cpu(0))\n"
        "g.set_input('data', np.ones((2, 784), np.float32)); g.run(); g.run()\n"
        "print(sorted(before) == sorted(os.sched_getaffinity(0)), len(before))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, mlp_library], capture_output=True, text=True, check=True
    )
    same, cores = result.stdout.split()
    assert same == "True" and int(cores) >= 2


def test_openmp_settings_reach_libgomp_and_leave_the_environment(mlp_library: Path) -> None:
    """libgomp starts with OMP_PROC_BIND=true (its worker thread bound to a
    core), but the variable does not stay in the environment, where every
    OpenMP runtime loaded later (xgboost's) would bind its initial thread,
    and with it the application, to one core."""
    script = (
        "import os, sys, numpy as np, xtvm.runtime as rt\n"
        "os.environ.pop('OMP_PROC_BIND', None)\n"
        "rt.set_num_threads(2)\n"
        "g = rt.load_module(sys.argv[1])['default'](rt.cpu(0))\n"
        "g.set_input('data', np.ones((2, 784), np.float32)); g.run(); g.run()\n"
        "me = str(os.getpid())\n"
        "allowed = [open(f'/proc/self/task/{t}/status').read().split('Cpus_allowed_list:')[1].split()[0]\n"
        "           for t in os.listdir('/proc/self/task') if t != me]\n"
        "print('OMP_PROC_BIND' in os.environ, any(',' not in a and '-' not in a for a in allowed))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, mlp_library], capture_output=True, text=True, check=True
    )
    in_environment, bound_worker = result.stdout.split()
    assert in_environment == "False"
    assert bound_worker == "True"  # the setting reached libgomp


def test_executor_belongs_to_one_thread(mlp_library: Path) -> None:
    factory = load_module(mlp_library)
    x = np.random.default_rng(0).standard_normal((2, 784)).astype(np.float32)
    gmod = factory["default"](xtvm.cpu(0))
    gmod.set_input("data", x)
    gmod.run()
    want = gmod.get_output(0).numpy().copy()
    errors: list[str] = []
    results: list[np.ndarray] = []

    def other_thread() -> None:
        try:
            gmod.run()
        except XTVMError as err:
            errors.append(str(err))
        own = factory["default"](xtvm.cpu(0))  # one executor per thread works
        own.set_input("data", x)
        own.run()
        results.append(own.get_output(0).numpy().copy())

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    assert len(errors) == 1 and "belongs to another thread" in errors[0]
    np.testing.assert_array_equal(results[0], want)


def test_executor_created_on_one_thread_runs_on_another(mlp_library: Path) -> None:
    gmod = load_module(mlp_library)["default"](xtvm.cpu(0))
    outs: list[tuple[int, ...]] = []

    def worker() -> None:
        gmod.set_input("data", np.ones((2, 784), np.float32))
        gmod.run()
        outs.append(gmod.get_output(0).shape)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert outs == [(2, 10)]


def test_outputs_by_name(mlp_library: Path) -> None:
    gmod = load_module(mlp_library)["default"](xtvm.cpu(0))
    gmod.set_input("data", np.ones((2, 784), np.float32))
    gmod.run()
    assert gmod.output_names == ["probs"]
    np.testing.assert_array_equal(gmod.get_output("probs").numpy(), gmod.get_output(0).numpy())
    with pytest.raises(XTVMError, match="no output named 'logits'; outputs: probs"):
        gmod.get_output("logits")
    with pytest.raises(XTVMError, match="by index or name, got float"):
        gmod.get_output(0.5)


def test_damaged_metadata_is_an_error_not_a_wrong_model(mlp_library: Path, tmp_path: Path):
    """A byte changed inside the metadata (a graph offset, a shape) would run
    the model wrongly: the SHA-256 stored beside it refuses the library
    (found by the runtime fuzzer)."""
    data = bytearray(mlp_library.read_bytes())
    at = data.find(b'"storage_offset')
    assert at > 0
    digit = data.find(b"0", at)
    data[digit] = ord("1")
    damaged = tmp_path / "damaged.so"
    damaged.write_bytes(bytes(data))
    with pytest.raises(XTVMError, match="its metadata is damaged"):
        load_module(damaged)
    load_module(mlp_library)  # the intact library loads


def test_a_moved_dynamic_segment_is_an_error_not_a_crash(mlp_library: Path, tmp_path: Path):
    """The loader reads the dynamic table at PT_DYNAMIC's address: a header
    moving it two bytes made dlopen crash (runtime fuzzer, seed 4); it is an
    error now, checked in a child process so a crash would show."""
    import struct

    data = bytearray(mlp_library.read_bytes())
    (phoff,) = struct.unpack_from("<Q", data, 32)
    (phnum,) = struct.unpack_from("<H", data, 56)
    dynamic = next(
        phoff + i * 56 for i in range(phnum) if struct.unpack_from("<I", data, phoff + i * 56)[0] == 2
    )
    data[dynamic + 16] = (data[dynamic + 16] + 2) % 256  # p_vaddr's low byte
    moved = tmp_path / "moved.so"
    moved.write_bytes(bytes(data))
    script = (
        "import sys\nfrom xtvm.runtime import load_module, XTVMError\n"
        "try:\n    load_module(sys.argv[1])\nexcept XTVMError as e:\n    print(e)\n"
    )
    result = subprocess.run([sys.executable, "-c", script, moved], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "damaged program headers" in result.stdout
