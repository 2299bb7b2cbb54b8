"""A warm ``xtvm.build`` does not lower the kernels whose object the cache
holds (xtvm/codegen/stubs.py): each primitive function's stub — its kernel
without the body — stands in, and the library computes, exports and
describes itself (the metadata: signatures, assert messages) exactly as a
cold one; a stub whose object vanished, or a corrupt one, is lowered
again; the key follows the primitive function, the pass context and the
tuning context."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_codegen_cache import _mlp_module, _reference

import xtvm
from xtvm.autotvm.dispatch import SpaceCollector
from xtvm.codegen import stubs
from xtvm.codegen.cache import KernelCache
from xtvm.lowering.tir_to_llvm.convert_tir_to_llvm import KERNEL_KEY_ATTR
from xtvm.testing.graph import run_graph
from xtvm.transform import PassContext


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XTVM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each look-up in the cache found a stub, in order (made by
    ``convert-relay-to-tir`` in one process, or before it when workers
    lower the kernels: xtvm/codegen/background.py)."""
    found: list[bool] = []
    find = stubs.PrimitiveKernels.find

    def spy(self, fn):
        key, stub = find(self, fn)
        found.append(stub is not None)
        return key, stub

    monkeypatch.setattr(stubs.PrimitiveKernels, "find", spy)
    return found


def _stub_keys(cache_dir: Path) -> list[str]:
    """The keys of the stub entries (the others are objects)."""
    cache = KernelCache(cache_dir)
    return [p.stem for p in (cache_dir / "objects").rglob("*.o") if stubs._parse_stub(cache.get(p.stem)) is not None]


def test_warm_build_uses_stubs_and_matches(cache_dir: Path, tmp_path: Path, lookups: list[bool]):
    module, w1, w2 = _mlp_module()
    x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
    cold = xtvm.build(module.clone())
    assert lookups == [False, False]  # both kernels lowered, their stubs filed
    warm = xtvm.build(module.clone())
    assert lookups[2:] == [True, True]  # neither lowered again
    np.testing.assert_allclose(run_graph(warm, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(run_graph(warm, x), run_graph(cold, x))
    assert warm.header == cold.header  # signatures and assert messages as lowered
    warm.export_library(tmp_path / "warm.so")
    loaded = xtvm.runtime.load_module(tmp_path / "warm.so")
    np.testing.assert_array_equal(run_graph(loaded, x), run_graph(cold, x))


def test_stub_text_keeps_the_signature_and_drops_the_body(cache_dir: Path):
    module, _, _ = _mlp_module()
    xtvm.build(module.clone())
    texts = [KernelCache(cache_dir).get(k) for k in _stub_keys(cache_dir)]
    assert len(texts) == 2
    for text in texts:
        stub = stubs._parse_stub(text)
        assert stub is not None and not list(stub.body.block.ops)
        assert KERNEL_KEY_ATTR in stub.attributes and "arg_names" in stub.attributes


def test_stub_without_its_object_is_lowered_again(cache_dir: Path, lookups: list[bool]):
    module, w1, w2 = _mlp_module()
    xtvm.build(module.clone())
    for key in _stub_keys(cache_dir):  # remove the objects the stubs name
        final = stubs._parse_stub(KernelCache(cache_dir).get(key)).attributes[KERNEL_KEY_ATTR]
        KernelCache(cache_dir).path(final.data).unlink()
    x = np.random.default_rng(2).standard_normal((4, 32)).astype(np.float32)
    lib = xtvm.build(module.clone())
    assert lookups[2:] == [False, False]
    np.testing.assert_allclose(run_graph(lib, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)


def test_corrupt_stub_is_lowered_again(cache_dir: Path, lookups: list[bool]):
    module, w1, w2 = _mlp_module()
    xtvm.build(module.clone())
    for key in _stub_keys(cache_dir):
        KernelCache(cache_dir).put(key, b"builtin.module { not a stub")
    x = np.random.default_rng(3).standard_normal((4, 32)).astype(np.float32)
    lib = xtvm.build(module.clone())
    assert lookups[2:] == [False, False]
    np.testing.assert_allclose(run_graph(lib, x), _reference(x, w1, w2), rtol=1e-4, atol=1e-4)


def test_key_follows_the_pass_context(cache_dir: Path, lookups: list[bool]):
    module, _, _ = _mlp_module()
    xtvm.build(module.clone())
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 4}}):  # same relay, other kernels
        xtvm.build(module.clone())
    assert lookups[2:] == [False, False]


def test_no_stubs_under_a_tuning_dispatch_context(cache_dir: Path, lookups: list[bool]):
    module, _, _ = _mlp_module()
    xtvm.build(module.clone())
    with SpaceCollector():
        xtvm.build(module.clone())
    assert lookups == [False, False]  # the second build did not look
