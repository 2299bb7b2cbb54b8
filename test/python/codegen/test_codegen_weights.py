"""The weights are not copied more than needed: a constant made from an
array viewing a whole ``bytes`` object (an ONNX initializer's raw data)
shares it, any other array is copied with the same values, and
``jit(consume=True)`` (what ``xtvm.build`` uses) takes the data globals out
of the module it compiles and still runs and exports the same model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_codegen_cache import _mlp_module, _reference
from xdsl.dialects import llvm

import xtvm
from xtvm.codegen import jit
from xtvm.codegen.data import is_data_global
from xtvm.constants import dense_from_numpy, numpy_from_dense
from xtvm.driver.build_module import lower


def test_constant_shares_the_bytes_an_array_views_whole():
    raw = np.arange(12, dtype="<f4").tobytes()
    array = np.frombuffer(raw, np.float32).reshape(3, 4)
    attr = dense_from_numpy(array)
    assert attr.data.data is raw
    np.testing.assert_array_equal(numpy_from_dense(attr), array)


def test_other_arrays_are_copied_with_their_values():
    raw = np.arange(13, dtype="<f4").tobytes()
    cases = [
        np.frombuffer(raw, np.float32)[1:],  # a view that starts inside the bytes
        np.arange(12, dtype=np.float32).reshape(3, 4).T,  # not contiguous
        np.arange(6, dtype=">i4"),  # big-endian: stored little-endian
        np.array([True, False]),
    ]
    for array in cases:
        attr = dense_from_numpy(array)
        assert attr.data.data is not raw
        np.testing.assert_array_equal(numpy_from_dense(attr), array)


def test_consuming_jit_drops_the_data_globals_and_runs(tmp_path: Path):
    module, w1, w2 = _mlp_module()
    lowered = lower(module)
    assert any(isinstance(op, llvm.GlobalOp) and is_data_global(op) for op in lowered.ops)
    lib = jit(lowered, consume=True)
    assert not any(isinstance(op, llvm.GlobalOp) and is_data_global(op) for op in lowered.ops)
    x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
    want = _reference(x, w1, w2)
    for loaded in (lib, None):
        if loaded is None:
            lib.export_library(tmp_path / "mlp.so")
            loaded = xtvm.runtime.load_module(tmp_path / "mlp.so")
        gmod = loaded["default"](xtvm.cpu(0))
        gmod.set_input(0, x)
        gmod.run()
        np.testing.assert_allclose(gmod.get_output(0).numpy(), want, rtol=1e-4, atol=1e-4)


def test_a_given_up_constant_is_moved_into_place(monkeypatch):
    """A large constant only the data list holds is copied a chunk at a time
    with its pages given back (VGG-19's 411 MB dense weight is not held twice
    while placed); the placed copy has its values."""
    from xtvm.codegen import data as data_module

    monkeypatch.setattr(data_module, "MOVE_MIN_BYTES", 1 << 16)
    monkeypatch.setattr(data_module, "_MOVE_CHUNK", 1 << 14)
    moved: list[int] = []
    move = data_module._move
    monkeypatch.setattr(data_module, "_move", lambda raw, view: (moved.append(len(raw)), move(raw, view)))
    values = np.random.default_rng(0).integers(0, 256, (1 << 18) + 123, dtype=np.uint8)
    items = [data_module.DataGlobal("w", values.tobytes(), values.size, 64, True)]
    placed = data_module.PlacedData(items, consume=True)
    assert moved == [values.size] and items[0].data == b""
    assert placed.address("w") % 64 == 0
    np.testing.assert_array_equal(placed.arrays["w"], values)


def test_a_shared_constant_is_copied_and_left_intact(monkeypatch):
    """Bytes someone else still holds (a caller's parameter) are never
    released: they keep their values."""
    from xtvm.codegen import data as data_module

    monkeypatch.setattr(data_module, "MOVE_MIN_BYTES", 1 << 16)
    raw = np.random.default_rng(1).integers(0, 256, 1 << 18, dtype=np.uint8).tobytes()
    items = [data_module.DataGlobal("w", raw, len(raw), 64, True)]
    monkeypatch.setattr(data_module, "_move", lambda raw, view: pytest.fail("moved shared bytes"))
    placed = data_module.PlacedData(items, consume=True)
    np.testing.assert_array_equal(placed.arrays["w"], np.frombuffer(raw, np.uint8))
    assert raw == np.random.default_rng(1).integers(0, 256, 1 << 18, dtype=np.uint8).tobytes()
