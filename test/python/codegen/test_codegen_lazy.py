"""A JIT module is loaded lazily (``codegen.jit`` → ``JitImage``): a build
places its code and weights only when first used, an export before that
writes the weights to the image's own data object while giving them up
(the process does not hold them while the linker runs), and a load after
it maps that file back. Every order of running and exporting gives the
same results, with the NumPy reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from test_codegen_cache import _mlp_module, _reference

import xtvm
from xtvm.codegen import data as data_module
from xtvm.driver.build_module import lower
from xtvm.runtime import load_module
from xtvm.runtime import module as runtime_module

jit_module = sys.modules["xtvm.codegen.jit"]  # `xtvm.codegen.jit` is also the function

X = np.random.default_rng(3).standard_normal((4, 32)).astype(np.float32)


def _run(lib) -> np.ndarray:
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, X)
    gmod.run()
    return gmod.get_output(0).numpy()


def _image(lib) -> jit_module.JitImage:
    return lib._exporter.__self__


def test_a_build_is_not_loaded_until_used(monkeypatch: pytest.MonkeyPatch):
    """The header answers without loading; the first kernel lookup loads
    (placing the weights, setting the heap thresholds as a library's load
    does), once."""
    heap: list[bool] = []
    monkeypatch.setattr(runtime_module, "keep_heap_pages", lambda: heap.append(True) or True)
    module, w1, w2 = _mlp_module()
    lib = xtvm.build(module)
    assert not lib.loaded and _image(lib).placed is None
    assert lib.graph_json and "default" in lib.function_names()
    assert lib["get_graph_json"]() == lib.graph_json
    assert not lib.loaded and heap == []
    np.testing.assert_allclose(_run(lib), _reference(X, w1, w2), rtol=1e-4, atol=1e-4)
    assert lib.loaded and _image(lib).placed is not None and heap == [True]
    placed = _image(lib).placed
    _run(lib)
    assert _image(lib).placed is placed  # loaded once
    np.testing.assert_array_equal(lib.params["p0"], _packed(w1))


def _packed(w: np.ndarray) -> np.ndarray:
    """A dense weight as the build packs it: ``[N/16, K, 16]``."""
    n, k = w.shape
    return w.reshape(n // 16, 16, k).transpose(0, 2, 1)


def test_export_before_use_gives_the_weights_up_and_maps_them_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """While the linker runs no data item holds bytes and nothing is
    placed; the module then runs from a mapping of its data object, and a
    second export links that same object."""
    module, w1, w2 = _mlp_module()
    lib = jit_module.jit(lower(module), consume=True)
    image = _image(lib)
    at_link: list[tuple[bool, list]] = []
    link = jit_module.link_library

    def watched(compiled, files, path):
        at_link.append((lib.loaded, [item.data for item in image.data if item.data]))
        link(compiled, files, path)

    monkeypatch.setattr(jit_module, "link_library", watched)
    lib.export_library(tmp_path / "a.so")
    assert at_link == [(False, [])]
    assert image.files is not None and image.files.offsets
    want = _reference(X, w1, w2)
    np.testing.assert_allclose(_run(load_module(tmp_path / "a.so")), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_run(lib), want, rtol=1e-4, atol=1e-4)
    assert image.placed is not None and image.placed._map is not None  # read from the file
    weights = lib.params["p0"]
    assert not weights.flags.writeable
    np.testing.assert_array_equal(weights, _packed(w1))
    files = image.files
    lib.export_library(tmp_path / "b.so")
    assert image.files is files and len(at_link) == 2
    np.testing.assert_allclose(_run(load_module(tmp_path / "b.so")), want, rtol=1e-4, atol=1e-4)


def _mapping_of(address: int) -> str:
    """The file mapped at ``address`` in this process ("" for anonymous memory)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if start <= address < end:
                return fields[5].strip() if len(fields) > 5 else ""
    raise AssertionError(f"{address:#x} is not mapped")


