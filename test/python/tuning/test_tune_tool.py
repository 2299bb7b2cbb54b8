"""xtvm-tune end to end on a small model (a tiny budget), --resume, and
xtvm-compile --tuning-records using records."""

from __future__ import annotations

import json

import pytest
from tuning_models import conv_model, relay_of

from xtvm.tools import compile as xtvm_compile
from xtvm.tools import tune as xtvm_tune
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.record import encode, load_records
from xtvm.tuning.task import extract_tasks


@pytest.fixture(scope="module")
def onnx_file(tmp_path_factory):
    import onnx

    # 5 input channels: a first-layer conv with one implementation (3 would
    # add the stem's space-to-depth Winograd forms as tasks of their own)
    path = tmp_path_factory.mktemp("model") / "conv.onnx"
    onnx.save(conv_model(channels=5, out=32, size=30, kernel=7, stride=2), str(path))
    return path


def test_tune_writes_records_and_resume_continues(onnx_file, tmp_path, capsys):
    records = tmp_path / "records.json"
    argv = [
        str(onnx_file),
        "--records",
        str(records),
        "--trials",
        "3",
        "--autotvm-tuner",
        "random",
        "--min-repeat-ms",
        "1",
        "--repeat",
        "1",
    ]
    xtvm_tune.main(argv)
    out = capsys.readouterr().out
    assert "hand-written µs" in out and "fused_nn_contrib_conv2d_packed" in out
    first = list(load_records(records))
    assert len(first) == 3 and first[0].config["index"] == 0  # the hand-written schedule first
    assert all(r.error_no == 0 for r in first)
    xtvm_tune.main([*argv, "--resume"])  # 3 trials already done: nothing new
    assert len(list(load_records(records))) == 3
    xtvm_tune.main([*argv[:4], "5", *argv[5:], "--resume"])  # two more
    assert len({json.dumps(r.config) for r in load_records(records)}) == 5


def test_tune_refuses_bad_flags(onnx_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        xtvm_tune.main([str(onnx_file), "--records", str(tmp_path / "r.json"), "--trials", "0"])
    assert exit_info.value.code == 1
    assert "--trials must be at least 1" in capsys.readouterr().err


def test_compile_uses_tuning_records(onnx_file, tmp_path, capsys):
    import onnx

    mod, params = relay_of(onnx.load(str(onnx_file)))
    (task,) = extract_tasks(mod, params)
    records = tmp_path / "records.json"
    config = task.config_space.get(len(task.config_space) - 1)
    records.write_text(
        encode(MeasureInput(task, config), MeasureResult([1e-4], 0, 1.0, 0.0)) + "\n"
    )
    outputs = {}
    for name, extra in (("plain", []), ("tuned", ["--tuning-records", str(records)])):
        out = tmp_path / f"{name}.mlir"
        xtvm_compile.main([str(onnx_file), "--emit", "tir", "-o", str(out), *extra])
        outputs[name] = out.read_text().split("\n", 1)[1]  # past the command line
    assert outputs["plain"] != outputs["tuned"]
    with pytest.raises(SystemExit):
        xtvm_compile.main(
            [
                str(onnx_file),
                "-o",
                str(tmp_path / "m.so"),
                "--tuning-records",
                str(tmp_path / "missing.json"),
            ]
        )
    assert "--tuning-records: no such file" in capsys.readouterr().err
