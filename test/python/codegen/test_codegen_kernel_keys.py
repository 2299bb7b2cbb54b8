"""Kernels whose object the cache holds are not lowered again
(xtvm.codegen.objects.mark_cached_kernels, keyed on the prim_func's text):
a warm ``xtvm.build`` declares them, takes their objects from the cache,
and computes, exports and threads exactly as a cold one; a vanished or
corrupt entry is rebuilt; the key follows the prim_func and the target."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_codegen_cache import _mlp_module, _reference
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp

import xtvm
from xtvm.codegen import objects
from xtvm.codegen.llvm_ir import target_machine
from xtvm.codegen.objects import kernel_key, mark_cached_kernels
from xtvm.driver.build_module import lower
from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import CACHED_OBJECT_ATTR, KERNEL_KEY_ATTR
from xtvm.target import Target
from xtvm.testing.graph import run_graph


def _tir(seed: int = 0) -> ModuleOp:
    module, _, _ = _mlp_module(seed)
    return lower(module, stage="memory")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_warm_build_declares_cached_kernels_and_matches(cache_dir: Path, tmp_path: Path):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
    want = _reference(x, w1, w2)
    cold = xtvm.build(module.clone())
    np.testing.assert_allclose(run_graph(cold, x, threads=1), want, rtol=1e-4, atol=1e-4)

    warm_ir = _tir()
    assert mark_cached_kernels(warm_ir) == 2  # both kernels were filed by the cold build
    lowered = lower(warm_ir)
    decls = [op for op in lowered.ops if isinstance(op, llvm.FuncOp) and CACHED_OBJECT_ATTR in op.attributes]
    assert len(decls) == 2 and all(not op.body.blocks for op in decls)  # not lowered again

    warm = xtvm.build(module.clone())
    for threads in (1, 2):  # parallel kernels from the cache still find the thread count
        np.testing.assert_allclose(run_graph(warm, x, threads=threads), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(run_graph(warm, x, threads=1), run_graph(cold, x, threads=1))
    path = tmp_path / "warm.so"
    warm.export_library(path)
    loaded = xtvm.runtime.load_module(path)
    np.testing.assert_allclose(run_graph(loaded, x, threads=1), want, rtol=1e-4, atol=1e-4)


def test_without_cache_nothing_is_marked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XTVM_CACHE_DIR", "off")
    module = _tir()
    assert mark_cached_kernels(module) == 0
    assert not any(KERNEL_KEY_ATTR in op.attributes for op in module.ops)


def test_key_follows_the_prim_func_and_the_target():
    target = Target.of("llvm")
    tm = target_machine(target, pic=True)
    kernels = [op for op in _tir().ops if op.name == "tir.prim_func"]
    keys = [kernel_key(op, target, tm) for op in kernels]
    assert len(set(keys)) == len(keys)  # different kernels, different keys
    assert keys == [kernel_key(op, target, tm) for op in kernels]  # and stable
    again = [op for op in _tir(seed=1).ops if op.name == "tir.prim_func"]
    assert [kernel_key(op, target, tm) for op in again] == keys  # weights are not kernels
    other = Target.of("llvm -mcpu=x86-64")
    assert kernel_key(kernels[0], other, target_machine(other, pic=True)) != keys[0]


def test_corrupt_kernel_entry_is_rebuilt(cache_dir: Path):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
    xtvm.build(module.clone())
    target = Target.of("llvm")
    tm = target_machine(target, pic=True)
    key = kernel_key(next(op for op in _tir().ops if op.name == "tir.prim_func"), target, tm)
    entry = objects.KernelCache(cache_dir).path(key)
    entry.write_bytes(entry.read_bytes()[:100])
    assert mark_cached_kernels(_tir()) == 1  # the damaged one is lowered again
    lib = xtvm.build(module.clone())
    np.testing.assert_allclose(run_graph(lib, x, threads=1), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)
    assert mark_cached_kernels(_tir()) == 2  # and filed again


def test_entry_gone_after_marking_falls_back(cache_dir: Path, monkeypatch: pytest.MonkeyPatch):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
    xtvm.build(module.clone())
    real = objects._cached_kernels
    calls = []

    def vanish(module, cache):  # an entry removed between marking and code generation
        calls.append(1)
        if len(calls) == 1:
            raise objects.KernelCacheMiss("gone")
        return real(module, cache)

    monkeypatch.setattr(objects, "_cached_kernels", vanish)
    lib = xtvm.build(module.clone())
    assert len(calls) == 2
    np.testing.assert_allclose(run_graph(lib, x, threads=1), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)


def test_structure_text_sees_every_difference_but_value_names():
    from xdsl.dialects import arith
    from xdsl.dialects import func as xfunc
    from xdsl.dialects.builtin import FloatAttr, f32

    from xtvm.codegen.objects import structure_text

    def fn(constant: float, name: str = "f", hint: str = "x", swap: bool = False):
        body = xfunc.FuncOp(name, ([f32, f32], [f32]))
        a, b = body.args
        a.name_hint = hint
        c = arith.ConstantOp(FloatAttr(constant, f32))
        add = arith.AddfOp(*((b, a) if swap else (a, b)))
        mul = arith.MulfOp(add.result, c.result)
        body.body.block.add_ops([c, add, mul, xfunc.ReturnOp(mul.result)])
        return body

    base = structure_text(fn(1.0))
    assert base == structure_text(fn(1.0, hint="y"))  # names of values do not matter
    for other in (fn(1.5), fn(1.0, name="g"), fn(1.0, swap=True)):
        assert structure_text(other) != base
    kernels = [op for op in _tir().ops if op.name == "tir.prim_func"]
    assert all(structure_text(op) is not None for op in kernels)
    assert len({structure_text(op) for op in kernels}) == len(kernels)
    inner = fn(1.0).body.block.ops.first.next_op  # the addf: its operands are outside it
    assert structure_text(inner) is None
