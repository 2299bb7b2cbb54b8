"""split, fuse, reorder, tile and the loop kinds on te computes, compiled
and compared with NumPy, including extents the factors do not divide."""

import numpy as np
import pytest
from schedule_testing import Schedule, kinds, matmul, random, run, run_passes

from xtvm import te
from xtvm.dialects.tir import ForOp, IfOp
from xtvm.schedule import ScheduleError


def _elementwise(n: int, m: int):
    """C[i, j] = exp(A[i, j]) * 2 + B[j] (an inlined elementwise chain) and its reference."""
    A = te.placeholder((n, m), name="A")
    B = te.placeholder((m,), name="B")
    E = te.compute((n, m), lambda i, j: te.exp(A[i, j]), name="E")
    C = te.compute((n, m), lambda i, j: E[i, j] * 2.0 + B[j], name="C")
    return te.create_prim_func([A, B, C], "chain"), lambda a, b: np.exp(a) * 2 + b


@pytest.mark.parametrize(
    ("factors", "guarded"),
    [([None, 4], True), ([3, None, 2], True), ([13], False), ([1, 13], False), ([2, 8], True)],
)
def test_split(factors, guarded) -> None:
    func, ref = _elementwise(5, 13)
    sch = Schedule(func)
    _, j = sch.get_loops("C")
    loops = sch.split(j, factors)
    assert len(loops) == len(factors)
    assert any(isinstance(op, IfOp) for op in func.walk()) == guarded
    a, b = random(5, 13), random(13)
    (c,) = run(func, [a, b])
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-5)


def test_split_reduction_loop_with_guard() -> None:
    func, ref = matmul(3, 5, 10)
    sch = Schedule(func)
    _, _, k = sch.get_loops("D_acc")
    k0, k1 = sch.split(k, [None, 4])  # 12 > 10: the last 2 steps are skipped
    assert [rv.name for rv in (k0, k1)] == ["D_acc.k.0", "D_acc.k.1"]
    a, b = random(3, 10), random(5, 10)
    (c,) = run(func, [a, b])
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-5, atol=1e-6)


def test_fuse_and_reorder() -> None:
    func, ref = _elementwise(6, 7)
    sch = Schedule(func)
    i, j = sch.get_loops("C")
    sch.reorder(j, i)
    fused = sch.fuse(j, i)
    assert fused.name == "C.j_i_fused"
    assert [name for name, _ in kinds(func)] == ["j_i_fused"]
    io, ii = sch.split(fused, [None, 8])  # 42 iterations: guarded
    sch.parallel(io)
    sch.vectorize(ii)
    a, b = random(6, 7), random(7)
    (c,) = run(func, [a, b])
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-5)


@pytest.mark.parametrize("shape", [(8, 16, 4), (10, 21, 5)])
def test_tile_matmul(shape) -> None:
    n, m, k = shape
    func, ref = matmul(n, m, k, relu=True)
    sch = Schedule(func)
    i, j = sch.get_loops("C")
    tiles = sch.tile(i, j, 4, 8)
    assert [rv.name for rv in tiles] == ["C.i.0", "C.j.0", "C.i.1", "C.j.1"]
    a, b = random(n, k), random(m, k)
    (c,) = run(func, [a, b])
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-5, atol=1e-6)


def test_kinds_survive_the_tir_pipeline() -> None:
    func, ref = _elementwise(4, 16)
    sch = Schedule(func)
    i, j = sch.get_loops("C")
    j0, j1 = sch.split(j, [None, 8])
    sch.parallel(i)
    sch.unroll(j0)
    sch.vectorize(j1)
    lowered = run_passes(func, ["tir-unroll-loop", "tir-flatten-buffer", "tir-simplify"])
    assert kinds(lowered) == [("i", "parallel"), ("j.1", "vectorized"), ("j.1", "vectorized")]
    a, b = random(4, 16), random(16)
    (c,) = run(func, [a, b])
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-5)


def test_stale_handle_and_bad_arguments() -> None:
    func, _ = _elementwise(4, 8)
    sch = Schedule(func)
    i, j = sch.get_loops("C")
    sch.split(i, [2, 2])
    with pytest.raises(ScheduleError, match="no longer exists"):
        sch.vectorize(i)
    with pytest.raises(ScheduleError, match="tile takes loops then as many integer factors"):
        sch.tile(j, 4, 4)
    with pytest.raises(ScheduleError, match="no buffer named 'X'"):
        sch.get_loops("X")
    with pytest.raises(ScheduleError, match="a loop is given twice"):
        sch.reorder(j, j)


def test_reorder_needs_one_nest() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((4,), lambda x: A[x] * 2.0, name="C")
    func = te.create_prim_func([A, B, C], "two")
    sch = Schedule(func)
    (i,) = sch.get_loops("B")
    (x,) = sch.get_loops("C")
    with pytest.raises(ScheduleError, match="not in one loop nest"):
        sch.reorder(i, x)
    assert sum(isinstance(op, ForOp) for op in func.walk()) == 2


def test_schedule_on_zero_extent_loops_runs_nothing() -> None:
    # A schedule computing its factors from the extent (min(16, n)) splits a
    # zero-size tensor's loop by 0: the nest runs nothing, no error.
    for tiled in (False, True):
        func, _ = _elementwise(0, 13)
        sch = Schedule(func)
        i, j = sch.get_loops("C")
        if tiled:
            sch.tile(i, j, 0, 4)
        else:
            io, _ = sch.split(i, [None, min(16, 0)])
            sch.parallel(io)
        (c,) = run(func, [random(0, 13), random(13)])
        assert c.shape == (0, 13)
        with pytest.raises(ScheduleError, match="factors must be positive"):
            sch.split(sch.get_loops("C")[-1], [None, 0])  # j has 13 iterations
