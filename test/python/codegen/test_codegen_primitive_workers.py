"""A cold ``xtvm.build`` with kernel stubs hands each primitive function to a
worker process before ``convert-relay-to-tir`` (xtvm/codegen/background.py,
``PrimitiveWorkers``): the worker lowers it to tir, runs the ``tir`` stage's
passes, keys, verifies, lowers and compiles it and files its object and
stub; the main process lowers no kernel. The kernels are those one process
makes (equal keys, a byte-identical exported library, equal metadata), and
any worker failure falls back to lowering in the main process, which
reports a lowering error as one process does."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from test_codegen_cache import _mlp_module, _reference

import xtvm
from xtvm.codegen import background, stubs
from xtvm.codegen.cache import KernelCache
from xtvm.codegen.llvm_ir import target_machine
from xtvm.codegen.objects import KernelCacheMiss, kernel_key
from xtvm.dialects.tir import PrimFuncOp
from xtvm.driver.build_module import lower
from xtvm.lowering.relay_to_tir.base import lowering_error
from xtvm.lowering.relay_to_tir.kernel import KernelBuilder
from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import KERNEL_KEY_ATTR
from xtvm.target import Target
from xtvm.testing.graph import run_graph


@pytest.fixture
def spies(monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    """What this (the main) process saw: each ``PrimitiveWorkers.start``'s
    result, each ``wait``'s error (None: none), each kernel it lowered from
    a primitive function itself. Two workers (also on one core)."""
    monkeypatch.setenv("XTVM_COMPILE_JOBS", "2")
    seen: dict[str, list] = {"started": [], "waited": [], "lowered": []}
    start = background.PrimitiveWorkers.start.__func__  # type: ignore[attr-defined]
    wait = background.PrimitiveWorkers.wait
    primitive_function = KernelBuilder.primitive_function

    def spy_start(cls, *args, **kwargs):
        found = start(cls, *args, **kwargs)
        seen["started"].append(found)
        return found

    def spy_wait(self):
        try:
            wait(self)
        except KernelCacheMiss as err:
            seen["waited"].append(str(err))
            raise
        seen["waited"].append(None)

    def spy_lower(self, fn):
        if os.getpid() == main:  # a worker's own calls stay in the worker
            seen["lowered"].append(fn.sym_name.data)
        return primitive_function(self, fn)

    main = os.getpid()
    monkeypatch.setattr(background.PrimitiveWorkers, "start", classmethod(spy_start))
    monkeypatch.setattr(background.PrimitiveWorkers, "wait", spy_wait)
    monkeypatch.setattr(KernelBuilder, "primitive_function", spy_lower)
    return seen


def _stubs(cache_dir: Path) -> list[PrimFuncOp]:
    cache = KernelCache(cache_dir)
    found = [stubs._parse_stub(cache.get(p.stem)) for p in (cache_dir / "objects").rglob("*.o")]
    return [s for s in found if s is not None]


def test_workers_build_the_kernels_one_process_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spies: dict[str, list]
):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(5).standard_normal((4, 32)).astype(np.float32)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "one"))
    monkeypatch.setenv("XTVM_COMPILE_JOBS", "1")
    one = xtvm.build(module.clone())
    assert spies["started"] == [None] and len(spies["lowered"]) == 2
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "workers"))
    monkeypatch.setenv("XTVM_COMPILE_JOBS", "2")
    workers = xtvm.build(module.clone())
    assert spies["started"][1] is not None and spies["waited"] == [None]
    assert len(spies["lowered"]) == 2  # the main process lowered no kernel itself
    np.testing.assert_allclose(run_graph(workers, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(run_graph(workers, x), run_graph(one, x))
    assert workers.header == one.header  # signatures, assert messages, graph: the metadata
    # the library is the one a warm build of one process links (cached objects, in order)
    warm = xtvm.build(module.clone())  # from the workers' cache: every kernel a stub
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "one"))
    monkeypatch.setenv("XTVM_COMPILE_JOBS", "1")
    one_warm = xtvm.build(module.clone())
    assert len(spies["lowered"]) == 2
    for name, lib in (("workers", workers), ("warm", warm), ("one_warm", one_warm)):
        lib.export_library(tmp_path / f"{name}.so")
    linked = (tmp_path / "one_warm.so").read_bytes()
    assert (tmp_path / "workers.so").read_bytes() == linked
    assert (tmp_path / "warm.so").read_bytes() == linked
    # each stub names the kernel one process makes (its key is its printed prim_func)
    target = Target.of("llvm")
    tm = target_machine(target, pic=True)
    with target:
        tir = lower(module.clone(), stage="tir")
    serial = {
        op.sym_name.data: kernel_key(op, target, tm) for op in tir.ops if isinstance(op, PrimFuncOp)
    }
    made = {
        s.sym_name.data: s.attributes[KERNEL_KEY_ATTR].data for s in _stubs(tmp_path / "workers")
    }
    assert made == serial and len(made) == 2
    assert all(KernelCache(tmp_path / "workers").get(k) is not None for k in made.values())


def test_warm_build_after_workers_starts_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spies: dict[str, list]
):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(6).standard_normal((4, 32)).astype(np.float32)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    xtvm.build(module.clone())
    warm = xtvm.build(module.clone())
    assert spies["started"][0] is not None and spies["started"][1] is None
    assert spies["lowered"] == []
    np.testing.assert_allclose(run_graph(warm, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)


def _broken(*args, **kwargs):
    raise RuntimeError("broken on purpose")


def _dies(*args, **kwargs):
    os._exit(7)


@pytest.mark.parametrize("how", [_broken, _dies])
def test_worker_failing_after_the_stub_falls_back_to_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spies: dict[str, list], how
):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(7).standard_normal((4, 32)).astype(np.float32)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(background, "_compile_kernel", how)  # the workers fork with it
    lib = xtvm.build(module.clone())
    assert spies["started"][0] is not None
    error = spies["waited"][0]
    assert error is not None
    assert ("broken on purpose" if how is _broken else "died") in error
    assert len(spies["lowered"]) == 2  # the whole module again, in this process
    np.testing.assert_allclose(run_graph(lib, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)


def test_worker_failing_before_the_stub_leaves_the_kernel_to_the_main_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spies: dict[str, list]
):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(8).standard_normal((4, 32)).astype(np.float32)
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(background, "kernel_key", _broken)  # before the stub is sent
    lib = xtvm.build(module.clone())
    assert spies["started"][0] is not None
    assert len(spies["lowered"]) == 2  # each lowered here, as without workers
    np.testing.assert_allclose(run_graph(lib, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)


def test_lowering_error_is_reported_as_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spies: dict[str, list]
):
    module, _, _ = _mlp_module()

    def refuse(self, fn):
        raise lowering_error(f"cannot lower @{fn.sym_name.data} on purpose", fn)

    monkeypatch.setattr(KernelBuilder, "primitive_function", refuse)  # here and in the workers
    errors = []
    for jobs in ("1", "2"):
        monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / f"cache{jobs}"))
        monkeypatch.setenv("XTVM_COMPILE_JOBS", jobs)
        with pytest.raises(Exception) as info:
            xtvm.build(module.clone())
        errors.append((type(info.value), str(info.value)))
    assert spies["started"][0] is None and spies["started"][1] is not None
    assert errors[0] == errors[1] and "on purpose" in errors[0][1]
