"""The auto_scheduler's search (Ansor's ``SketchPolicy`` and task
scheduler, simplified).

:class:`SketchPolicy` searches one task: its first batch is the
rule-based seeds (:func:`~.sketch.seeds`), then random annotations of the
sketch (:mod:`.sketch`); then each batch starts with a quarter of
unmeasured neighbours of the three fastest programs and the rest comes
from an evolutionary search — a population of the fastest measured programs and
fresh random ones, ``generations`` rounds of mutation and crossover, the
survivors ranked by a learned cost model (XGBoost on the programs'
features, refit after every batch) — of which the model's top picks not
yet measured, plus an ε share of random ones, are measured.

:func:`tune_tasks` spreads a total trial budget over a model's tasks (the
task scheduler): every task is measured once (its hand-written schedule,
the baseline), gets a random batch and a model-guided one, and each later
batch goes to the task whose share of the estimated latency (weight × best
time) times its recent relative improvement (plus 0.1), divided by the
square root of its batches so far, is largest — Ansor's gradient rule,
simplified, with a bonus for tasks searched less. With a ``deadline`` (a
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
    sample,
    seeds,
)
from xtvm.autotvm.dispatch import TraceConfig
from xtvm.schedule import Schedule, ScheduleError


class SketchPolicy:
    """The search of one task (see the module)."""

    def __init__(
        self,
        task,
        seed: int = 0,
        population: int = 48,
        generations: int = 3,
        epsilon: float = 0.1,
        model: bool = True,
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
        self.booster = None
        self.use_model = model
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

    def _score(self, candidates: Sequence[SketchParams]) -> list[float]:
        if self.booster is None:
            return [self.rng.random() for _ in candidates]
        import numpy as np
        import xgboost

        x = np.array([features(self.shape, p) for p in candidates], dtype="float32")
        return list(self.booster.predict(xgboost.DMatrix(x)))

    def _fit(self) -> None:
        if not self.use_model or len(self.measured) < 4:
            return
        import numpy as np

        from xtvm.autotvm.tuner import require_xgboost

        xgboost = require_xgboost()
        params = list(self.measured)
        y = np.array(
            [1.0 / c if math.isfinite(c) and c > 0 else 0.0 for c in self.measured.values()],
            "float32",
        )
        if float(y.max()) <= 0:
            return
        x = np.array([features(self.shape, p) for p in params], dtype="float32")
        self.booster = xgboost.train(
            {
                "objective": "rank:pairwise",
                "max_depth": 6,
                "eta": 0.3,
                "verbosity": 0,
                "nthread": 1,
                "seed": 0,
            },
            xgboost.DMatrix(x, label=y / y.max()),
            num_boost_round=60,
        )

    def _evolve(self, count: int) -> list[SketchParams]:
        ranked = sorted(self.measured, key=lambda p: self.measured[p])
        pool = ranked[: self.population // 2] + [
            sample(self.shape, self.rng) for _ in range(self.population // 2)
        ]
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
        return [p for p in pool if p not in self.proposed][:count]

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
            picks = [p for p in seeds(self.shape) if p not in self.proposed][:batch_size]
        else:  # neighbours of the fastest programs, then the model's picks
            picks = self._neighbours(batch_size // 4)
            if self.booster is not None:
                evolved = self._evolve(batch_size - int(self.epsilon * batch_size))
                picks += [p for p in evolved if p not in picks][: batch_size - len(picks)]
        tries = 0
        while len(picks) < batch_size and tries < 50 * batch_size:
            tries += 1
            p = sample(self.shape, self.rng)
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
        for config, cost in zip(configs, costs, strict=True):
            params = SketchParams.from_json(config.sketch)
            self.measured[params] = cost
            if cost < self.best_cost:
                self.best_cost, self.best_config = cost, config
        self._fit()

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
):
    """Search ``tasks`` with ``trials`` measurements in total (see the
    module); returns one :class:`~xtvm.autotvm.driver.TaskSummary` per task."""
    from xtvm.autotvm.driver import TaskSummary
    from xtvm.tuning.measure import LocalBuilder, LocalRunner, MeasureInput
    from xtvm.tuning.record import encode, load_records, save_records

    history = list(load_records(records)) if resume and os.path.exists(records) else []
    builder = builder or LocalBuilder(jobs=jobs)
    runner = runner or LocalRunner()
    states = [TaskState(SketchPolicy(t, seed=i, model=use_model)) for i, t in enumerate(tasks)]
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
