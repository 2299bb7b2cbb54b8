"""The x86 templates: every sampled config of each (first-layer stride-2,
3×3, grouped, depthwise conv2d; dense) computes what the hand-written
schedule computes, and the default config is the hand-written schedule."""

from __future__ import annotations

import random

import pytest
from tuning_models import conv_model, relay_of

from xtvm.tuning.measure import LocalBuilder, LocalRunner, MeasureInput
from xtvm.tuning.task import extract_tasks

MODELS = {
    "first-layer": {"channels": 3, "out": 32, "size": 30, "kernel": 7, "stride": 2},
    "3x3": {"channels": 8, "out": 32, "size": 14, "stride": 1},
    "grouped": {"channels": 16, "out": 32, "size": 14, "stride": 1, "group": 2},
    "depthwise": {"channels": 16, "out": 16, "size": 14, "stride": 1, "group": 16},
    "dense": {"channels": 4, "out": 16, "size": 8, "stride": 1, "dense": 64},
}


def _tasks():
    tasks = []
    for name, kwargs in MODELS.items():
        mod, params = relay_of(conv_model(**kwargs))
        tasks.extend((name, t) for t in extract_tasks(mod, params))
    return tasks


def _check(samples_per_task: int | None) -> None:
    inputs = []
    for _, task in _tasks():
        size = len(task.config_space)
        indices = (
            range(size)
            if samples_per_task is None
            else random.Random(0).sample(range(size), min(samples_per_task, size))
        )
        inputs.extend(MeasureInput(task, task.config_space.get(i)) for i in indices)
    builder, runner = LocalBuilder(jobs=2), LocalRunner(check=True, repeat=1, min_repeat_ms=0)
    try:
        results = runner.run(inputs, builder.build(inputs))
    finally:
        builder.close()
        runner.close()
    wrong = [(i.task.name, str(i.config), r.costs) for i, r in zip(inputs, results) if r.error_no]
    assert not wrong


def test_every_template_is_extracted():
    names = [name for name, _ in _tasks()]
    assert sorted(set(names)) == sorted(MODELS)
    for name, task in _tasks():
        assert len(task.config_space) > 1 and task.flop > 0, name


@pytest.mark.slow
def test_sampled_configs_compute_the_reference():
    _check(samples_per_task=1)


@pytest.mark.slow
def test_every_config_computes_the_reference():
    _check(samples_per_task=None)
