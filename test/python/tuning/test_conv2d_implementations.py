"""A conv with several implementations (direct, Winograd F(2,3), F(4,3)):
task extraction makes a task of each, records carry the conv and the
implementation, and under ``apply_history_best`` ``conv2d-winograd``
builds the implementation measured fastest (the hand-written size
thresholds when the records did not measure the conv), numerically equal
to a NumPy conv."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tuning_models import conv_model, relay_of

import xtvm
from xtvm.autotvm.dispatch import DIRECT
from xtvm.driver.build_module import lower
from xtvm.target import Target
from xtvm.testing.graph import run_graph
from xtvm.topi.x86.config import lanes
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.record import apply_history_best, decode, encode, save_records
from xtvm.tuning.task import Task, extract_tasks

pytestmark = pytest.mark.skipif(
    lanes(Target.of("llvm")) < 16, reason="the Winograd kernel needs AVX-512 (16 f32 lanes)"
)


def _conv(size: int, channels: int = 32) -> tuple:
    """A 3x3 stride-1 conv + bias + relu of ``channels`` on ``size`` x ``size``."""
    model = conv_model(channels=channels, out=channels, size=size, stride=1)
    return model, *relay_of(model)


@pytest.fixture(scope="module")
def small():
    """32 channels on 10x10: the thresholds keep the direct conv (under 14x14)."""
    model, mod, params = _conv(10)
    return model, mod, params, extract_tasks(mod, params)


@pytest.fixture(scope="module")
def medium():
    """32 channels on 16x16: the thresholds take F(2,3)."""
    model, mod, params = _conv(16)
    return model, mod, params, extract_tasks(mod, params)


def _by_tile(tasks: list[Task]) -> dict[int, Task]:
    return {t.tile_size: t for t in tasks}


def test_an_eligible_conv_gives_a_task_per_implementation(small, medium):
    for (*_, tasks), size, default in ((small, 10, DIRECT), (medium, 16, 2)):
        assert sorted(t.tile_size for t in tasks) == [DIRECT, 2, 4]
        assert len({t.key for t in tasks}) == 3
        assert {t.conv2d for t in tasks} == {
            f"conv2d f32 data=1x32x{size}x{size} weight=32x32x3x3 strides=1x1 "
            + "padding=1x1x1x1 dilation=1x1 groups=1"
        }
        assert all(t.weight == 1 and len(t.config_space) > 1 for t in tasks)
        assert tasks[0].tile_size == default  # the hand-written choice is tuned first
        assert [t.hand_written for t in tasks] == [True, False, False]
        names = {t.tile_size: t.name for t in tasks}
        assert "winograd" in names[2] and "winograd" in names[4] and "packed" in names[DIRECT]
        # Winograd's FLOPs are the direct conv's (GFLOP/s compare across them)
        assert len({t.flop for t in tasks}) == 1


def test_an_ineligible_conv_gives_the_direct_task_only():
    for kw in (
        {"channels": 24, "out": 32, "size": 12, "stride": 1},  # not whole 16-channel blocks
        {"channels": 3, "out": 32, "stride": 2},
    ):
        mod, params = relay_of(conv_model(**kw))
        (task,) = extract_tasks(mod, params)
        assert (task.conv2d, task.tile_size) == ("", DIRECT) and "packed" in task.name
    with Target.of("llvm -mcpu=haswell"):  # AVX2: no Winograd kernel
        mod, params = relay_of(conv_model(channels=32, out=32, size=16, stride=1))
        (task,) = extract_tasks(mod, params, target="llvm -mcpu=haswell")
        assert task.conv2d == ""


def _records(path, tasks: dict[int, Task], costs: dict[int, float], config: int = -1) -> None:
    """One record per implementation: its task's config ``config`` (from the
    end of its space) measured at ``costs[tile]`` seconds."""
    save_records(
        path,
        [
            encode(
                MeasureInput(
                    tasks[t], tasks[t].config_space.get(len(tasks[t].config_space) + config)
                ),
                MeasureResult([cost], 0, 1.0, 0.0),
            )
            for t, cost in costs.items()
        ],
    )


def _relay_text(mod, params) -> str:
    with Target.of("llvm"), xtvm.transform.PassContext(opt_level=3):
        return str(lower(mod.clone(), params, stage="relay-opt"))


def _reference(model, x: np.ndarray) -> np.ndarray:
    """conv + bias + relu in float64 with NumPy (padding 1, stride 1)."""
    from onnx import numpy_helper

    inits = {i.name: numpy_helper.to_array(i).astype("float64") for i in model.graph.initializer}
    w, b = inits["w"], inits["b"]
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, wd = x.shape[2], x.shape[3]
    out = np.zeros((1, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,kc->nkhw", xp[:, :, i : i + h, j : j + wd], w[:, :, i, j])
    return np.maximum(out + b[None, :, None, None], 0)


def _check(model, mod, params, context, size: int, channels: int = 32) -> None:
    with context, xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, params=params)
    x = np.random.default_rng(1).standard_normal((1, channels, size, size)).astype("float32")
    np.testing.assert_allclose(run_graph(lib, x), _reference(model, x), rtol=1e-4, atol=1e-4)


def test_a_record_favouring_f23_turns_it_on_where_the_thresholds_do_not(small, tmp_path):
    model, mod, params, tasks = small
    assert "winograd" not in _relay_text(mod, params)  # the thresholds: direct
    by_tile = _by_tile(tasks)
    path = tmp_path / "records.json"
    _records(path, by_tile, {DIRECT: 2e-3, 2: 1e-3, 4: 1.5e-3})
    context = apply_history_best(str(path))
    with context:
        text = _relay_text(mod, params)
    assert "relay.nn.contrib_conv2d_winograd_without_weight_transform" in text
    assert "tile_size = 2 : i64" in text and "tile_size = 4" not in text
    assert "contrib_conv2d_packed" not in text
    assert context.implementations == {by_tile[2].conv2d: 2}
    _check(model, mod, params, context, 10)
    # the F(2,3) kernel took its record's config (m and its register tile)
    winograd = by_tile[2]
    assert context.applied == {
        winograd.key: str(winograd.config_space.get(len(winograd.config_space) - 1).to_json())
    }


def test_f43_chosen_by_records_on_partial_tiles_computes_the_conv(small, tmp_path):
    """F(4,3) on a 10x10 output (the thresholds never take it there: two
    whole 4x4 tiles and a partial one per side)."""
    model, mod, params, tasks = small
    path = tmp_path / "records.json"
    _records(path, _by_tile(tasks), {DIRECT: 2e-3, 4: 1e-3})
    context = apply_history_best(str(path))
    with context:
        assert "tile_size = 4 : i64" in _relay_text(mod, params)
    _check(model, mod, params, context, 10)


def test_records_may_take_winograd_above_the_default_weight_bounds(tmp_path):
    """A 512 -> 512 conv on 7x7 (ResNet-50's last stage): its weight is above
    the hand-written choice's memory bounds (direct), yet it has both
    Winograd implementations as tasks, and a record favouring F(2,3) builds
    it (its transformed weight 1.8x the conv's), equal to a NumPy conv."""
    model, mod, params = _conv(7, channels=512)
    assert "winograd" not in _relay_text(mod, params)
    tasks = extract_tasks(mod, params)
    assert [t.tile_size for t in tasks] == [DIRECT, 2, 4]
    assert [t.hand_written for t in tasks] == [True, False, False]
    path = tmp_path / "records.json"
    _records(path, _by_tile(tasks), {DIRECT: 1e-3, 2: 0.7e-3, 4: 1.4e-3})
    context = apply_history_best(str(path))
    with context:
        assert "tile_size = 2 : i64" in _relay_text(mod, params)
    _check(model, mod, params, context, 7, channels=512)


def test_a_record_favouring_direct_turns_winograd_off(medium, tmp_path):
    model, mod, params, tasks = medium
    assert "tile_size = 2 : i64" in _relay_text(mod, params)  # the thresholds: F(2,3)
    by_tile = _by_tile(tasks)
    path = tmp_path / "records.json"
    _records(path, by_tile, {DIRECT: 1e-3, 2: 2e-3})
    context = apply_history_best(str(path))
    with context:
        text = _relay_text(mod, params)
    assert "winograd" not in text and "relay.nn.contrib_conv2d_packed" in text
    assert context.implementations == {by_tile[DIRECT].conv2d: DIRECT}
    _check(model, mod, params, context, 16)
    assert set(context.applied) == {by_tile[DIRECT].key}


def test_the_best_implementation_wins_by_the_margin_only(medium, tmp_path):
    """Another implementation replaces the thresholds' choice only when
    measured next to it and 2% faster (as a config replaces config 0)."""
    _, mod, params, tasks = medium
    by_tile = _by_tile(tasks)
    for costs, expected in (
        ({DIRECT: 0.99e-3, 2: 1e-3}, "tile_size = 2"),  # within the margin
        ({DIRECT: 1e-3}, "tile_size = 2"),  # the default not measured: no comparison
        ({4: 0.5e-3, 2: 1e-3}, "tile_size = 4"),
    ):
        path = tmp_path / f"records-{len(costs)}-{expected[-1]}.json"
        path.unlink(missing_ok=True)
        _records(path, by_tile, costs)
        with apply_history_best(str(path)):
            assert expected in _relay_text(mod, params), costs


def test_a_corrupt_or_missing_record_falls_back_to_the_thresholds(medium, tmp_path):
    _, mod, params, tasks = medium
    by_tile = _by_tile(tasks)
    path = tmp_path / "records.json"
    _records(path, by_tile, {2: 2e-3, DIRECT: 1e-3})
    lines = path.read_text().splitlines()
    bad = json.loads(lines[0])
    bad["input"][3]["tile_size"] = 3  # no such Winograd tile
    path.write_text(json.dumps(bad) + "\n" + lines[1] + "\n")
    with pytest.warns(UserWarning, match=r"records.json:1: skipped a corrupt tuning record"):
        context = apply_history_best(str(path))
    with context:
        assert "tile_size = 2 : i64" in _relay_text(mod, params)
    assert context.implementations == {}
    # records of another conv leave this one to the thresholds
    other = tmp_path / "other.json"
    line = json.loads(lines[1])
    line["input"][3]["conv2d"] = line["input"][3]["conv2d"].replace("32x32x3x3", "48x32x3x3")
    other.write_text(json.dumps(line) + "\n")
    with apply_history_best(str(other)):
        assert "tile_size = 2 : i64" in _relay_text(mod, params)


def test_records_carry_the_conv_and_the_implementation(medium):
    for task in medium[3]:
        line = encode(MeasureInput(task, task.config_space.get(0)), MeasureResult([1e-3], 0, 1, 0))
        record = decode(line)
        assert record.kwargs["conv2d"] == task.conv2d and record.conv2d_tile == task.tile_size
        assert json.loads(line)["input"][3]["implementation"] == (
            "direct" if task.tile_size == DIRECT else "winograd"
        )
        assert Task.from_json(task.to_json()) == task
    for kwargs in ({"conv2d": 1}, {"conv2d": "c", "implementation": "im2col"}, []):
        data = json.loads(line)
        data["input"][3] = kwargs
        with pytest.raises((ValueError, TypeError)):
            decode(json.dumps(data))


def test_the_benchs_in_model_check_compares_a_convs_implementations_as_one(medium, tmp_path):
    """``python -m xtvm.bench --tuned``'s check times a conv whose records
    change its implementation (Winograd hand-written, direct tuned) as one
    unit, the conv's workload, and keeps or drops its records together
    (which one it keeps depends on the timing, not asserted)."""
    from xtvm.bench.tune import model_latency

    model, mod, params, tasks = medium
    by_tile = _by_tile(tasks)
    path = tmp_path / "records.json"
    _records(path, by_tile, {DIRECT: 1e-4, 2: 1e-3})
    x = np.random.default_rng(2).standard_normal((1, 32, 16, 16)).astype("float32")
    times, applied, in_model, chosen, hand_calls = model_latency(
        model, mod, params, "x", x, [str(path)], 2
    )
    assert set(in_model) == {by_tile[DIRECT].conv2d}
    assert chosen in ({by_tile[DIRECT].conv2d: DIRECT}, {})  # {}: the check dropped the records
    assert all(t > 0 for t in in_model[by_tile[DIRECT].conv2d])
    assert set(applied) <= {by_tile[DIRECT].key}
    assert set(times) == {"hand-written", "tuned", "onnxruntime"}
    # the hand-written build's kernels: the conv's is a task's, every one called and timed
    keys = {key for key, _, _ in hand_calls.values()}
    assert {t.key for t in tasks if t.hand_written} & keys
    assert all(calls >= 1 and seconds > 0 for _, calls, seconds in hand_calls.values())


def test_the_final_table_counts_a_conv_once(medium):
    """xtvm-tune's totals: the hand-written implementation's baseline
    against the fastest implementation's best."""
    from xtvm.autotvm.driver import TaskSummary, format_table

    by_tile = _by_tile(medium[3])
    table = format_table(
        [
            TaskSummary(by_tile[2], 3e-4, 2e-4, 4),  # hand-written (the thresholds' F(2,3))
            TaskSummary(by_tile[DIRECT], 9e-4, 1e-4, 4),
            TaskSummary(by_tile[4], 5e-4, 4e-4, 4),
        ]
    )
    assert "[winograd F(2,3)]" in table and "[direct]" in table
    total = table.splitlines()[-1].split()
    assert total[-3:] == ["300.0", "100.0", "3.00x"], table


def test_xtvm_tune_measures_each_implementation_and_xtvm_compile_applies_the_best(
    medium, tmp_path, capsys
):
    """xtvm-tune on an eligible conv measures all three implementations
    (their records tagged); xtvm-compile --tuning-records then builds the
    one measured fastest (whichever that was on this machine)."""
    import onnx

    from xtvm.tools import compile as xtvm_compile
    from xtvm.tools import tune as xtvm_tune
    from xtvm.tuning.record import ApplyHistoryBest, load_records

    model, *_ = medium
    path, records = tmp_path / "conv.onnx", tmp_path / "records.json"
    onnx.save(model, str(path))
    xtvm_tune.main(
        [str(path), "--records", str(records), "--trials", "2", "--autotvm-tuner", "random"]
        + ["--min-repeat-ms", "1", "--repeat", "1"]
    )
    assert "[winograd F(2,3)]" in capsys.readouterr().out
    measured = [r for r in load_records(records) if r.error_no == 0]
    assert sorted({r.conv2d_tile for r in measured}) == [DIRECT, 2, 4]
    (conv,) = {r.kwargs["conv2d"] for r in measured}
    context = ApplyHistoryBest(str(records))
    chosen = context.conv2d_tile(conv, (DIRECT, 2, 4), 2)
    out = tmp_path / "tuned.mlir"
    xtvm_compile.main(
        [str(path), "--emit", "relay-opt", "-o", str(out)] + ["--tuning-records", str(records)]
    )
    text = out.read_text()
    if chosen == DIRECT:
        assert "winograd" not in text and "contrib_conv2d_packed" in text
    else:
        assert f"tile_size = {chosen} : i64" in text


STEM = "conv2d f32 data=1x3x32x32 weight=64x3x7x7 strides=2x2 padding=3x3x3x3 dilation=1x1 groups=1"


@pytest.fixture(scope="module")
def stem():
    """ResNet-50's first conv on 32x32: 3 -> 64 channels, 7x7, stride 2,
    padding 3 (+ bias + relu); the hand-written choice is the direct conv."""
    model = conv_model(channels=3, out=64, size=32, kernel=7, stride=2)
    mod, params = relay_of(model)
    return model, mod, params, extract_tasks(mod, params)


def test_a_stem_gives_a_task_per_implementation(stem):
    """The direct conv (hand-written) and the space-to-depth form's F(2,4)
    and F(4,4), all named by the 7x7 stride-2 conv, with its FLOPs."""
    *_, tasks = stem
    assert [t.tile_size for t in tasks] == [DIRECT, 2, 4]
    assert [t.hand_written for t in tasks] == [True, False, False]
    assert {t.conv2d for t in tasks} == {STEM}
    assert [t.implementation for t in tasks] == ["direct", "winograd F(2,4)", "winograd F(4,4)"]
    assert {t.flop for t in tasks} == {2.0 * 64 * 3 * 7 * 7 * 16 * 16}
    assert all(len(t.config_space) > 1 for t in tasks)


def _stem_reference(model, x: np.ndarray) -> np.ndarray:
    """The 7x7 stride-2 conv (padding 3) + bias + relu in float64 with NumPy."""
    from onnx import numpy_helper

    inits = {i.name: numpy_helper.to_array(i).astype("float64") for i in model.graph.initializer}
    w, b = inits["w"], inits["b"]
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (3, 3), (3, 3)))
    size = (x.shape[2] + 6 - 7) // 2 + 1
    out = np.zeros((1, w.shape[0], size, size))
    for i in range(7):
        for j in range(7):
            patch = xp[:, :, i : i + 2 * size : 2, j : j + 2 * size : 2]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
    return np.maximum(out + b[None, :, None, None], 0)


