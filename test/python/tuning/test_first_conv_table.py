"""python -m xtvm.bench.tune: the first conv's table (its tasks found in
the model, each implementation's hand-written and best searched time as
GFLOP/s and a share of the FMA peak, the speedup over the hand-written
schedule) and the roof table (the hand-written kernels' share of the peak
in the model, the most schedules can gain), on recorded measurements (no
timing)."""

from __future__ import annotations

from tuning_models import conv_model, relay_of

from xtvm.bench.tune import first_conv_table, first_conv_tasks, roof_table
from xtvm.tuning.measure import MeasureInput, MeasureResult
from xtvm.tuning.record import encode, save_records
from xtvm.tuning.task import extract_tasks


def test_the_first_conv_and_its_speedup(tmp_path):
    mod, params = relay_of(conv_model(channels=3, out=16, size=18, kernel=7, stride=2, dense=10))
    tasks = extract_tasks(mod, params)
    (first,) = first_conv_tasks(mod, tasks)
    assert "conv2d" in first.name and first.flop == 2 * 16 * 3 * 49 * 9 * 9
    space = first.config_space
    path = tmp_path / "records.json"
    save_records(
        path,
        [
            encode(MeasureInput(first, space.get(0)), MeasureResult([4e-6, 5e-6], 0, 1.0, 0.0)),
            encode(MeasureInput(first, space.get(1)), MeasureResult([2e-6], 0, 1.0, 0.0)),
        ],
    )
    peak = first.flop / 4e-6 / 1e9 * 2  # the hand-written schedule at half the peak
    table = first_conv_table([first], {"autotvm": path}, peak)
    row = table.splitlines()[2]
    hand, best = first.flop / 4e-6 / 1e9, first.flop / 2e-6 / 1e9  # 95 and 191 GFLOP/s
    assert f"| 4 | {hand:.0f} | 50% | 2 | {best:.0f} | 100% |" in row, row
    assert f"hand-written 4 µs ({hand:.0f} GFLOP/s, 50% of one core's FMA peak" in table
    assert "2.00x the hand-written schedule" in table


def test_the_roof_of_schedules_in_the_model():
    """Direct kernels (tasks not Winograd) count at their FLOPs; the bound
    puts them at the peak and leaves Winograd and other kernels as they
    measured."""
    mod, params = relay_of(conv_model(channels=3, out=16, size=18, kernel=7, stride=2, dense=10))
    tasks = extract_tasks(mod, params)
    (conv,) = first_conv_tasks(mod, tasks)
    hand_calls = {
        "fused_conv": (conv.key, 2, 4e-3),  # two calls, 2 ms each
        "fused_winograd_conv": (conv.key, 1, 3e-3),
        "fused_pool": ("no task's key", 1, 1e-3),
    }
    peak = 2 * conv.flop / 2e-3 / 1e9  # the direct calls at half the peak
    table = roof_table(tasks, hand_calls, peak)
    lines = table.splitlines()
    rate = 2 * conv.flop / 4e-3 / 1e9
    assert f"| direct | 2 | 4.00 | {rate:.0f} | 50% |" in lines[2], table
    assert lines[3].startswith("| winograd | 1 |") and lines[4].startswith("| other | 1 |")
    # at the peak the direct calls take 2 ms: 6 ms against 8, 1.33x
    assert "6.00 ms against their 8.00 ms, at most 1.33x" in table, table
