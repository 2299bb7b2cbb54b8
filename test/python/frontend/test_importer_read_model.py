"""``from_onnx(path)`` parses a binary model from a memory map of the file
(``_read_model``): the same ``ModelProto`` as ``onnx.load``, text formats
and files that cannot be mapped still through ``onnx.load``, and the same
errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx_testing import init, make_model, tensor

from xtvm.frontend import OnnxImportError, from_onnx
from xtvm.frontend.onnx.importer import _read_model


def _model() -> onnx.ModelProto:
    """y = x @ w with a weight, so the file holds raw tensor data."""
    w = np.arange(64, dtype=np.float32).reshape(8, 8)
    return make_model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [tensor("x", [1, 8])],
        [tensor("y", [1, 8])],
        [init("w", w)],
    )


def test_binary_file_parses_as_onnx_load_does(tmp_path: Path) -> None:
    path = tmp_path / "mm.onnx"
    onnx.save(_model(), path)
    read = _read_model(path)
    assert read == onnx.load(path, load_external_data=False)
    assert read.SerializeToString() == path.read_bytes()
    _, params = from_onnx(str(path))
    np.testing.assert_array_equal(params["w"], np.arange(64, dtype=np.float32).reshape(8, 8))


def test_text_format_goes_to_onnx_load(tmp_path: Path) -> None:
    path = tmp_path / "mm.textproto"
    onnx.save(_model(), path, format="textproto")
    assert _read_model(path) == _model()


def test_empty_and_truncated_files_fail_as_before(tmp_path: Path) -> None:
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")  # cannot be mapped: onnx.load reads an empty model
    assert _read_model(empty) == onnx.ModelProto()
    with pytest.raises(OnnxImportError, match="invalid ONNX model: The model does not have an ir_version"):
        from_onnx(empty)
    data = _model().SerializeToString()
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(data[: len(data) - 7])
    with pytest.raises(OnnxImportError, match=r"^cannot load ONNX model from '.*truncated.onnx': Error parsing"):
        from_onnx(truncated)