@pytest.mark.parametrize("tile", [4, pytest.param(2, marks=pytest.mark.slow)])
def test_a_record_favouring_winograd_builds_the_stem_by_space_to_depth(stem, tmp_path, tile):
    """A record measuring F(m,4) fastest turns the stem into the Winograd
    conv on its space-to-depth data (12 channels, NCHW12c); the model
    computes the 7x7 stride-2 conv (float32 error of F(4,4) ~3e-6 of the
    output's max)."""
    model, mod, params, tasks = stem
    assert "winograd" not in _relay_text(mod, params)  # hand-written: direct
    path = tmp_path / "records.json"
    other = 2 if tile == 4 else 4
    _records(path, _by_tile(tasks), {DIRECT: 2e-3, tile: 1e-3, other: 1.5e-3})
    context = apply_history_best(str(path))
    with context:
        text = _relay_text(mod, params)
    assert f"tile_size = {tile} : i64" in text and "contrib_conv2d_packed" not in text
    assert "relay.nn.space_to_depth" in text and 'data_layout = "NCHW12c"' in text
    assert context.implementations == {STEM: tile}
    with context, xtvm.transform.PassContext(opt_level=3):
        lib = xtvm.build(mod, params=params)
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype("float32")
    want = _stem_reference(model, x)
    np.testing.assert_allclose(run_graph(lib, x), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


@pytest.mark.parametrize(
    "channels, kernel, size, layout",
    [(4, 5, 15, "NCHW16c"), pytest.param(1, 7, 21, "NCHW4c", marks=pytest.mark.slow)],
)
def test_the_space_to_depth_form_takes_5x5_kernels_odd_sizes_and_fewer_channels(
    channels, kernel, size, layout
):
    """F(4,3) for a 5x5 stride-2 conv of 4 channels on 15x15 (its data
    padded to an even 18x18), F(4,4) for a 7x7 one of 1 channel (4-channel
    blocks), forced as task extraction does; equal to NumPy's conv."""
    from onnx import numpy_helper

    from xtvm.autotvm.dispatch import ForceConv2dTile
    from xtvm.reference.relay.conv import conv2d

    model = conv_model(channels=channels, out=32, size=size, kernel=kernel, stride=2)
    mod, params = relay_of(model)
    with ForceConv2dTile(4):
        text = _relay_text(mod, params)
        with xtvm.transform.PassContext(opt_level=3):
            lib = xtvm.build(mod, params=params)
    assert "relay.nn.space_to_depth" in text and f'data_layout = "{layout}"' in text
    inits = {i.name: numpy_helper.to_array(i).astype("float64") for i in model.graph.initializer}
    x = np.random.default_rng(1).standard_normal((1, channels, size, size)).astype("float32")
    pad = kernel // 2
    conv = conv2d(x.astype("float64"), inits["w"], (2, 2), (pad,) * 4, (1, 1))
    want = np.maximum(conv + inits["b"][None, :, None, None], 0)
    np.testing.assert_allclose(run_graph(lib, x), want, rtol=1e-4, atol=1e-4 * np.abs(conv).max())