def test_export_after_use_links_the_placed_weights_and_maps_them(tmp_path: Path):
    """The placed weights (laid out as the data file) are replaced by the
    written file's pages at the same addresses: the module keeps running
    and its parameters keep their values."""
    module, w1, w2 = _mlp_module()
    lib = xtvm.build(module)
    want = _reference(X, w1, w2)
    np.testing.assert_allclose(_run(lib), want, rtol=1e-4, atol=1e-4)
    placed = _image(lib).placed
    address = placed.address("__xtvm_const_p0")
    assert _mapping_of(address) == ""  # anonymous memory
    for name in ("a.so", "b.so"):
        lib.export_library(tmp_path / name)
        np.testing.assert_allclose(_run(load_module(tmp_path / name)), want, rtol=1e-4, atol=1e-4)
    assert _image(lib).placed is placed and placed.address("__xtvm_const_p0") == address
    assert _mapping_of(address) == _image(lib).files.blob
    np.testing.assert_allclose(_run(lib), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(lib.params["p0"], _packed(w1))


def test_the_data_directory_goes_with_the_module(tmp_path: Path):
    module, _, _ = _mlp_module()
    lib = xtvm.build(module)
    lib.export_library(tmp_path / "a.so")
    directory = Path(_image(lib)._dir)
    assert (directory / "data.o").exists() or (directory / "data.bin").exists()
    del lib
    import gc

    gc.collect()
    assert not directory.exists()


def test_a_vm_executable_exported_before_and_after_running(tmp_path: Path):
    from xtvm.runtime.vm import VirtualMachine

    module, w1, w2 = _mlp_module()
    exe = xtvm.build(module, executor="vm")
    exe.export_library(str(tmp_path / "a.so"))
    want = _reference(X, w1, w2)
    got = VirtualMachine(load_module(tmp_path / "a.so"), xtvm.cpu(0)).invoke("main", X)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    got = VirtualMachine(exe, xtvm.cpu(0)).invoke("main", X)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    exe.export_library(str(tmp_path / "b.so"))
    got = VirtualMachine(load_module(tmp_path / "b.so"), xtvm.cpu(0)).invoke("main", X)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("writer", ["object", "assembly"])
def test_writing_the_data_gives_each_weight_up(tmp_path: Path, writer: str):
    """With ``give_up`` the list drops its reference to each constant's
    bytes once written (the bytes are freed if it held the last one), and
    the returned offsets find the bytes in the file, aligned."""
    rng = np.random.default_rng(0)
    raws = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in (100, 4096 + 7, 33)]
    items = [
        data_module.DataGlobal(f"c{i}", raw, len(raw), 128 if i else 64, True)
        for i, raw in enumerate(raws)
    ]
    items.insert(1, data_module.DataGlobal("ws", None, 256, 64, False))
    before = [sys.getrefcount(raw) for raw in raws]
    if writer == "object":
        blob = str(tmp_path / "data.o")
        offsets = data_module.write_data_object(items, blob, give_up=True)
    else:
        blob = str(tmp_path / "data.bin")
        offsets = data_module.write_assembly(items, str(tmp_path / "data.s"), blob, give_up=True)
    assert [sys.getrefcount(raw) for raw in raws] == [n - 1 for n in before]
    assert [item.data for item in items] == [b"", None, b"", b""]
    content = Path(blob).read_bytes()
    for i, raw in enumerate(raws):
        offset = offsets[f"c{i}"]
        assert offset % (128 if i else 64) == 0 and content[offset : offset + len(raw)] == raw
    files = data_module.DataFiles([blob], blob, offsets)
    placed = data_module.PlacedData.mapped(items, files)
    for i, raw in enumerate(raws):
        assert placed.arrays[f"c{i}"].tobytes() == raw and placed.address(f"c{i}") % 64 == 0
    assert not placed.arrays["ws"].any() and placed.arrays["ws"].size == 256


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF build IDs")
def test_the_library_has_no_build_id(tmp_path: Path):
    """The linker is asked for no build ID, a SHA-1 of the whole library
    (every weight read again after the link; ``export.NO_BUILD_ID``)."""
    module, _, _ = _mlp_module()
    xtvm.build(module).export_library(tmp_path / "a.so")
    library = (tmp_path / "a.so").read_bytes()
    assert b".note.gnu.build-id" not in library and b".dynsym" in library


def test_an_export_of_large_data_collects_garbage_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Reference cycles left by the build (which may hold the caller's
    weights) are collected before the data is written and linked."""
    import gc
    import weakref

    class Cycle:
        pass

    module, _, _ = _mlp_module()
    lib = xtvm.build(module)
    seen: list[bool] = []
    write = jit_module.write_data_files
    monkeypatch.setattr(jit_module, "COLLECT_BEFORE_LINK_BYTES", 1)
    monkeypatch.setattr(
        jit_module,
        "write_data_files",
        lambda *a, **k: (seen.append(ref() is None), write(*a, **k))[1],
    )
    gc.disable()
    try:
        garbage = Cycle()
        garbage.me = garbage
        ref = weakref.ref(garbage)
        del garbage
        lib.export_library(tmp_path / "a.so")
    finally:
        gc.enable()
    assert seen == [True]


def test_only_the_process_that_made_the_directory_removes_it(tmp_path: Path):
    """A child forked after the export that exits through the interpreter
    runs the finalizers it inherited: the parent's data must stay."""
    import os

    module, w1, w2 = _mlp_module()
    lib = xtvm.build(module)
    lib.export_library(tmp_path / "a.so")
    directory = _image(lib)._dir
    jit_module._remove(directory, os.getpid() + 1)  # what a child's finalizer does
    assert Path(directory).exists()
    np.testing.assert_allclose(_run(lib), _reference(X, w1, w2), rtol=1e-4, atol=1e-4)
