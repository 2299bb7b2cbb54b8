"""The builder and runner: candidates built in worker processes, measured
one at a time in another, and every failure an error record (a crashing
or hanging kernel, a config the template cannot apply)."""

from __future__ import annotations

import pytest
from tuning_models import conv_model, relay_of

import xtvm
from xtvm import te
from xtvm.autotvm.space import ConfigEntity, OtherOptionEntity
from xtvm.tuning.measure import (
    BuildResult,
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
)
from xtvm.tuning.task import extract_tasks


def _library(tmp_path, name, compute) -> BuildResult:
    """A kernel library of ``B = compute(A)`` exported for the runner."""
    a = te.placeholder((4,), "float32", "A")
    b = compute(a)
    lib = xtvm.build(te.create_prim_func([a, b], name))
    path = str(tmp_path / f"{name}.so")
    lib.export_library(path)
    return BuildResult(path, name, lib.header["functions"][name]["args"])


@pytest.fixture(scope="module")
def conv_task():
    mod, params = relay_of(conv_model(channels=3, out=32, size=30, stride=2))
    (task,) = extract_tasks(mod, params)
    return task


def test_a_crashing_candidate_is_an_error_record(tmp_path):
    crash = _library(
        tmp_path, "crash", lambda a: te.compute((4,), lambda i: a[i * 400000000], name="B")
    )
    fine = _library(tmp_path, "fine", lambda a: te.compute((4,), lambda i: a[i] * 2.0, name="B"))
    runner = LocalRunner(timeout=20, clock="wall")
    try:
        results = runner.run([None, None], [crash, fine])
    finally:
        runner.close()
    assert results[0].error_no == MeasureErrorNo.RUNTIME_DEVICE
    assert "SIGSEGV" in results[0].costs[0]
    assert results[1].error_no == MeasureErrorNo.NO_ERROR and results[1].mean > 0


def test_a_hanging_candidate_times_out(tmp_path):
    def spin(a):
        k = te.reduce_axis((0, 100000), "k")
        m = te.reduce_axis((0, 100000), "m")
        return te.compute(
            (4,), lambda i: te.sum(a[i] * te.cast("float32", k + m), axis=[k, m]), name="B"
        )

    runner = LocalRunner(timeout=1.0)
    try:
        (result,) = runner.run([None], [_library(tmp_path, "spin", spin)])
    finally:
        runner.close()
    assert result.error_no == MeasureErrorNo.RUN_TIMEOUT


def test_candidates_build_in_parallel_and_match_the_reference(conv_task):
    space = conv_task.config_space
    assert len(space) > 4
    inputs = [MeasureInput(conv_task, space.get(i)) for i in (0, len(space) // 2, len(space) - 1)]
    bad = ConfigEntity(0, {"tile_ow": OtherOptionEntity(3)})  # not a split: the template refuses it
    inputs.append(MeasureInput(conv_task, bad))
    builder, runner = LocalBuilder(jobs=2), LocalRunner(check=True, min_repeat_ms=1)
    try:
        builds = builder.build(inputs)
        results = runner.run(inputs, builds)
    finally:
        builder.close()
        runner.close()
    *good, refused = results
    assert [r.error_no for r in good] == [0] * len(good), [r.costs for r in good]
    assert all(r.mean > 0 for r in good)
    assert refused.error_no == MeasureErrorNo.INSTANTIATION_ERROR


def test_the_cpu_clock_needs_one_thread():
    with pytest.raises(ValueError, match="'cpu' at 1 thread"):
        LocalRunner(threads=2, clock="cpu")


def test_cold_cache_timing_gives_one_cost_per_repeat(tmp_path):
    fine = _library(tmp_path, "fine", lambda a: te.compute((4,), lambda i: a[i] * 2.0, name="B"))
    runner = LocalRunner(repeat=3, flush_cache=True)
    try:
        (result,) = runner.run([None], [fine])
    finally:
        runner.close()
    assert result.error_no == 0 and len(result.costs) == 3 and all(c > 0 for c in result.costs)


def test_a_candidate_is_lowered_as_the_models_kernel_is(conv_task):
    """The builder runs the tir stage's passes on a candidate (flattened
    buffers, folded indices), so it gets the code the model's build would
    give: the kernel of the model's own tir stage, text for text."""
    from xdsl.dialects.builtin import ModuleOp

    from xtvm.driver.build_module import lower
    from xtvm.tuning.measure import lower_kernel

    candidate = lower_kernel(conv_task.build_kernel(conv_task.config_space.get(0)), "llvm")
    (kernel,) = [op for op in candidate.walk() if op.name == "tir.prim_func"]
    assert all(len(arg.type.get_shape()) == 1 for arg in kernel.args)  # flattened
    mod, params = relay_of(conv_model(channels=3, out=32, size=30, stride=2))
    with xtvm.target.Target.of("llvm"), xtvm.transform.PassContext(opt_level=3):
        model = lower(mod.clone(), params, stage="tir")
    (in_model,) = [
        op
        for op in model.walk()
        if op.name == "tir.prim_func" and op.sym_name.data == kernel.sym_name.data
    ]
    assert str(ModuleOp([kernel.clone()])) == str(ModuleOp([in_model.clone()]))
