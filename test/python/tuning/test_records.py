"""Records (one JSON object per line): round trip, corrupt lines skipped
with a warning naming the line, and apply_history_best changing the
schedule a build picks while the model stays correct."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from tuning_models import conv_model, relay_of

import xtvm
from xtvm.driver.build_module import lower
from xtvm.tuning.measure import MeasureErrorNo, MeasureInput, MeasureResult
from xtvm.tuning.record import apply_history_best, decode, encode, load_records, save_records
from xtvm.tuning.task import extract_tasks


@pytest.fixture(scope="module")
def model():
    onnx_model = conv_model(channels=3, out=32, size=30, stride=2)
    mod, params = relay_of(onnx_model)
    (task,) = extract_tasks(mod, params)
    return onnx_model, task


def test_a_record_round_trips(model):
    _, task = model
    config = task.config_space.get(len(task.config_space) - 1)
    ok = MeasureResult([1e-3, 1.2e-3], MeasureErrorNo.NO_ERROR, 2.5, time.time())
    bad = MeasureResult(
        ["the worker died of signal SIGSEGV"], MeasureErrorNo.RUNTIME_DEVICE, 0.1, time.time()
    )
    for result in (ok, bad):
        line = encode(MeasureInput(task, config), result)
        data = json.loads(line)
        assert data["input"][1:3] == [task.name, [task.key]] and data["version"] == 0.2
        record = decode(line)
        assert (record.key, record.error_no, record.costs) == (
            task.key,
            result.error_no,
            result.costs,
        )
        assert task.config_space.from_entity(record.config["entity"]).index == config.index
    assert decode(encode(MeasureInput(task, config), ok)).mean == pytest.approx(1.1e-3)


def test_corrupt_lines_are_skipped_with_a_warning_naming_them(model, tmp_path):
    _, task = model
    good = encode(MeasureInput(task, task.config_space.get(1)), MeasureResult([1e-3], 0, 1.0, 0.0))
    path = tmp_path / "records.json"
    lines = [
        good,
        "{not json",
        json.dumps({"input": "x"}),
        good[: len(good) // 2],
        "",
        json.dumps([1, 2]),
        good,
    ]
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning) as caught:
        records = list(load_records(path))
    assert len(records) == 2
    messages = sorted(str(w.message) for w in caught)
    for number in (2, 3, 4, 6):
        assert any(
            m.startswith(f"{path}:{number}: skipped a corrupt tuning record") for m in messages
        ), messages
    assert len(messages) == 4


def _tir_text(mod, params) -> str:
    with xtvm.target.Target.of("llvm"), xtvm.transform.PassContext(opt_level=3):
        return str(lower(mod.clone(), params, stage="tir"))


def test_apply_history_best_changes_the_schedule_and_the_model_stays_correct(model, tmp_path):
    onnx_model, task = model
    mod, params = relay_of(onnx_model)
    space = task.config_space
    default = _tir_text(mod, params)
    # two records of the task: the faster one (a non-default config) applies
    fast, slow = space.get(len(space) - 1), space.get(0)
    path = tmp_path / "records.json"
    save_records(
        path,
        [
            encode(MeasureInput(task, slow), MeasureResult([2e-3], 0, 1.0, 0.0)),
            encode(MeasureInput(task, fast), MeasureResult([1e-3], 0, 1.0, 0.0)),
            encode(MeasureInput(task, space.get(1)), MeasureResult(["crash"], 4, 1.0, 0.0)),
        ],
    )
    context = apply_history_best(str(path))
    with context:
        tuned = _tir_text(mod, params)
        lib = xtvm.build(mod, params=params)
    assert context.applied == {task.key: str(fast.to_json())}
    assert tuned != default
    untuned = xtvm.build(mod, params=params)
    x = np.random.default_rng(0).standard_normal((1, 3, 30, 30)).astype("float32")
    outs = []
    for built in (lib, untuned):
        gmod = built["default"](xtvm.cpu(0))
        gmod.set_input("x", x)
        gmod.run()
        outs.append(gmod.get_output(0).numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-4)


def test_records_of_other_kernels_leave_the_build_unchanged(model, tmp_path):
    onnx_model, task = model
    mod, params = relay_of(onnx_model)
    line = json.loads(
        encode(MeasureInput(task, task.config_space.get(1)), MeasureResult([1e-3], 0, 1.0, 0.0))
    )
    line["input"][2] = ["0" * 64]  # another workload
    path = tmp_path / "records.json"
    path.write_text(json.dumps(line) + "\n")
    context = apply_history_best(str(path))
    with context:
        text = _tir_text(mod, params)
    assert context.applied == {}
    assert text == _tir_text(mod, params)


@pytest.mark.parametrize(
    ("tuned_cost", "applied"),
    [(0.5e-3, True), (0.99e-3, False), (1.5e-3, False)],
    ids=["faster", "within-the-margin", "slower"],
)
def test_a_tuned_config_applies_only_when_it_beat_the_hand_written_baseline(
    model, tmp_path, tuned_cost, applied
):
    _, task = model
    space = task.config_space
    other = space.get(len(space) - 1)
    path = tmp_path / "records.json"
    save_records(
        path,
        [
            encode(MeasureInput(task, space.get(0)), MeasureResult([1e-3], 0, 1.0, 0.0)),
            encode(MeasureInput(task, other), MeasureResult([tuned_cost], 0, 1.0, 0.0)),
        ],
    )
    context = apply_history_best(str(path))
    with context:
        _tir_text(*relay_of(model[0]))
    assert context.applied == ({task.key: str(other.to_json())} if applied else {})
