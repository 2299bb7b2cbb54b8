"""The auto_scheduler: sketches from the default loop nests (no template),
every sampled program equal to the hand-written schedule's output, trace
records applied by apply_history_best, and the task scheduler's budget."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest
from tuning_models import conv_model, relay_of

import xtvm
from xtvm.auto_scheduler.search import SketchPolicy, tune_tasks
from xtvm.auto_scheduler.sketch import SketchParams, crossover, mutate, sample, seeds, valid
from xtvm.autotvm.dispatch import DIRECT, TraceConfig
from xtvm.tuning.measure import BuildResult, LocalBuilder, LocalRunner, MeasureInput, MeasureResult
from xtvm.tuning.record import apply_history_best, encode, load_records
from xtvm.tuning.task import extract_tasks

MODELS = {
    "first-layer": {"channels": 3, "out": 32, "size": 30, "kernel": 7, "stride": 2},
    "grouped": {"channels": 16, "out": 32, "size": 14, "stride": 1, "group": 2},
    "depthwise": {"channels": 16, "out": 16, "size": 14, "stride": 1, "group": 16},
    "dense": {"channels": 4, "out": 16, "size": 8, "stride": 1, "dense": 64},
}


@pytest.fixture(scope="module")
def tasks():
    """Each model's direct kernels: the sketches are of those (the
    first layer's Winograd forms, F(m,4) after space-to-depth, are tasks
    of their own that the auto_scheduler measures as baselines only)."""
    found = {}
    for name, kwargs in MODELS.items():
        mod, params = relay_of(conv_model(**kwargs))
        found[name] = [t for t in extract_tasks(mod, params) if t.tile_size == DIRECT]
    return found


def test_sampled_mutated_and_crossed_programs_stay_valid(tasks):
    rng = random.Random(0)
    for name, found in tasks.items():
        policy = SketchPolicy(found[-1])
        shape = policy.shape
        assert shape.reduction is not None, name
        pool = [sample(shape, rng) for _ in range(20)]
        for _ in range(200):
            child = mutate(shape, crossover(shape, rng.choice(pool), rng.choice(pool), rng), rng)
            assert valid(shape, child), (name, child)
            pool.append(child)


def test_every_sampled_program_computes_the_reference(tasks):
    inputs = []
    for found in tasks.values():
        for task in found:
            inputs.extend(MeasureInput(task, c) for c in SketchPolicy(task, seed=1).next_batch(1))
    assert len(inputs) >= len(MODELS)
    builder, runner = LocalBuilder(jobs=2), LocalRunner(check=True, repeat=1, min_repeat_ms=0)
    try:
        results = runner.run(inputs, builder.build(inputs))
    finally:
        builder.close()
        runner.close()
    wrong = [(i.task.name, i.config.sketch, r.costs) for i, r in zip(inputs, results) if r.error_no]
    assert not wrong


def test_a_trace_record_is_replayed_by_apply_history_best(tmp_path):
    model = conv_model(channels=3, out=32, size=30, kernel=7, stride=2)
    mod, params = relay_of(model)
    (task,) = [t for t in extract_tasks(mod, params) if t.tile_size == DIRECT]
    (config,) = SketchPolicy(task, seed=3).next_batch(1)
    path = tmp_path / "records.json"
    path.write_text(encode(MeasureInput(task, config), MeasureResult([1e-4], 0, 1.0, 0.0)) + "\n")
    (record,) = load_records(path)
    assert record.config["trace"] == config.trace
    context = apply_history_best(str(path))
    with context:
        tuned = xtvm.build(mod, params=params)
    assert list(context.applied) == [task.key]
    x = np.random.default_rng(0).standard_normal((1, 3, 30, 30)).astype("float32")
    outs = []
    for lib in (tuned, xtvm.build(mod, params=params)):
        gmod = lib["default"](xtvm.cpu(0))
        gmod.set_input("x", x)
        gmod.run()
        outs.append(gmod.get_output(0).numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-4)


class SyntheticMeasure:
    """A builder and runner in one: no compilation; a program's time falls
    with its register tile up to 64 elements (a known best)."""

    def __init__(self):
        self.calls = []

    def build(self, inputs):
        return [BuildResult("none", i.task.name) for i in inputs]

    def run(self, inputs, builds):
        out = []
        for i in inputs:
            self.calls.append(i.task.name)
            sketch = getattr(i.config, "sketch", None)
            volume = np.prod(sketch["tiles"]) if sketch else 1
            out.append(MeasureResult([1e-3 * (1 + abs(np.log2(volume / 64)))], 0, 0.0, time.time()))
        return out

    def close(self):
        pass


def test_the_task_scheduler_spends_the_budget_and_measures_each_baseline(tasks, tmp_path):
    chosen = [tasks["dense"][0], tasks["first-layer"][0]]
    chosen[1].weight = 4  # the heavier task gets more of the budget
    fake = SyntheticMeasure()
    summaries = tune_tasks(
        chosen, str(tmp_path / "r.json"), trials=40, runner=fake, builder=fake, batch_size=4
    )
    assert len(fake.calls) == 40
    assert [s.trials for s in summaries] and all(np.isfinite(s.baseline) for s in summaries)
    assert fake.calls.count(chosen[1].name) > fake.calls.count(chosen[0].name)
    for s in summaries:
        assert s.best <= 1e-3 * (1 + 1)  # found a tile within 4x of the best volume
    assert len(list(load_records(tmp_path / "r.json"))) == 40


def test_a_strided_stage_is_packed_and_every_seed_computes_the_reference(tasks):
    from xtvm.auto_scheduler.sketch import vector_axes

    (task,) = tasks["first-layer"][-1:]
    policy = SketchPolicy(task)
    assert policy.shape.packable is not None and policy.shape.packable[1] == 2
    assert SketchPolicy(tasks["grouped"][-1]).shape.packable is None  # stride 1
    found = seeds(policy.shape)
    assert found and all(valid(policy.shape, p) for p in found)
    assert {p.pack for p in found} == {1, 2}
    assert {p.vector_axis for p in found} == set(vector_axes(policy.shape))
    configs = policy.next_batch(4)  # the first batch: seeds
    assert [SketchParams.from_json(c.sketch) for c in configs] == found[:4]
    assert any("transform_layout" in line for c in configs for line in c.trace)
    inputs = [MeasureInput(task, c) for c in configs]
    builder, runner = LocalBuilder(jobs=2), LocalRunner(check=True, repeat=1, min_repeat_ms=0)
    try:
        results = runner.run(inputs, builder.build(inputs))
    finally:
        builder.close()
        runner.close()
    assert not [(i.config.sketch, r.costs) for i, r in zip(inputs, results) if r.error_no]


def test_a_passed_deadline_stops_both_searches_before_measuring(tasks, tmp_path):
    from xtvm.autotvm.driver import tune_tasks as autotvm_tune

    fake = SyntheticMeasure()
    chosen = [tasks["dense"][0], tasks["first-layer"][0]]
    past = time.monotonic() - 1
    assert (
        tune_tasks(chosen, str(tmp_path / "a.json"), 40, runner=fake, builder=fake, deadline=past)[
            0
        ].trials
        == 0
    )
    assert (
        autotvm_tune(chosen, str(tmp_path / "b.json"), 40, runner=fake, builder=fake, deadline=past)
        == []
    )
    assert fake.calls == []


def test_seeds_tile_a_vector_axis_nearest_half_the_registers_first(tasks):
    from xtvm.auto_scheduler.sketch import (
        MAX_REGISTERS,
        SEED_REGISTERS,
        channel_axes,
        vector_axes,
    )

    for name in ("grouped", "first-layer"):
        shape = SketchPolicy(tasks[name][-1]).shape
        found = seeds(shape)
        assert found and all(valid(shape, p) for p in found), name
        registers = [np.prod(p.tiles) // min(p.tiles[p.vector_axis], shape.lanes) for p in found]
        for p, r in zip(found, registers):
            assert 8 <= r <= MAX_REGISTERS and p.vector_axis in vector_axes(shape), p
            kind = channel_axes(shape)
            reuse = [
                k
                for k, t in enumerate(p.tiles)
                if t > 1 and (k in kind) != (p.vector_axis in kind) and k != 0
            ]
            assert reuse, p  # the loaded vectors are reused along an axis of the other kind
        groups = {(p.pack, p.vector_axis, tuple(t > 1 for t in p.tiles)) for p in found}
        first = found[: len(groups)]  # one per group, each nearest half the register file
        assert len({(p.pack, p.vector_axis, tuple(t > 1 for t in p.tiles)) for p in first}) > 1
        for p, r in zip(first, registers):
            group = [
                q
                for q, s in zip(found, registers)
                if (q.pack, q.vector_axis, tuple(t > 1 for t in q.tiles))
                == (p.pack, p.vector_axis, tuple(t > 1 for t in p.tiles))
            ]
            assert group[0] == p
            best = min(
                abs(np.log2(s / SEED_REGISTERS)) for q, s in zip(found, registers) if q in group
            )
            assert abs(np.log2(r / SEED_REGISTERS)) == best


def test_the_unrolled_reduction_loop_is_the_windows_columns(tasks):
    for name, kernel in (("grouped", 3), ("first-layer", 7)):
        shape = SketchPolicy(tasks[name][-1]).shape
        assert shape.unrollable, name
        assert shape.reduce_extents[-shape.window_loop] == kernel, (name, shape)


def test_model_picks_skip_implausible_programs(tasks):
    from xtvm.auto_scheduler.sketch import plausible

    policy = SketchPolicy(tasks["grouped"][-1], seed=4)
    rng = random.Random(2)
    programs = list({sample(policy.shape, rng) for _ in range(30)})
    policy.update(
        [TraceConfig([], p.to_json()) for p in programs],
        [synthetic_cost(policy.shape, p) for p in programs],
    )
    picks = policy._evolve(16)
    assert picks and all(plausible(policy.shape, p) for p in picks)
    assert not set(picks) & set(programs)


def test_reshape_moves_a_factor_and_keeps_the_register_tile():
    from xtvm.auto_scheduler.sketch import KernelShape, reshape

    shape = KernelShape("out", (1, 64, 14, 14), "acc", (), 16)
    rng = random.Random(0)
    seen = set()
    for _ in range(50):
        tiles = reshape(shape, [1, 32, 1, 7], rng)
        assert np.prod(tiles) == 32 * 7
        assert all(e % t == 0 for t, e in zip(tiles, shape.extents))
        seen.add(tuple(tiles))
    assert (1, 16, 1, 14) in seen and (1, 16, 2, 7) in seen
    assert reshape(shape, [1, 1, 1, 1], rng) == [1, 1, 1, 1]


def synthetic_cost(shape, p):
    """A known best: 16 vector registers, vectors along the innermost axis."""
    registers = np.prod(p.tiles) / min(p.tiles[p.vector_axis], shape.lanes)
    last = len(shape.extents) - 1
    return 1e-3 * (1 + abs(np.log2(registers / 16)) + (p.vector_axis != last))


def test_the_shared_cost_model_ranks_another_tasks_programs(tasks):
    from dataclasses import replace

    from xtvm.auto_scheduler.search import CostModel
    from xtvm.auto_scheduler.sketch import KernelShape, features

    model = CostModel()
    rng = random.Random(0)
    seen = KernelShape("out", (1, 4, 28, 28), "acc", (), 16, True, None, (64, 3, 3))
    programs = list({sample(seen, rng) for _ in range(80)})
    model.add(
        "seen",
        [features(seen, p) for p in programs],
        [synthetic_cost(seen, p) for p in programs],
    )
    new = replace(seen, extents=(1, 8, 14, 14), reduce_extents=(128, 3, 3))
    unseen = list({sample(new, rng) for _ in range(80)})
    scores = model.predict([features(new, p) for p in unseen])
    costs = [synthetic_cost(new, p) for p in unseen]
    ranked = [c for _, c in sorted(zip(scores, costs), key=lambda t: -t[0])]
    assert np.mean(ranked[:20]) < np.mean(ranked[-20:])  # the model's top quarter is faster
    # a task's first batch under a model trained on another task: half
    # the seeds in rule order, half the model's picks
    policy = SketchPolicy(tasks["grouped"][-1], cost_model=model)
    other = list({sample(policy.shape, rng) for _ in range(40)})
    model.add(
        "another task",
        [features(policy.shape, p) for p in other],
        [synthetic_cost(policy.shape, p) for p in other],
    )
    batch = [SketchParams.from_json(c.sketch) for c in policy.next_batch(8)]
    assert batch[:4] == seeds(policy.shape)[:4]
    assert len(set(batch)) == len(batch) == 8 and all(valid(policy.shape, p) for p in batch)
    assert set(batch[4:]) - set(seeds(policy.shape)[:4])


def test_reshaped_neighbours_compute_the_reference(tasks):
    from dataclasses import replace

    from xtvm.auto_scheduler.sketch import reshape

    task = tasks["grouped"][-1]
    policy = SketchPolicy(task, seed=2)
    rng = random.Random(1)
    inputs = []
    for p in seeds(policy.shape)[:3]:
        q = replace(p, tiles=tuple(reshape(policy.shape, list(p.tiles), rng)))
        if q != p and valid(policy.shape, q):
            inputs.append(MeasureInput(task, TraceConfig(policy.trace(q), q.to_json())))
    assert inputs
    builder, runner = LocalBuilder(jobs=2), LocalRunner(check=True, repeat=1, min_repeat_ms=0)
    try:
        results = runner.run(inputs, builder.build(inputs))
    finally:
        builder.close()
        runner.close()
    assert not [(i.config.sketch, r.costs) for i, r in zip(inputs, results) if r.error_no]
