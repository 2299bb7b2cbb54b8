"""Timing of runtime functions: the engine behind `Module.time_evaluator`."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence

from xtvm.runtime.ndarray import Device


class BenchmarkResult:
    """Seconds per call of each repeat, with summary statistics (TVM's `BenchmarkResult`)."""

    def __init__(self, results: Sequence[float]):
        self.results = tuple(results)
        self.mean = statistics.fmean(self.results)
        self.median = statistics.median(self.results)
        self.min = min(self.results)
        self.max = max(self.results)
        self.std = statistics.pstdev(self.results)

    def __repr__(self) -> str:
        return (
            f"BenchmarkResult(mean={self.mean * 1e3:.4f} ms, median={self.median * 1e3:.4f} ms, "
            f"min={self.min * 1e3:.4f} ms, max={self.max * 1e3:.4f} ms, "
            f"std={self.std * 1e3:.4f} ms, repeats={len(self.results)})"
        )


def time_calls(
    call: Callable[[], object],
    dev: Device,
    number: int,
    repeat: int,
    min_repeat_ms: float,
    cooldown_interval_ms: float = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> BenchmarkResult:
    """Time `call`: one warm-up call, then `repeat` measurements of `number` calls each.

    `clock` reads seconds: the wall clock by default; `time.thread_time`
    counts only the calling thread's CPU time (a single-threaded kernel's
    time without what a loaded machine gave other processes).

    As in TVM, when one measurement takes less than `min_repeat_ms`, `number`
    grows (to the estimate that would reach it, at least by 1.618x) and the
    measurement is redone; later repeats keep the larger `number`.
    """
    call()
    results = []
    for index in range(repeat):
        while True:
            dev.sync()
            start = clock()
            for _ in range(number):
                call()
            dev.sync()
            elapsed = clock() - start
            if elapsed * 1e3 >= min_repeat_ms:
                break
            per_call_ms = max(elapsed * 1e3 / number, 1e-6)
            number = max(math.ceil(min_repeat_ms / per_call_ms) + 1, math.ceil(number * 1.618))
        results.append(elapsed / number)
        if cooldown_interval_ms and index + 1 < repeat:
            time.sleep(cooldown_interval_ms / 1e3)
    return BenchmarkResult(results)
