"""Tuning records: one JSON object per line (TVM's ``autotvm.record``
layout), and ``apply_history_best``.

A line::

    {"input": ["llvm -mcpu=znver5", "fused_nn_contrib_conv2d_packed_add_nn_relu",
               ["<workload key>"], {}],
     "config": {"index": 12, "code_hash": null,
                "entity": [["tile_ow", "sp", [-1, 14]], ["tile_oh", "ot", 2], ...]},
     "result": [[0.00123, 0.00121, 0.00122], 0, 1.8, 1796149394.3],
     "version": 0.2, "xtvm_version": "0.1.0"}

``input`` is the target, the task's name, its workload key (TVM's
``args``) and ``kwargs``: empty, or for a task that is one implementation
of a conv with several (:mod:`xtvm.passes.relay.winograd`) the conv's
workload and the implementation, ``{"conv2d": "conv2d f32 data=1x64x56x56
weight=64x64x3x3 ...", "implementation": "winograd", "tile_size": 4}``
(``"direct"`` without a tile size); ``result`` is the seconds per call of
each repeat (the error message when the error number is not 0), the
error number (:class:`~xtvm.tuning.measure.MeasureErrorNo`), the seconds
the measurement took and its Unix time. Only JSON is read and written;
a line that is not a well-formed record is skipped with a warning that
names the file and line.

:func:`apply_history_best` is a dispatch context (``with``) under which
``xtvm.build`` schedules every kernel that has a successful record for
the target's CPU with its fastest config; other kernels keep the
hand-written schedule. A tuned config is used only when it beat the
hand-written schedule's own measurement (config 0, measured first as
every search's baseline) by ``min_gain`` (2% by default): a kernel whose
search found nothing clearly faster keeps its hand-written schedule.

It also picks each such conv's implementation (``conv2d_tile``, asked by
``relay-alter-op-layout`` before the kernels exist): the implementation
with the fastest record of the conv's workload, when the records measured
the hand-written rule's choice too and the other is at least ``min_gain``
faster than it; else the hand-written rule's choice.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from xtvm.autotvm.dispatch import DIRECT, DispatchContext, config_from_json, target_key
from xtvm.autotvm.space import ConfigBase

VERSION = 0.2
"""The record layout's version (TVM's ``AUTOTVM_LOG_VERSION``)."""

XTVM_VERSION = "0.1.0"


@dataclass
class Record:
    """One line: the task (``target``, ``name``, ``key``), the ``config`` in
    its JSON form, and the measurement."""

    target: str
    name: str
    key: str
    config: dict[str, Any]
    costs: list[Any]
    error_no: int
    all_cost: float
    timestamp: float
    kwargs: dict[str, Any] = field(default_factory=dict)
    """The conv and implementation of the task, if it has (see the module)."""

    @property
    def conv2d_tile(self) -> int | None:
        """The implementation this record measured of its conv
        (``DIRECT`` or Winograd's ``m``), None for a task without one."""
        if "conv2d" not in self.kwargs:
            return None
        return self.kwargs.get("tile_size", DIRECT)

    @property
    def mean(self) -> float:
        """Mean seconds per call; infinity for an error."""
        if self.error_no or not self.costs:
            return float("inf")
        return sum(self.costs) / len(self.costs)

    @property
    def cost(self) -> float:
        """The fastest round's seconds per call (what the search ranks by:
        on a shared machine the least disturbed round is the kernel's own
        speed); infinity for an error."""
        if self.error_no or not self.costs:
            return float("inf")
        return min(self.costs)  # type: ignore[type-var]

    def to_json(self) -> dict[str, Any]:
        return {
            "input": [self.target, self.name, [self.key], self.kwargs],
            "config": self.config,
            "result": [self.costs, self.error_no, self.all_cost, self.timestamp],
            "version": VERSION,
            "xtvm_version": XTVM_VERSION,
        }


def encode(inp, result) -> str:
    """The record line of a :class:`MeasureInput` and its :class:`MeasureResult`."""
    task = inp.task
    return json.dumps(
        Record(
            task.target,
            task.name,
            task.key,
            inp.config.to_json(),
            list(result.costs),
            int(result.error_no),
            float(result.all_cost),
            float(result.timestamp),
            implementation_kwargs(task),
        ).to_json()
    )


def implementation_kwargs(task) -> dict[str, Any]:
    """A task's ``kwargs``: its conv and implementation, if it has."""
    if not getattr(task, "conv2d", ""):
        return {}
    if task.tile_size == DIRECT:
        return {"conv2d": task.conv2d, "implementation": "direct"}
    return {"conv2d": task.conv2d, "implementation": "winograd", "tile_size": task.tile_size}


def _check_kwargs(kwargs: Any) -> dict[str, Any]:
    """A record's ``kwargs``, checked (a ValueError or TypeError saying what
    is wrong: :func:`load_records` skips the line)."""
    if not isinstance(kwargs, dict):
        raise TypeError("'input' kwargs must be a JSON object")
    if "conv2d" not in kwargs:
        return kwargs
    implementation, tile = kwargs.get("implementation"), kwargs.get("tile_size")
    if not isinstance(kwargs["conv2d"], str):
        raise TypeError("'conv2d' must be the conv's workload string")
    if implementation == "direct" and tile is None:
        return kwargs
    if implementation == "winograd" and tile in (2, 4) and isinstance(tile, int):
        return kwargs
    raise ValueError(
        f"a conv's implementation must be 'direct' or 'winograd' with a tile_size of 2 or 4, "
        f"not {implementation!r} with {tile!r}"
    )


def decode(line: str) -> Record:
    """The record of one line; a ValueError saying what is wrong."""
    data = json.loads(line)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    inp, config, result = data.get("input"), data.get("config"), data.get("result")
    if not (
        isinstance(inp, list)
        and len(inp) >= 3
        and isinstance(inp[0], str)
        and isinstance(inp[1], str)
        and isinstance(inp[2], list)
        and inp[2]
        and isinstance(inp[2][0], str)
    ):
        raise ValueError("'input' must be [target, task name, [workload key], {}]")
    config_from_json(config)  # checks the config's form
    if not (
        isinstance(result, list)
        and len(result) == 4
        and isinstance(result[0], list)
        and isinstance(result[1], int)
    ):
        raise ValueError("'result' must be [costs, error number, seconds, timestamp]")
    costs, error_no = result[0], result[1]
    if not error_no and not (costs and all(isinstance(c, int | float) and c > 0 for c in costs)):
        raise ValueError("a successful record needs positive costs")
    kwargs = _check_kwargs(inp[3] if len(inp) > 3 else {})
    return Record(
        inp[0],
        inp[1],
        inp[2][0],
        config,
        costs,
        error_no,
        float(result[2]),
        float(result[3]),
        kwargs,
    )


def load_records(path: str | os.PathLike[str]) -> Iterator[Record]:
    """Every well-formed record of a records file, in order; each corrupt
    line is skipped with a warning naming ``path:line``."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield decode(line)
            except (ValueError, TypeError, KeyError) as err:
                warnings.warn(
                    f"{os.fspath(path)}:{number}: skipped a corrupt tuning record ({err})",
                    stacklevel=2,
                )


def save_records(path: str | os.PathLike[str], lines: Iterable[str]) -> None:
    """Append record lines (each flushed, so an interrupted search keeps
    what it measured)."""
    with open(path, "a", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
            f.flush()


def best_records(records: Iterable[Record]) -> dict[tuple[str, str], Record]:
    """The fastest successful record of each (target CPU, workload key)."""
    best: dict[tuple[str, str], Record] = {}
    for record in records:
        if record.error_no:
            continue
        key = (target_key(record.target), record.key)
        if key not in best or record.cost < best[key].cost:
            best[key] = record
    return best


def is_baseline(record: Record) -> bool:
    """Whether a record measured the hand-written schedule (config 0)."""
    return record.config.get("index") == 0 and "trace" not in record.config


def baseline_records(records: Iterable[Record]) -> dict[tuple[str, str], Record]:
    """The fastest successful hand-written (config 0) record of each
    (target CPU, workload key)."""
    return best_records(r for r in records if is_baseline(r))


DEFAULT_MIN_GAIN = 0.02
"""How much faster than the hand-written schedule's measurement a tuned
config must have measured to be applied (a smaller gain is within the
noise of a shared machine and of a kernel timed alone)."""


class ApplyHistoryBest(DispatchContext):
    """The best config of each workload in ``records`` (paths or records)
    for the current target's CPU, when it beat the hand-written schedule's
    measurement by ``min_gain`` (see the module)."""

    def __init__(
        self,
        records: str | os.PathLike[str] | Iterable[Record | str | os.PathLike[str]],
        min_gain: float = DEFAULT_MIN_GAIN,
    ):
        if isinstance(records, str | os.PathLike):
            records = [records]
        loaded: list[Record] = []
        for item in records:
            loaded.extend([item] if isinstance(item, Record) else load_records(item))
        self.best = best_records(loaded)
        self.baselines = baseline_records(loaded)
        self.min_gain = min_gain
        self.applied: dict[str, str] = {}
        """Workload key → the config applied (what the build used)."""
        self.conv_costs: dict[tuple[str, str], dict[int, float]] = {}
        """(target CPU, conv workload) → each measured implementation's
        fastest seconds per call."""
        for record in loaded:
            tile = record.conv2d_tile
            if tile is None or record.error_no:
                continue
            costs = self.conv_costs.setdefault(
                (target_key(record.target), record.kwargs["conv2d"]), {}
            )
            costs[tile] = min(costs.get(tile, float("inf")), record.cost)
        self.implementations: dict[str, int] = {}
        """Conv workload → the implementation the build chose from the
        records (``DIRECT`` or Winograd's ``m``)."""

    def config(self, key: str, fn: Any) -> ConfigBase | None:
        record = self.best.get((target_key(), key))
        if record is None or is_baseline(record):
            return None
        baseline = self.baselines.get((target_key(), key))
        if baseline is not None and record.cost > baseline.cost * (1 - self.min_gain):
            return None
        self.applied[key] = str(record.config)
        return config_from_json(record.config, strict=False)

    def conv2d_tile(self, conv: str, tiles: Sequence[int], default: int) -> int:
        """The fastest measured implementation of ``conv`` among ``tiles``
        when it beat a measured ``default`` by ``min_gain`` (see the module)."""
        costs = {
            t: c for t, c in self.conv_costs.get((target_key(), conv), {}).items() if t in tiles
        }
        if default not in costs:
            return default
        best = min(costs, key=lambda t: (costs[t], t != default))
        chosen = best if costs[best] <= costs[default] * (1 - self.min_gain) else default
        self.implementations[conv] = chosen
        return chosen


def apply_history_best(records, min_gain: float = DEFAULT_MIN_GAIN) -> ApplyHistoryBest:
    """``with apply_history_best("records.json"): lib = xtvm.build(...)``."""
    return ApplyHistoryBest(records, min_gain)
