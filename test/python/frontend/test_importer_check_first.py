"""A model file ``from_onnx`` checks in this process (over
``CHECK_IN_CHILD_MAX_BYTES``, or with other threads running) is checked
before it is loaded, so the checker's copy of the model and the importer's
are never held together (VGG-19's import peak: 1.66 -> 1.17 GB); the load's
errors still come first, then the checker's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx_testing import import_error, make_model, tensor

import xtvm
from xtvm.frontend import OnnxImportError, from_onnx
from xtvm.frontend.onnx import importer


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The order of the checker's and the loader's calls, every file large."""
    found: list[str] = []
    check, load = onnx.checker.check_model, importer._load
    monkeypatch.setattr(importer, "CHECK_IN_CHILD_MAX_BYTES", 0)
    monkeypatch.setattr(
        onnx.checker,
        "check_model",
        lambda model, *a, **k: (
            found.append(f"check {type(model).__name__}"),
            check(model, *a, **k),
        )[1],
    )
    monkeypatch.setattr(importer, "_load", lambda model: (found.append("load"), load(model))[1])
    return found


def _relu(tmp_path: Path) -> Path:
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2, 3])], [tensor("y", [2, 3])]
    )
    onnx.save(model, tmp_path / "relu.onnx")
    return tmp_path / "relu.onnx"


def test_a_large_file_is_checked_before_it_is_loaded(tmp_path: Path, calls: list[str]):
    mod, params = from_onnx(_relu(tmp_path))
    assert calls == ["check str", "load"]
    lib = xtvm.build(mod, params=params)
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    gmod = lib["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    np.testing.assert_array_equal(gmod.get_output(0).numpy(), np.maximum(x, 0))


def test_the_checkers_error_waits_for_the_load(tmp_path: Path, calls: list[str]):
    model = make_model(
        [helper.make_node("Add", ["x"], ["y"], name="add0")], [tensor("x", [2])], [tensor("y", [2])]
    )
    expected = import_error(model)
    calls.clear()
    onnx.save(model, tmp_path / "bad.onnx")
    with pytest.raises(OnnxImportError) as info:
        from_onnx(tmp_path / "bad.onnx")
    assert str(info.value) == expected and calls == ["check str", "load"]
    (tmp_path / "junk.onnx").write_bytes(b"\x08\x07not a model")
    with pytest.raises(OnnxImportError, match="cannot load ONNX model"):
        from_onnx(tmp_path / "junk.onnx")
