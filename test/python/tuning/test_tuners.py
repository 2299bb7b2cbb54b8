"""The tuners' search logic and the cost model's ranking, on a synthetic
cost with a known best (no kernels are built or timed)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import pytest

from xtvm.autotvm.space import ConfigSpace
from xtvm.autotvm.tuner import TUNERS, GATuner, RandomTuner, XGBCostModel, simulated_annealing
from xtvm.tuning.measure import MeasureResult

TARGET = {"tile_x": 16, "tile_y": 4, "unroll": 1, "order": 2}
"""The knob values of the synthetic optimum."""


def synthetic_space() -> ConfigSpace:
    space = ConfigSpace()
    space.define_split("tile_x", 64, candidates=[1, 2, 4, 8, 16, 32, 64], default=[-1, 1])
    space.define_split("tile_y", 48, candidates=[1, 2, 3, 4, 6, 8, 12, 16], default=[-1, 1])
    space.define_knob("unroll", [0, 1], default=0)
    space.define_reorder(
        "order", 3, perms=[(0, 1, 2), (1, 0, 2), (2, 1, 0), (0, 2, 1)], default=(0, 1, 2)
    )
    return space


def synthetic_cost(space: ConfigSpace, index: int) -> float:
    """Seconds: smallest at TARGET, growing with the log-distance of each tile."""
    cfg = space.get(index)
    x, y = cfg["tile_x"].size[-1], cfg["tile_y"].size[-1]
    cost = 1.0 + abs(math.log2(x / TARGET["tile_x"])) + 0.7 * abs(math.log2(y / TARGET["tile_y"]))
    cost += 0.5 * (cfg["unroll"].val != TARGET["unroll"])
    cost += 0.3 * (cfg["order"].perm != (2, 1, 0))
    return cost * 1e-3


@dataclass
class SyntheticTask:
    config_space: ConfigSpace = field(default_factory=synthetic_space)
    key: str = "synthetic"
    name: str = "synthetic"
    target: str = "llvm"
    flop: float = 1e6


def measure_for(task):
    def measure(inputs):
        return [
            MeasureResult([synthetic_cost(task.config_space, i.config.index)], 0, 0.0, time.time())
            for i in inputs
        ]

    return measure


def best_index(space: ConfigSpace) -> int:
    return min(range(len(space)), key=lambda i: synthetic_cost(space, i))


def test_the_space_enumerates_every_combination_and_starts_at_the_default():
    space = synthetic_space()
    assert len(space) == 7 * 8 * 2 * 4 == space.index_of([6, 7, 1, 3]) + 1
    assert str(space.get(0)) == "tile_x=[-1, 1],tile_y=[-1, 1],unroll=0,order=[0, 1, 2]"
    assert len({str(space.get(i)) for i in range(len(space))}) == len(space)
    assert space.from_entity(space.get(123).to_json()["entity"]).index == 123


@pytest.mark.parametrize("name", ["grid", "random"])
def test_exhaustive_tuners_find_the_best(name):
    task = SyntheticTask()
    tuner = TUNERS[name](task)
    tuner.tune(len(task.config_space), measure_for(task), batch_size=16)
    assert tuner.best_config.index == best_index(task.config_space)
    assert len(tuner.visited) == len(task.config_space)


@pytest.mark.parametrize("name", ["ga", "xgb"])
def test_guided_tuners_find_the_best_with_a_fraction_of_the_space(name):
    if name == "xgb":
        pytest.importorskip("xgboost")
    task = SyntheticTask()
    budget = len(task.config_space) // 4
    tuner = TUNERS[name](task)
    tuner.tune(budget, measure_for(task), batch_size=8)
    assert len(tuner.visited) <= budget
    assert tuner.best_config.index == best_index(task.config_space)


def test_random_search_on_the_same_budget_is_worse_than_xgb_on_average():
    """The model is what helps: on 1/8 of the space, xgb's best is at
    least as good as random search's, over a few seeds."""
    task = SyntheticTask()
    budget = len(task.config_space) // 8
    totals = {"random": 0.0, "xgb": 0.0}
    for seed in range(3):
        for name in totals:
            tuner = TUNERS[name](task, seed=seed)
            tuner.tune(budget, measure_for(task), batch_size=8)
            totals[name] += tuner.best_cost
    assert totals["xgb"] <= totals["random"]


def test_the_cost_model_ranks_unseen_configs():
    pytest.importorskip("xgboost")
    space = synthetic_space()
    import random

    indices = list(range(len(space)))
    random.Random(0).shuffle(indices)
    train, test = indices[:120], indices[120:]
    model = XGBCostModel(space)
    model.fit(train, [1 / synthetic_cost(space, i) for i in train])
    scores = model.predict(test)
    predicted = sorted(test, key=lambda i: -scores[list(test).index(i)])
    truth = sorted(test, key=lambda i: synthetic_cost(space, i))
    # the model's top pick is among the truly fastest tenth of the unseen configs
    assert predicted[0] in truth[: len(truth) // 10]
    # and its ranking agrees with the truth (Spearman's rho)
    rank_p = {i: r for r, i in enumerate(predicted)}
    rank_t = {i: r for r, i in enumerate(truth)}
    n = len(test)
    rho = 1 - 6 * sum((rank_p[i] - rank_t[i]) ** 2 for i in test) / (n * (n * n - 1))
    assert rho > 0.8


def test_simulated_annealing_finds_the_top_of_a_large_space():
    space = ConfigSpace()
    for k in range(6):
        space.define_knob(
            f"k{k}", list(range(6)), default=0
        )  # 46656 points: annealed, not enumerated
    best = space.index_of([5, 4, 3, 2, 1, 0])

    def score(indices):
        return [
            -sum((p - t) ** 2 for p, t in zip(space.point(i), [5, 4, 3, 2, 1, 0])) for i in indices
        ]

    import random

    top = simulated_annealing(space, score, 4, set(), random.Random(0), n_iter=300)
    assert best in top


def test_load_history_counts_earlier_records_as_visited():
    from xtvm.tuning.record import Record

    task = SyntheticTask()
    space = task.config_space
    records = [
        Record(
            "llvm",
            "synthetic",
            "synthetic",
            space.get(i).to_json(),
            [synthetic_cost(space, i)],
            0,
            0.0,
            0.0,
        )
        for i in range(10)
    ] + [Record("llvm", "other", "other-key", space.get(11).to_json(), [1.0], 0, 0.0, 0.0)]
    tuner = RandomTuner(task)
    assert tuner.load_history(records) == 10
    assert tuner.visited == set(range(10))
    batch = tuner.next_batch(20)
    assert not {c.index for c in batch} & set(range(10))


def test_ga_proposes_only_unvisited_configs():
    task = SyntheticTask()
    tuner = GATuner(task)
    tuner.tune(100, measure_for(task), batch_size=10)
    assert len(tuner.xs) == len(set(tuner.xs)) == 100


def test_the_xgb_tuner_without_xgboost_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "xgboost", None)  # import fails
    with pytest.raises(ImportError, match=r"pip install 'xtvm\[tune\]'"):
        TUNERS["xgb"](SyntheticTask())
