"""``from_onnx(path)`` runs ``onnx.checker`` on the file in a forked child
while it loads and imports the model (xtvm/frontend/onnx/importer.py,
``_CheckInChild``): an invalid file gives the checker's error exactly as a
``ModelProto`` does, even when the importer would fail on it first; a file
that does not load gives the load error; a valid one imports."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from onnx import helper
from onnx_testing import import_error, make_model, op_names, tensor

from xtvm.frontend import OnnxImportError, from_onnx
from xtvm.frontend.onnx import importer


@pytest.fixture
def verdicts(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Per checked file: None if the child found it valid, else the error.
    The child is forked as in a process without other threads (earlier
    tests in this process may leave library threads running, e.g. dask's
    offload pool; with them the file is checked here instead, which
    test_a_process_with_other_threads_checks_in_process covers)."""
    found: list[str | None] = []
    monkeypatch.setattr(importer.threading, "active_count", lambda: 1)
    raise_if_invalid = importer._CheckInChild.raise_if_invalid

    def spy(self, proto):
        try:
            raise_if_invalid(self, proto)
        except OnnxImportError as err:
            found.append(str(err))
            raise
        found.append(None)

    monkeypatch.setattr(importer._CheckInChild, "raise_if_invalid", spy)
    return found


def _save(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save(model, path)
    return path


def test_valid_file_checked_in_child_imports(tmp_path: Path, verdicts: list[str | None]):
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("y", [2])]
    )
    module, _ = from_onnx(_save(model, tmp_path / "relu.onnx"))
    assert op_names(module) == ["relay.nn.relu"]
    assert verdicts == [None]


@pytest.mark.parametrize(
    "node",
    [
        helper.make_node("Add", ["x"], ["y"], name="add0"),  # the importer would pass it
        helper.make_node("Add", ["x", "nope"], ["y"], name="add0"),  # the importer fails too
        helper.make_node("Frobnicate", ["x"], ["y"], name="f"),
    ],
)
def test_invalid_file_gives_the_checkers_error(
    tmp_path: Path, node: onnx.NodeProto, verdicts: list[str | None]
):
    model = make_model([node], [tensor("x", [2])], [tensor("y", [2])])
    expected = import_error(model)  # in this process, from the ModelProto
    assert expected.startswith("invalid ONNX model: ")
    with pytest.raises(OnnxImportError) as info:
        from_onnx(_save(model, tmp_path / "bad.onnx"))
    assert str(info.value) == expected
    assert verdicts == [expected]


def test_file_that_does_not_load_gives_the_load_error(tmp_path: Path, verdicts: list[str | None]):
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\xff\xff not a protobuf")
    with pytest.raises(OnnxImportError, match=r"^cannot load ONNX model from '.*garbage.onnx': "):
        from_onnx(garbage)
    assert verdicts == []  # the child's verdict was not asked for


def test_failed_child_checks_in_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    calls: list[object] = []
    check = importer.check_model

    def crash_in_child(path):  # the checker itself fails (not a ValidationError)
        raise RuntimeError("checker crashed")

    def spy(model, path=None):
        calls.append(model)
        check(model, path)

    monkeypatch.setattr(onnx.checker, "check_model", crash_in_child)
    monkeypatch.setattr(importer, "check_model", spy)
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("y", [2])]
    )
    with pytest.raises(RuntimeError, match="checker crashed"):  # checked here: crashes again
        from_onnx(_save(model, tmp_path / "relu.onnx"))
    assert len(calls) == 1 and isinstance(calls[0], onnx.ModelProto)


@pytest.mark.parametrize(
    "attribute, value",
    [
        ("CHECK_IN_CHILD_MAX_BYTES", 0),  # every file is "large"
        # A child forked from a process running other threads may inherit a
        # lock held by a thread it does not have.
        ("threading", type("Threaded", (), {"active_count": staticmethod(lambda: 2)})),
    ],
    ids=["large-file", "threaded-process"],
)
def test_checked_in_this_process(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    verdicts: list[str | None],
    attribute: str,
    value: object,
):
    monkeypatch.setattr(importer, attribute, value)
    model = make_model(
        [helper.make_node("Add", ["x"], ["y"], name="add0")], [tensor("x", [2])], [tensor("y", [2])]
    )
    expected = import_error(model)
    with pytest.raises(OnnxImportError) as info:
        from_onnx(_save(model, tmp_path / "bad.onnx"))
    assert str(info.value) == expected
    assert verdicts == []  # no child


def test_a_process_with_other_threads_checks_in_process(tmp_path: Path):
    # a child forked beside another thread may find a lock that thread held
    import threading

    node = helper.make_node("Frobnicate", ["x"], ["y"], name="f")
    model = make_model([node], [tensor("x", [2])], [tensor("y", [2])])
    expected = import_error(model)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert importer._CheckInChild.start(_save(model, tmp_path / "bad.onnx")) is None
        with pytest.raises(OnnxImportError) as info:
            from_onnx(tmp_path / "bad.onnx")
    finally:
        stop.set()
        other.join()
    assert str(info.value) == expected
