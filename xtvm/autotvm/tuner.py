"""AutoTVM tuners (TVM's ``autotvm.tuner``): which configs of a task's
space to measure next.

* :class:`GridSearchTuner`: the space in index order (index 0 is the
  hand-written schedule);
* :class:`RandomTuner`: uniformly at random, without repeats;
* :class:`GATuner`: a genetic algorithm over the knobs' choices (elitism,
  uniform crossover, mutation), fitness = measured speed;
* :class:`XGBTuner`: a learned cost model (:class:`XGBCostModel`, XGBoost
  ranking configs by their features) proposes, through simulated
  annealing over the space, the batch it predicts fastest (with a share of
  random configs, ε-greedy); the model is refit after every batch.

Every tuner is driven the same way::

    tuner = XGBTuner(task)
    tuner.tune(n_trial=64, measure=measure_fn, callbacks=[...])

where ``measure(inputs) -> results`` builds and runs a batch (e.g.
``lambda i: runner.run(i, builder.build(i))``), so a test can give a
synthetic cost. :meth:`Tuner.load_history` feeds earlier records of the
same task (``--resume``): they count as visited and train the model.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence

from xtvm.autotvm.space import ConfigEntity, ConfigSpace

Measure = Callable[[list], list]
"""``measure(list[MeasureInput]) -> list[MeasureResult]``."""


class Tuner:
    """What every tuner shares: visited configs, the best one, the loop."""

    def __init__(self, task, seed: int = 0):
        self.task = task
        self.space: ConfigSpace = task.config_space
        self.rng = random.Random(seed)
        self.visited: set[int] = set()
        self.xs: list[int] = []
        self.ys: list[float] = []
        """Measured config indices and their speed (FLOP/s, or 1/seconds when
        the task counts no FLOPs; 0 for an error)."""
        self.best_config: ConfigEntity | None = None
        self.best_cost = math.inf

    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        raise NotImplementedError

    def _random_unvisited(self) -> int:
        """A config not measured nor proposed yet, uniformly at random."""
        size = len(self.space)
        if len(self.visited) > size // 2:  # dense: pick among the rest
            return self.rng.choice([i for i in range(size) if i not in self.visited])
        while True:
            index = self.rng.randrange(size)
            if index not in self.visited:
                return index

    def _speed(self, cost: float) -> float:
        if not math.isfinite(cost) or cost <= 0:
            return 0.0
        return (self.task.flop or 1.0) / cost

    def update(self, indices: Sequence[int], costs: Sequence[float]) -> None:
        """Record measured configs (``costs``: mean seconds, inf for errors)."""
        for index, cost in zip(indices, costs, strict=True):
            self.visited.add(index)
            self.xs.append(index)
            self.ys.append(self._speed(cost))
            if cost < self.best_cost:
                self.best_cost, self.best_config = cost, self.space.get(index)

    def load_history(self, records: Iterable) -> int:
        """Take earlier records of this task (``Record``s from
        :func:`xtvm.tuning.record.load_records`); returns how many."""
        indices, costs = [], []
        for record in records:
            if record.key != self.task.key:
                continue
            try:
                index = self.space.from_entity(record.config["entity"]).index
            except (ValueError, KeyError):
                continue  # a config of an older template
            indices.append(index)
            costs.append(record.cost)
        self.update(indices, costs)
        return len(indices)

    def tune(
        self,
        n_trial: int,
        measure: Measure,
        batch_size: int = 8,
        callbacks: Sequence[Callable[[Tuner, list, list], None]] = (),
        early_stopping: int | None = None,
    ) -> None:
        """Measure up to ``n_trial`` new configs, ``batch_size`` at a time;
        each callback gets ``(tuner, inputs, results)`` after a batch. Stops
        early when ``early_stopping`` trials found nothing faster."""
        from xtvm.tuning.measure import MeasureInput

        done, last_improvement = 0, 0
        while done < n_trial and self.has_next():
            configs = self.next_batch(min(batch_size, n_trial - done))
            if not configs:
                break
            inputs = [MeasureInput(self.task, c) for c in configs]
            results = measure(inputs)
            before = self.best_cost
            self.update([c.index for c in configs], [r.cost for r in results])
            done += len(configs)
            if self.best_cost < before:
                last_improvement = done
            for callback in callbacks:
                callback(self, inputs, results)
            if early_stopping is not None and done - last_improvement >= early_stopping:
                break


class GridSearchTuner(Tuner):
    """The space in index order."""

    def __init__(self, task, seed: int = 0):
        super().__init__(task, seed)
        self._next = 0

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out = []
        while len(out) < batch_size and self._next < len(self.space):
            if self._next not in self.visited:
                out.append(self.space.get(self._next))
                self.visited.add(self._next)
            self._next += 1
        return out


class RandomTuner(Tuner):
    """Configs uniformly at random, each at most once."""

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out = []
        while len(out) < batch_size and self.has_next():
            index = self._random_unvisited()
            self.visited.add(index)
            out.append(self.space.get(index))
        return out


class GATuner(Tuner):
    """A genetic algorithm over the knobs' choice indices: the ``elite``
    fittest genes survive, the rest of each generation of ``pop_size`` are
    children of fitness-weighted parents (uniform crossover), each knob
    mutated with ``mutation_prob``."""

    def __init__(
        self, task, pop_size: int = 16, elite: int = 3, mutation_prob: float = 0.1, seed: int = 0
    ):
        super().__init__(task, seed)
        self.pop_size, self.elite, self.mutation_prob = pop_size, elite, mutation_prob
        self.dims = self.space.dims
        self.population: list[int] = []
        self.scores: dict[int, float] = {}

    def update(self, indices: Sequence[int], costs: Sequence[float]) -> None:
        super().update(indices, costs)
        for index, cost in zip(indices, costs):
            self.scores[index] = self._speed(cost)

    def _child(self, parents: list[int], weights: list[float]) -> int:
        a, b = (self.space.point(p) for p in self.rng.choices(parents, weights=weights, k=2))
        gene = [x if self.rng.random() < 0.5 else y for x, y in zip(a, b)]
        for k, dim in enumerate(self.dims):
            if dim > 1 and self.rng.random() < self.mutation_prob:
                gene[k] = self.rng.randrange(dim)
        return self.space.index_of(gene)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out: list[int] = []
        measured = sorted(self.scores, key=lambda i: -self.scores[i])
        if len(measured) < self.pop_size:  # the first generation: random
            while len(out) < batch_size and len(self.visited) + len(out) < len(self.space):
                index = self._random_unvisited()
                if index not in out:
                    out.append(index)
        else:
            parents = measured[: self.pop_size]
            weights = [self.scores[p] + 1e-9 for p in parents]
            tries = 0
            while len(out) < batch_size and tries < 50 * batch_size and self.has_next():
                tries += 1
                index = self._child(parents, weights)
                if index not in self.visited and index not in out:
                    out.append(index)
            while len(out) < batch_size and len(self.visited) + len(out) < len(self.space):
                index = self._random_unvisited()
                if index not in out:
                    out.append(index)
        self.visited.update(out)
        return [self.space.get(i) for i in out]


# -- the cost model and simulated annealing -------------------------------------------


def require_xgboost():
    """The xgboost module, or an ImportError saying how to install it."""
    try:
        import xgboost
    except ImportError:
        raise ImportError(
            "the xgb tuner needs XGBoost: pip install 'xtvm[tune]' (or xgboost); "
            "the ga, random and grid tuners need nothing more"
        ) from None
    return xgboost


class XGBCostModel:
    """XGBoost ranking the configs of one space by their features
    (``rank:pairwise`` on the measured speeds, as TVM's ``XGBoostCostModel``
    with ``loss_type="rank"``)."""

    def __init__(self, space: ConfigSpace, seed: int = 0):
        self.xgb = require_xgboost()
        self.space, self.seed = space, seed
        self.booster = None

    def features(self, indices: Sequence[int]):
        import numpy as np

        return np.array([self.space.features(i) for i in indices], dtype="float32")

    def fit(self, indices: Sequence[int], speeds: Sequence[float]) -> None:
        import numpy as np

        y = np.array(speeds, dtype="float32")
        if len(y) < 2 or float(y.max()) <= 0:
            return
        data = self.xgb.DMatrix(self.features(indices), label=y / y.max())
        params = {
            "objective": "rank:pairwise",
            "max_depth": 6,
            "eta": 0.3,
            "gamma": 1e-4,
            "min_child_weight": 1,
            "subsample": 1.0,
            "seed": self.seed,
            "verbosity": 0,
            "nthread": 1,
        }
        self.booster = self.xgb.train(params, data, num_boost_round=60)

    def predict(self, indices: Sequence[int]):
        """A score per config: higher is predicted faster (zeros before any fit)."""
        import numpy as np

        if self.booster is None:
            return np.zeros(len(indices), dtype="float32")
        return self.booster.predict(self.xgb.DMatrix(self.features(indices)))


def simulated_annealing(
    space: ConfigSpace,
    score: Callable[[Sequence[int]], Sequence[float]],
    count: int,
    exclude: set[int],
    rng: random.Random,
    n_iter: int = 200,
    parallel: int = 64,
    temperature: float = 1.0,
) -> list[int]:
    """The ``count`` best-scored configs not in ``exclude`` found by
    ``parallel`` annealing walks (each step changes one knob; a worse point
    is accepted with probability ``exp(Δ/T)``, ``T`` falling linearly to 0).
    A space of at most 4096 points is scored whole instead."""
    size = len(space)
    if size <= 4096:
        rest = [i for i in range(size) if i not in exclude]
        scores = score(rest)
        return [i for _, i in sorted(zip(scores, rest), key=lambda t: -t[0])[:count]]
    dims = space.dims
    points = [rng.randrange(size) for _ in range(parallel)]
    scores = list(score(points))
    best: dict[int, float] = {p: s for p, s in zip(points, scores) if p not in exclude}
    for step in range(n_iter):
        t = temperature * (1 - step / n_iter)
        moved = []
        for p in points:
            gene = space.point(p)
            k = rng.choice([k for k, d in enumerate(dims) if d > 1])
            gene[k] = rng.randrange(dims[k])
            moved.append(space.index_of(gene))
        new_scores = score(moved)
        for j, (q, s) in enumerate(zip(moved, new_scores)):
            if s >= scores[j] or (t > 0 and rng.random() < math.exp((s - scores[j]) / t)):
                points[j], scores[j] = q, s
            if q not in exclude:
                best[q] = max(best.get(q, -math.inf), s)
    return sorted(best, key=lambda i: -best[i])[:count]


class XGBTuner(Tuner):
    """Cost-model-guided search (see the module): the first batch (until
    ``plan_size`` configs are measured) is random; then each batch is the
    model's top picks through :func:`simulated_annealing`, with
    ``epsilon`` of it random."""

    def __init__(self, task, plan_size: int = 16, epsilon: float = 0.1, seed: int = 0):
        super().__init__(task, seed)
        self.model = XGBCostModel(self.space, seed)
        self.plan_size, self.epsilon = plan_size, epsilon
        self._fitted_on = 0

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out: list[int] = []
        if len(self.xs) >= min(self.plan_size, len(self.space) // 2) and len(self.xs) > 1:
            if self._fitted_on != len(self.xs):
                self.model.fit(self.xs, self.ys)
                self._fitted_on = len(self.xs)
            greedy = batch_size - int(self.epsilon * batch_size)
            out = simulated_annealing(
                self.space, self.model.predict, greedy, self.visited, self.rng
            )
        self.visited.update(out)
        while len(out) < batch_size and self.has_next():
            index = self._random_unvisited()
            self.visited.add(index)
            out.append(index)
        return [self.space.get(i) for i in out]


TUNERS: dict[str, type[Tuner]] = {
    "grid": GridSearchTuner,
    "random": RandomTuner,
    "ga": GATuner,
    "xgb": XGBTuner,
}
"""Tuner name → class (``xtvm-tune --tuner autotvm --autotvm-tuner NAME``)."""
