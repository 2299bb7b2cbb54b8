"""The textual trace: what a Python schedule records replays through
`tir-apply-schedule` to the same IR; bad instructions are diagnosed."""

import pytest
from schedule_testing import Schedule, matmul
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from xtvm import te, topi
from xtvm.driver.pipeline import mlir_context
from xtvm.passes.tir.apply_schedule import SCHEDULE_ATTR, TirApplySchedulePass, apply_schedule
from xtvm.schedule import ScheduleError
from xtvm.schedule.trace import apply_instruction


def _blocked(sch: Schedule) -> None:
    i, j = sch.get_loops("C")
    (k,) = sch.get_loops("D_acc")[2:]
    sch.split(k, [None, 2])
    i0, j0, _, _ = sch.tile(i, j, 2, 4)
    loops = sch.cache_write("C", j0)
    sch.unroll(loops.update[0])
    sch.vectorize(loops.update[1])
    sch.vectorize(loops.writeback[1])
    sch.parallel(i0)


def test_trace_replays_to_the_same_ir() -> None:
    func, _ = matmul(6, 12, 5, relu=True)
    original = func.clone()
    sch = Schedule(func)
    _blocked(sch)
    assert sch.trace == [
        "split D_acc.k [None, 2]",
        "tile C.i C.j [2, 4]",
        "cache_write C C.j.0",
        "unroll D_acc.i.1",
        "vectorize D_acc.j.1",
        "vectorize C.j.1_wb",
        "parallel C.i.0",
    ]
    original.attributes[SCHEDULE_ATTR] = ArrayAttr([StringAttr(t) for t in sch.trace])
    module = ModuleOp([original])
    TirApplySchedulePass().apply(mlir_context(), module)
    module.verify()
    assert str(original) == str(func)
    assert SCHEDULE_ATTR not in original.attributes


def _replays(func, schedule) -> list[str]:
    """Apply `schedule` from Python, replay its trace on a copy of the
    original with the pass, and check both give the same IR."""
    original = func.clone()
    sch = Schedule(func)
    schedule(sch)
    original.attributes[SCHEDULE_ATTR] = ArrayAttr([StringAttr(t) for t in sch.trace])
    TirApplySchedulePass().apply(mlir_context(), ModuleOp([original]))
    assert str(original) == str(func)
    return sch.trace


def test_stage_primitives_replay() -> None:
    X = te.placeholder((1, 4, 5, 5), name="X")
    W = te.placeholder((6, 4, 3, 3), name="W")
    out = topi.conv2d_nchw(X, W, padding=(1, 1, 1, 1))

    def packed(sch: Schedule) -> None:
        sch.parallel(sch.transform_layout("W", lambda o, i, h, w: (o // 4, i, h, w, o % 4))[0])
        _, f, _, x = sch.get_loops(out.name)
        sch.reorder(x, f)
        sch.cache_write(out.name, x)

    trace = _replays(te.create_prim_func([X, W, out], "conv"), packed)
    assert (
        trace[0]
        == "transform_layout W (d0, d1, d2, d3) -> ((d0 floordiv 4), d1, d2, d3, (d0 mod 4))"
    )
    assert trace[1] == "parallel W_packed.ax0_zero"

    A = te.placeholder((5, 4), name="A")
    B = te.placeholder((6, 4), name="B")
    r = te.reduce_axis((0, 4), name="k")
    D = te.compute((5, 6), lambda i, j: te.sum(A[i, r] * B[j, r], axis=r), name="D")
    E = te.compute((5, 6), lambda i, j: D[i, j] + D[i, 5 - j], name="E")

    def at(sch: Schedule) -> None:
        sch.compute_at("D", sch.get_loops("E")[0])
        sch.vectorize(sch.loop("E.j"))

    assert _replays(te.create_prim_func([A, B, E], "mirrored"), at) == [
        "compute_at D E.i",
        "vectorize E.j",
    ]

    def local(sch: Schedule) -> None:
        sch.compute_at("D", sch.get_loops("E")[0], local=True)

    assert _replays(te.create_prim_func([A, B, E], "mirrored"), local) == ["compute_at D E.i local"]


def test_replay_one_instruction_at_a_time() -> None:
    func, _ = matmul(4, 4, 4)
    sch = Schedule(func)
    apply_instruction(sch, "split D.i [None, 2]")
    apply_instruction(sch, "reorder D.j D.i.1")
    assert sch.trace == ["split D.i [None, 2]", "reorder D.j D.i.1"]
    assert [rv.name for rv in sch.get_loops("D")] == ["D.i.0", "D.j", "D.i.1"]


def test_errors_name_the_instruction() -> None:
    func, _ = matmul(4, 4, 4)
    func.attributes[SCHEDULE_ATTR] = ArrayAttr(
        [StringAttr("split D.i [2, 2]"), StringAttr("fuse D.i D.j")]
    )
    with pytest.raises(
        ScheduleError, match=r"@matmul: instruction 1 'fuse D.i D.j': no loop 'D.i'"
    ):
        apply_schedule(func)
