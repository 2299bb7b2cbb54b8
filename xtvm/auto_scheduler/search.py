"""The auto_scheduler's search (Ansor's ``SketchPolicy`` and task
scheduler, simplified).

:class:`SketchPolicy` searches one task: its first batch is the
rule-based seeds (:func:`~.sketch.seeds`) — when the cost model already
ranks programs (trained on other tasks), half of them and half the
model's picks among the seeds and their evolved descendants — then each
batch starts with a half of unmeasured neighbours of the three fastest
programs (a local search: a tile to the next divisor, the register tile
reshaped, ...) and the rest comes from an evolutionary search — a
population of the fastest measured programs and fresh random ones,
``generations`` rounds of mutation and crossover, the survivors ranked by
the learned cost model (:class:`CostModel`, XGBoost on the programs'
features) — of which the model's top picks not yet measured, plus an ε
share of random ones, are measured.

:func:`tune_tasks` spreads a total trial budget over a model's tasks (the
task scheduler), which share one cost model (as in Ansor): every task is
measured once (its hand-written schedule, the baseline), gets a random
batch and a model-guided one, and each later batch goes to the task whose
share of the estimated latency (weight × best time) times its recent
relative improvement (plus 0.1), divided by the square root of its
batches so far, is largest — Ansor's gradient rule, simplified, with a
bonus for tasks searched less. With a ``deadline`` (a
:func:`time.monotonic` time) no batch starts after it.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xtvm.auto_scheduler.sketch import (
    KernelShape,
    SketchParams,
    apply_sketch,
    crossover,
    features,
    kernel_shape,
    mutate,
    plausible,
    sample,
    seeds,
)
from xtvm.autotvm.dispatch import TraceConfig
from xtvm.schedule import Schedule, ScheduleError


class CostModel:
    """The learned cost model: XGBoost ranking programs by their features
    (:func:`~.sketch.features`), trained on the measurements of every
    task that shares it, as Ansor trains one model on all of a model's
    tasks. Programs are compared only within their own task (xgboost
    query groups: a pairwise ranking of one task's programs), so kernels
    of different speeds do not mix; a new task's programs are ranked from
    the first batch on by what the other tasks' measurements taught. One
    booster per feature length (convolutions and dense layers have
    different numbers of loops); refit lazily, after new measurements."""

    def __init__(self) -> None:
        self.data: dict[str, tuple[list[list[float]], list[float]]] = {}
        self.boosters: dict[int, object] = {}
        self.stale: set[int] = set()

    def add(self, key: str, feats: Sequence[list[float]], costs: Sequence[float]) -> None:
        """Measurements of task ``key`` (seconds; inf for an error)."""
        xs, ys = self.data.setdefault(key, ([], []))
        for f, c in zip(feats, costs, strict=True):
            xs.append(list(f))
            ys.append(1.0 / c if math.isfinite(c) and c > 0 else 0.0)
            self.stale.add(len(f))

    def measured(self, length: int) -> int:
        """How many measurements of programs with ``length`` features it holds."""
        return sum(len(xs) for xs, _ in self.data.values() if xs and len(xs[0]) == length)

    def predict(self, feats: Sequence[list[float]]) -> list[float] | None:
        """Scores (higher: faster) of programs of one task, or None while
        the model has too few measurements to rank."""
        if not feats:
            return []
        length = len(feats[0])
        if length in self.stale:
            self._fit(length)
        booster = self.boosters.get(length)
        if booster is None:
            return None
        import numpy as np
        import xgboost

        return list(booster.predict(xgboost.DMatrix(np.array(feats, dtype="float32"))))

    def _fit(self, length: int) -> None:
        import numpy as np

        from xtvm.autotvm.tuner import require_xgboost

        self.stale.discard(length)
        groups = [
            (xs, ys)
            for xs, ys in self.data.values()
            if xs and len(xs[0]) == length and max(ys) > 0 and len(xs) >= 2
        ]
        if sum(len(xs) for xs, _ in groups) < 4:
            return
        xgboost = require_xgboost()
        x = np.array([f for xs, _ in groups for f in xs], dtype="float32")
        y = np.array([v / max(ys) for _, ys in groups for v in ys], dtype="float32")
        matrix = xgboost.DMatrix(x, label=y)
        matrix.set_group([len(xs) for xs, _ in groups])
        self.boosters[length] = xgboost.train(
            {
                "objective": "rank:pairwise",
                "max_depth": 6,
                "eta": 0.3,
                "verbosity": 0,
                "nthread": 1,
                "seed": 0,
            },
            matrix,
            num_boost_round=60,
        )


class SketchPolicy:
    """The search of one task (see the module). ``cost_model``: a
    :class:`CostModel` shared with other tasks' searches (a new one when
    None); ``model=False``: no model (random picks)."""

    def __init__(
        self,
        task,
        seed: int = 0,
        population: int = 48,
        generations: int = 3,
        epsilon: float = 0.1,
        model: bool = True,
        cost_model: CostModel | None = None,
    ):
        from xtvm.lowering.relay_to_tir.convert_relay_to_tir import COMPUTES
        from xtvm.lowering.relay_to_tir.kernel import KernelBuilder
        from xtvm.target import Target

        self.task, self.rng = task, random.Random(seed)
        self.population, self.generations, self.epsilon = population, generations, epsilon
        self.target = Target.of(task.target)
        with self.target:
            self.func = KernelBuilder(COMPUTES, schedules=False).primitive_function(
                task.primitive_function()
            )
            self.shape: KernelShape = kernel_shape(self.func)
        self.measured: dict[SketchParams, float] = {}
        self.proposed: set[SketchParams] = set()
        self.model = (cost_model or CostModel()) if model else None
        self.best_cost = math.inf
        self.best_config: TraceConfig | None = None

    def trace(self, params: SketchParams) -> list[str] | None:
        """The trace of the sketch with ``params`` (None if it does not apply)."""
        from xtvm.topi.x86.config import use_threads

        func = self.func.clone()
        with self.target:
            sch = Schedule(func)
            try:
                apply_sketch(sch, self.shape, params, threads=use_threads())
            except ScheduleError:
                return None
        return sch.trace

    def _scores(self, candidates: Sequence[SketchParams]) -> list[float] | None:
        """The model's scores of ``candidates`` (None: no trained model)."""
        if self.model is None:
            return None
        return self.model.predict([features(self.shape, p) for p in candidates])

    def _score(self, candidates: Sequence[SketchParams]) -> list[float]:
        scores = self._scores(candidates)
        return scores if scores is not None else [self.rng.random() for _ in candidates]

    def _evolve(self, count: int, start: Sequence[SketchParams] = ()) -> list[SketchParams]:
        """The model's ``count`` best unproposed programs after evolving a
        population of the fastest measured programs (or ``start``) and
        fresh samples."""
        ranked = sorted(self.measured, key=lambda p: self.measured[p])
        pool = list(start) + ranked[: self.population // 2]
        pool += [sample(self.shape, self.rng) for _ in range(self.population - len(pool))]
        for _ in range(self.generations):
            children = []
            for _ in range(self.population):
                a = self.rng.choice(pool)
                child = (
                    crossover(self.shape, a, self.rng.choice(pool), self.rng)
                    if self.rng.random() < 0.3
                    else a
                )
                children.append(mutate(self.shape, child, self.rng))
            everyone = list(dict.fromkeys(pool + children))
            scores = self._score(everyone)
            pool = [p for _, p in sorted(zip(scores, everyone), key=lambda t: -t[0])][
                : self.population
            ]
        fresh = [p for p in pool if p not in self.proposed and p not in self.measured]
        return [p for p in fresh if plausible(self.shape, p)][:count]

    def _neighbours(self, count: int) -> list[SketchParams]:
        """Unmeasured mutations of the fastest measured programs (a local
        search the model's ranking does not filter: on a few measurements
        its ranking of unseen programs is weak)."""
        ranked = sorted(self.measured, key=lambda p: self.measured[p])[:3]
        out: list[SketchParams] = []
        for _ in range(20 * count):
            if len(out) >= count or not ranked:
                break
            p = mutate(self.shape, self.rng.choice(ranked), self.rng)
            if p not in self.proposed and p not in out:
                out.append(p)
        return out

    def next_batch(self, batch_size: int) -> list[TraceConfig]:
        """Up to ``batch_size`` programs never proposed before."""
        picks: list[SketchParams] = []
        if not self.measured:  # the first batch: the rule-based seeds first
            rules = [p for p in seeds(self.shape) if p not in self.proposed]
            if self._scores(rules[:1]) is not None:
                # a model trained on other tasks: half the seeds in rule
                # order (every orientation), half its picks of the seeds
                # and their evolved descendants
                picks = rules[: batch_size // 2]
                evolved = self._evolve(batch_size, start=rules[: self.population // 2])
                picks += [p for p in evolved if p not in picks][: batch_size - len(picks)]
            else:
                picks = rules[:batch_size]
        else:  # neighbours of the fastest programs, then the model's picks
            picks = self._neighbours(max(batch_size // 2, 1))
            if self._scores(picks[:1] or [sample(self.shape, self.rng)]) is not None:
                evolved = self._evolve(batch_size - int(self.epsilon * batch_size))
                picks += [p for p in evolved if p not in picks][: batch_size - len(picks)]
        tries = 0
        while len(picks) < batch_size and tries < 50 * batch_size:
            tries += 1
            p = sample(self.shape, self.rng)
            if tries < 25 * batch_size and not plausible(self.shape, p):
                continue  # implausible programs only when no other is left
            if p not in self.proposed and p not in picks:
                picks.append(p)
        out = []
        for p in picks:
            self.proposed.add(p)
            trace = self.trace(p)
            if trace is not None:
                out.append(TraceConfig(trace, p.to_json()))
        return out

    def update(self, configs: Sequence[TraceConfig], costs: Sequence[float]) -> None:
        params = [SketchParams.from_json(config.sketch) for config in configs]
        for p, config, cost in zip(params, configs, costs, strict=True):
            self.measured[p] = cost
            if cost < self.best_cost:
                self.best_cost, self.best_config = cost, config
        if self.model is not None:
            self.model.add(self.task.key, [features(self.shape, p) for p in params], costs)

    def load_history(self, records) -> int:
        """Earlier auto_scheduler records of this task (``--resume``)."""
        configs, costs = [], []
        for record in records:
            if record.key == self.task.key and "sketch" in record.config:
                try:
                    params = SketchParams.from_json(record.config["sketch"])
                except (KeyError, TypeError, ValueError):
                    continue
                self.proposed.add(params)
                configs.append(TraceConfig(record.config["trace"], record.config["sketch"]))
                costs.append(record.cost)
        if configs:
            self.update(configs, costs)
        return len(configs)


@dataclass
class TaskState:
    """The task scheduler's view of one task."""

    policy: SketchPolicy
    baseline: float = math.inf
    trials: int = 0
    last_gain: float = 1.0
    exhausted: bool = False
    """No new program left to propose (a small space)."""

    @property
    def best(self) -> float:
        return min(self.policy.best_cost, self.baseline)


def tune_tasks(
    tasks: Sequence,
    records: str | os.PathLike[str],
    trials: int,
    jobs: int = 1,
    resume: bool = False,
    runner=None,
    builder=None,
    batch_size: int = 8,
    on_batch: Callable | None = None,
    use_model: bool = True,
    deadline: float | None = None,
    cost_model: CostModel | None = None,
):
    """Search ``tasks`` with ``trials`` measurements in total (see the
    module); returns one :class:`~xtvm.autotvm.driver.TaskSummary` per task.
    The tasks share one :class:`CostModel` (``cost_model``, e.g. one kept
    across calls, or a new one)."""
    from xtvm.autotvm.driver import TaskSummary
    from xtvm.tuning.measure import LocalBuilder, LocalRunner, MeasureInput
    from xtvm.tuning.record import encode, load_records, save_records

    history = list(load_records(records)) if resume and os.path.exists(records) else []
    builder = builder or LocalBuilder(jobs=jobs)
    runner = runner or LocalRunner()
    cost_model = cost_model or CostModel()
    states = [
        TaskState(SketchPolicy(t, seed=i, model=use_model, cost_model=cost_model))
        for i, t in enumerate(tasks)
    ]
    spent = 0

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() > deadline

    def measure(state: TaskState, configs) -> list:
        inputs = [MeasureInput(state.policy.task, c) for c in configs]
        results = runner.run(inputs, builder.build(inputs))
        save_records(records, [encode(i, r) for i, r in zip(inputs, results)])
        if on_batch:
            on_batch(state.policy.task, state.policy, inputs, results)
        return results

    try:
        for state in states:  # the baseline and a first batch each
            task = state.policy.task
            state.trials += state.policy.load_history(history)
            done = [r for r in history if r.key == task.key and r.config.get("index") == 0]
            if done:
                state.baseline = min(r.cost for r in done)
            elif spent < trials and not out_of_time():
                (result,) = measure(state, [task.config_space.get(0)])
                state.baseline, spent = result.cost, spent + 1
        while spent < trials and not out_of_time():

            def priority(s: TaskState) -> float:
                if s.exhausted:
                    return -math.inf
                if s.trials < 2 * batch_size:  # a random batch, then a model-guided one
                    return math.inf
                share = s.policy.task.weight * s.best  # of the estimated latency
                return share * (s.last_gain + 0.1) / math.sqrt(s.trials / batch_size)

            state = max(states, key=priority)
            configs = state.policy.next_batch(min(batch_size, trials - spent))
            if not configs:
                state.exhausted = True
                if all(s.exhausted for s in states):
                    break
                continue
            before = state.best
            results = measure(state, configs)
            state.policy.update(configs, [r.cost for r in results])
            state.trials += len(configs)
            spent += len(configs)
            after = state.best
            state.last_gain = max((before - after) / before if math.isfinite(before) else 1.0, 0.05)
    finally:
        builder.close()
        runner.close()
    return [TaskSummary(s.policy.task, s.baseline, s.policy.best_cost, s.trials) for s in states]
