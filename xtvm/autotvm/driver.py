"""Tuning a model's tasks with AutoTVM, end to end (what ``xtvm-tune``
and ``python -m xtvm.bench --tuned`` run).

For each task, most FLOPs first: the hand-written schedule (config 0) is
measured first, as the baseline; then the tuner proposes batches until the
task's trials are spent, its space is exhausted or ``early_stopping``
trials brought nothing faster. Every measurement is appended to the
records file as it completes, so an interrupted run loses at most one
batch, and ``resume=True`` counts a task's earlier records as measured.
With a ``deadline`` (a :func:`time.monotonic` time) no batch starts after
it: the tasks not reached keep their hand-written schedules.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xtvm.autotvm.tuner import TUNERS, Tuner
from xtvm.tuning.measure import LocalBuilder, LocalRunner, MeasureInput, MeasureResult
from xtvm.tuning.record import encode, load_records, save_records
from xtvm.tuning.task import Task


@dataclass
class TaskSummary:
    """A task's outcome: its hand-written and best times (seconds per call)
    and how many configs were measured (this run and resumed ones)."""

    task: Task
    baseline: float
    best: float
    trials: int

    def gflops(self, seconds: float) -> float:
        return self.task.flop / seconds / 1e9 if math.isfinite(seconds) and seconds > 0 else 0.0

    @property
    def speedup(self) -> float:
        return self.baseline / self.best if math.isfinite(self.best) and self.best > 0 else 0.0


class BudgetSpent(Exception):
    """The search's deadline passed before a batch (ends the search)."""


def _baseline(tuner: Tuner) -> float:
    """The measured time of config 0 (the hand-written schedule), if known."""
    for index, speed in zip(tuner.xs, tuner.ys):
        if index == 0 and speed > 0:
            return (tuner.task.flop or 1.0) / speed
    return math.inf


def tune_tasks(
    tasks: Sequence[Task],
    records: str | os.PathLike[str],
    trials: int = 64,
    tuner: str = "xgb",
    jobs: int = 1,
    resume: bool = False,
    runner: LocalRunner | None = None,
    builder: LocalBuilder | None = None,
    batch_size: int | None = None,
    early_stopping: int | None = None,
    on_batch: Callable[[Task, Tuner, list[MeasureInput], list[MeasureResult]], None] | None = None,
    deadline: float | None = None,
) -> list[TaskSummary]:
    """Tune every task with ``trials`` measurements at most (see the
    module); ``on_batch`` is called after each batch (progress)."""
    if tuner not in TUNERS:
        raise ValueError(f"unknown tuner '{tuner}' (tuners: {', '.join(TUNERS)})")
    history = list(load_records(records)) if resume and os.path.exists(records) else []
    builder = builder or LocalBuilder(jobs=jobs)
    runner = runner or LocalRunner()
    batch_size = batch_size or max(jobs, 1) * 4
    summaries = []
    try:

        def measure(inputs: list[MeasureInput]) -> list[MeasureResult]:
            if deadline is not None and time.monotonic() > deadline:
                raise BudgetSpent
            results = runner.run(inputs, builder.build(inputs))
            save_records(records, [encode(i, r) for i, r in zip(inputs, results)])
            return results

        for task in tasks:
            search = TUNERS[tuner](task)
            done = search.load_history(history)
            try:
                if 0 not in search.visited:  # the hand-written schedule first
                    base = [MeasureInput(task, task.config_space.get(0))]
                    result = measure(base)
                    search.update([0], [result[0].cost])
                    done += 1
                    if on_batch:
                        on_batch(task, search, base, result)
                callbacks = [lambda t, i, r, task=task: on_batch(task, t, i, r)] if on_batch else []
                search.tune(max(trials - done, 0), measure, batch_size, callbacks, early_stopping)
            except BudgetSpent:
                if search.xs:
                    summaries.append(
                        TaskSummary(task, _baseline(search), search.best_cost, len(search.xs))
                    )
                break
            summaries.append(TaskSummary(task, _baseline(search), search.best_cost, len(search.xs)))
    finally:
        builder.close()
        runner.close()
    return summaries


def format_table(summaries: Sequence[TaskSummary]) -> str:
    """The final table: one row per task, then the weighted totals."""
    rows = [
        ("task", "weight", "trials", "hand-written µs", "GFLOP/s", "tuned µs", "GFLOP/s", "speedup")
    ]
    base_total = best_total = 0.0
    for s in summaries:
        rows.append(
            (
                s.task.label[:80],
                str(s.task.weight),
                str(s.trials),
                f"{s.baseline * 1e6:.1f}",
                f"{s.gflops(s.baseline):.1f}",
                f"{s.best * 1e6:.1f}",
                f"{s.gflops(s.best):.1f}",
                f"{s.speedup:.2f}x",
            )
        )
    # A conv with several implementations counts once: its hand-written
    # implementation's baseline, the fastest implementation's best.
    groups: dict[str, list[TaskSummary]] = {}
    for s in summaries:
        groups.setdefault(s.task.conv2d or s.task.key, []).append(s)
    for group in groups.values():
        base = [s.task.weight * s.baseline for s in group if s.task.hand_written]
        best = min(s.task.weight * s.best for s in group)
        if base and math.isfinite(base[0]) and math.isfinite(best):
            base_total += base[0]
            best_total += best
    if best_total > 0:
        rows.append(
            (
                "tuned kernels, weighted",
                "",
                "",
                f"{base_total * 1e6:.1f}",
                "",
                f"{best_total * 1e6:.1f}",
                "",
                f"{base_total / best_total:.2f}x",
            )
        )
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    lines = [
        "  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths)))
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def elapsed_since(start: float) -> str:
    seconds = time.perf_counter() - start
    return f"{int(seconds // 60)} min {seconds % 60:.0f} s"
