"""The on-disk kernel cache and the per-kernel objects (xtvm.codegen.cache,
xtvm.codegen.objects): a hit gives identical code, a corrupt entry is
rebuilt, concurrent writers corrupt nothing, and the JIT and the exported
library share one compilation."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region

import xtvm
from xtvm.codegen import cache as cache_mod
from xtvm.codegen.cache import KernelCache, cache_key
from xtvm.codegen.objects import compile_objects, split_units
from xtvm.dialects import relay
from xtvm.driver.build_module import bind_params, lower


def _mlp_module(seed: int = 0) -> tuple[ModuleOp, np.ndarray, np.ndarray]:
    """dense → relu → dense (two kernels with parallel loops) with bound weights."""
    rng = np.random.default_rng(seed)
    w1 = rng.standard_normal((64, 32)).astype(np.float32)
    w2 = rng.standard_normal((16, 64)).astype(np.float32)
    x_ty = TensorType(f32, [4, 32])
    block = Block(arg_types=[x_ty, TensorType(f32, [64, 32]), TensorType(f32, [16, 64])])
    d1 = relay.DenseOp(block.args[0], block.args[1])
    r = relay.ReluOp(d1.result)
    d2 = relay.DenseOp(r.result, block.args[2])
    block.add_ops([d1, r, d2, func.ReturnOp(d2.result)])
    fn = func.FuncOp("main", ([a.type for a in block.args], [d2.result.type]), Region(block))
    module = ModuleOp([fn])
    bind_params(module, {"input1": w1, "input2": w2})  # unnamed: input<i>
    return module, w1, w2


@pytest.fixture(scope="module")
def lowered() -> ModuleOp:
    module, _, _ = _mlp_module()
    return lower(module)


def _reference(x: np.ndarray, w1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return np.maximum(x @ w1.T, 0) @ w2.T


def test_units_one_per_kernel_and_the_rest(lowered: ModuleOp):
    from xtvm.codegen.data import read_metadata

    kernels = list(read_metadata(lowered)["functions"])
    units = split_units(lowered, kernels)
    assert len(units) == len(kernels) + 1 and units[-1].rest
    names = [{fn.sym_name.data for fn in u.funcs} for u in units]
    for kernel, unit in zip(kernels, names):
        assert kernel in unit and not unit & set().union(*(n for n in names if n is not unit))
    assert "tvmgen_default_run" in names[-1]


def test_cache_hit_gives_identical_code(lowered: ModuleOp, tmp_path: Path):
    cache = KernelCache(tmp_path)
    cold = compile_objects(lowered, cache=cache, jobs=1)
    assert cold.cache_hits == 0
    entries = sorted(tmp_path.rglob("*.o"))
    assert len(entries) == len(cold.objects)
    warm = compile_objects(lowered, cache=cache, jobs=2)
    assert warm.cache_hits == len(cold.objects)
    assert warm.objects == cold.objects and warm.functions == cold.functions
    uncached = compile_objects(lowered, cache=None, jobs=1)
    assert uncached.objects == cold.objects  # the cache returns what LLVM makes


def test_cached_build_runs_and_exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
    for _ in range(2):  # cold, then every unit from the cache
        lib = xtvm.build(module.clone())
        gmod = lib["default"](xtvm.cpu(0))
        gmod.set_input(0, x)
        gmod.run()
        want = _reference(x, w1, w2)
        np.testing.assert_allclose(gmod.get_output(0).numpy(), want, rtol=1e-4, atol=1e-4)
    path = tmp_path / "mlp.so"
    lib.export_library(path)
    gmod = xtvm.runtime.load_module(path)["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    want = _reference(x, w1, w2)
    np.testing.assert_allclose(gmod.get_output(0).numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_corrupt_entry_is_rebuilt(lowered: ModuleOp, tmp_path: Path, damage: str):
    cache = KernelCache(tmp_path)
    good = compile_objects(lowered, cache=cache, jobs=1)
    victim = max(tmp_path.rglob("*.o"), key=lambda p: p.stat().st_size)
    raw = victim.read_bytes()
    victim.write_bytes(
        {
            "truncate": raw[: len(raw) // 2],
            "flip": raw[:-10] + bytes([raw[-10] ^ 0xFF]) + raw[-9:],
            "empty": b"",
            "garbage": b"not an object" * 10,
        }[damage]
    )
    again = compile_objects(lowered, cache=cache, jobs=1)
    assert again.cache_hits == len(good.objects) - 1
    assert again.objects == good.objects
    assert victim.read_bytes() == raw  # rewritten whole


def test_get_put_roundtrip_and_key(tmp_path: Path):
    cache = KernelCache(tmp_path)
    key = cache_key("a", b"b")
    assert key != cache_key("ab") and key != cache_key("a", "b", "")
    assert cache.get(key) is None
    cache.put(key, b"payload")
    assert cache.get(key) == b"payload"
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_cache_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path))
    assert KernelCache.from_env().root == tmp_path
    for off in ("off", "0", ""):
        monkeypatch.setenv("XTVM_CACHE_DIR", off)
        assert KernelCache.from_env() is None
    monkeypatch.delenv("XTVM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_mod.default_cache_dir() == tmp_path / "xdg" / "xtvm"


def _writer(root: str, key: str, seed: int, rounds: int, start) -> None:
    cache = KernelCache(root)
    payload = bytes([seed]) * (1 << 20)  # 1 MiB: a write is many syscalls
    start.wait()
    for _ in range(rounds):
        cache.put(key, payload)
        got = cache.get(key)
        assert got is not None and len(got) == len(payload) and len(set(got)) == 1


def test_two_processes_writing_at_once_corrupt_nothing(tmp_path: Path):
    key = cache_key("contended")
    ctx = multiprocessing.get_context("fork")
    start = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), key, s, 30, start)) for s in (1, 2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    got = KernelCache(tmp_path).get(key)
    assert got in (bytes([1]) * (1 << 20), bytes([2]) * (1 << 20))
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".o"]
    assert not leftovers


def test_two_builds_at_once_share_the_cache(lowered: ModuleOp, tmp_path: Path):
    """Two processes compiling the same module into one empty cache: both get
    the uncached objects, and the cache then holds exactly those."""
    reference = compile_objects(lowered, cache=None, jobs=1).objects
    ctx = multiprocessing.get_context("fork")
    start = ctx.Barrier(2)
    queue = ctx.Queue()

    def build(tag: int) -> None:
        start.wait()
        queue.put((tag, compile_objects(lowered, cache=KernelCache(tmp_path), jobs=1).objects))

    procs = [ctx.Process(target=build, args=(t,)) for t in (0, 1)]
    for p in procs:
        p.start()
    results = dict(queue.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    assert results[0] == reference and results[1] == reference
    warm = compile_objects(lowered, cache=KernelCache(tmp_path), jobs=1)
    assert warm.cache_hits == len(reference) and warm.objects == reference


def test_no_cache_dir_writes_nothing(lowered: ModuleOp, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XTVM_CACHE_DIR", "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    compiled = compile_objects(lowered)
    assert compiled.cache_hits == 0 and not os.listdir(tmp_path)


def test_data_object_defines_each_global_aligned(tmp_path: Path):
    """The weights' ELF object (no assembler): each constant's bytes and each
    zeroed global at its symbol, aligned, in a library the system links."""
    import ctypes
    import platform
    import subprocess
    import sys

    from xtvm.codegen.data import DataGlobal, write_data_object
    from xtvm.codegen.export import find_c_compiler

    if not (sys.platform.startswith("linux") and platform.machine() == "x86_64"):
        pytest.skip("the data object is written for x86-64 Linux")
    data = [
        DataGlobal("odd_a", bytes(range(7)), 7, 1, True),
        DataGlobal("zeros_b", None, 100, 64, False),
        DataGlobal("big_c", bytes(range(256)) * 5, 1280, 128, True),
        DataGlobal("view_d", memoryview(np.arange(3, dtype=np.float32)), 12, 64, True),
    ]
    obj, lib = tmp_path / "data.o", tmp_path / "libdata.so"
    write_data_object(data, str(obj))
    subprocess.run([find_c_compiler(), "-shared", "-o", str(lib), str(obj)], check=True)
    handle = ctypes.CDLL(str(lib))
    for item in data:
        address = ctypes.addressof(ctypes.c_uint8.in_dll(handle, item.name))
        assert address % max(item.alignment, 64) == 0, item.name
        got = ctypes.string_at(address, item.size)
        assert got == (bytes(item.data) if item.data is not None else bytes(item.size))
