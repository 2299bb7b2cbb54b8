"""python -m xtvm.bench.tune --compare: the per-task table and its count
of tasks the auto_scheduler matched (within 2%) or beat AutoTVM on, and
the re-measurement of each search's best program (fake measurements: no
timing)."""

from __future__ import annotations

import math
from types import SimpleNamespace

from xtvm.bench.tune import Comparison, compare_table, remeasure
from xtvm.tuning.measure import BuildResult, MeasureResult


def task(name: str, weight: int = 1):
    return SimpleNamespace(name=f"fused_nn_contrib_{name}", weight=weight, flop=2e8)


def test_the_table_counts_matches_within_two_percent():
    rows = [
        Comparison(task("a", 3), 1.2e-3, 1.0e-3, 0.9e-3, 16, 16),  # beat
        Comparison(task("b"), 1.2e-3, 1.0e-3, 1.019e-3, 16, 16),  # within 2%
        Comparison(task("c"), 1.2e-3, 1.0e-3, 1.03e-3, 16, 16),  # lost
        Comparison(task("d"), 1.2e-3, 1.0e-3, math.inf, 4, 16),  # found nothing
    ]
    table = compare_table(rows)
    assert [line.rsplit("|", 2)[-2].strip() for line in table.splitlines()[2:6]] == [
        "yes",
        "yes",
        "no",
        "no",
    ]
    assert "on 2 of 4 tasks" in table
    assert "| a | 3 | 0.200 | 1200 | 1000 (16) | 900 (16) | 0.900 | yes |" in table
    assert "fused_nn_contrib_" not in table  # the common prefix dropped


class FakeMeasure:
    """Builds nothing; each config's time is its ``cost`` attribute, the
    config named ``bad`` fails."""

    def __init__(self):
        self.rounds = 0

    def build(self, inputs):
        return [BuildResult("none", "k") for _ in inputs]

    def run(self, inputs, builds):
        self.rounds += 1
        return [
            MeasureResult(["crash"], 4, 0.0, 0.0)
            if i.config.cost is None
            else MeasureResult([i.config.cost * (1 + 0.1 * self.rounds)], 0, 0.0, 0.0)
            for i in inputs
        ]


def test_remeasure_keeps_each_configs_fastest_round_and_marks_failures():
    fake = FakeMeasure()
    configs = [SimpleNamespace(cost=2e-3), None, SimpleNamespace(cost=None)]
    times = remeasure(task("x"), configs, fake, fake, rounds=3)
    assert fake.rounds == 3
    assert math.isclose(times[0], 2e-3 * 1.1)  # the first (fastest) round
    assert times[1] == math.inf and times[2] == math.inf
