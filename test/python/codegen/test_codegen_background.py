"""A cold ``xtvm.build`` lowers and compiles its kernels in worker processes
while the main process goes on (xtvm/codegen/background.py): the library
computes, exports and describes itself exactly as one built in a single
process, each kernel's object is filed under its key, and a kernel a
worker cannot compile makes the build lower everything in the main
process instead."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_codegen_cache import _mlp_module, _reference

import xtvm
from xtvm.codegen import background
from xtvm.codegen.cache import KernelCache
from xtvm.codegen.objects import KernelCacheMiss
from xtvm.testing.graph import run_graph


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What each ``BackgroundKernels.start`` returned (None: nothing
    started); two workers unless a test says otherwise (also on one core)."""
    monkeypatch.setenv("XTVM_COMPILE_JOBS", "2")
    # the workers started before convert-relay-to-tir (test_codegen_primitive_workers.py) off
    monkeypatch.setattr(background.PrimitiveWorkers, "start", classmethod(lambda cls, *a, **k: None))
    results: list[object] = []
    start = background.BackgroundKernels.start.__func__  # type: ignore[attr-defined]

    def spy(cls, module, target, jobs=None):
        found = start(cls, module, target, jobs)
        results.append(found)
        return found

    monkeypatch.setattr(background.BackgroundKernels, "start", classmethod(spy))
    return results


def test_background_build_matches_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: list[object]
):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(2).standard_normal((4, 32)).astype(np.float32)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "one"))
    monkeypatch.setenv("XTVM_COMPILE_JOBS", "1")
    one = xtvm.build(module.clone(), params=None)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "workers"))
    monkeypatch.setenv("XTVM_COMPILE_JOBS", "2")
    waited: list[str | None] = []
    wait = background.BackgroundKernels.wait

    def spy(self):  # the workers' results were used: no fallback to one process
        try:
            wait(self)
        except KernelCacheMiss as err:
            waited.append(str(err))
            raise
        waited.append(None)

    monkeypatch.setattr(background.BackgroundKernels, "wait", spy)
    workers = xtvm.build(module.clone())
    assert started[0] is None and started[1] is not None  # one process, then workers
    assert waited == [None]
    np.testing.assert_allclose(run_graph(workers, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(run_graph(workers, x), run_graph(one, x))
    assert workers.header == one.header  # signatures and assert messages as lowered here
    workers.export_library(tmp_path / "workers.so")
    loaded = xtvm.runtime.load_module(tmp_path / "workers.so")
    np.testing.assert_array_equal(run_graph(loaded, x), run_graph(one, x))
    # each kernel's object is filed under its prim_func's key, as in one process
    keys = {p.stem for p in (tmp_path / "one" / "objects").rglob("*.o")}
    cache = KernelCache(tmp_path / "workers")
    kernel_keys = [k for k in keys if cache.get(k) is not None]
    assert len(kernel_keys) >= 2  # at least the two kernels' entries are shared


def test_warm_build_after_background_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: list[object]
):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(3).standard_normal((4, 32)).astype(np.float32)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    xtvm.build(module.clone())
    warm = xtvm.build(module.clone())
    assert started[0] is not None and started[1] is None  # every object was cached
    np.testing.assert_allclose(run_graph(warm, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)


def _broken(*args, **kwargs):
    raise RuntimeError("broken on purpose")


def test_failed_worker_falls_back_to_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: list[object]
):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(4).standard_normal((4, 32)).astype(np.float32)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(background, "compile_unit", _broken)  # the workers fork with it
    failures: list[str] = []
    wait = background.BackgroundKernels.wait

    def spy(self):
        try:
            wait(self)
        except KernelCacheMiss as err:
            failures.append(str(err))
            raise

    monkeypatch.setattr(background.BackgroundKernels, "wait", spy)
    lib = xtvm.build(module.clone())
    assert started[0] is not None
    assert failures and "broken on purpose" in failures[0]
    np.testing.assert_allclose(run_graph(lib, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)
