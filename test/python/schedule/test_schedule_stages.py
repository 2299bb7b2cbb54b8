"""compute_inline, compute_at and transform_layout (layout packing),
compiled and compared with NumPy."""

import numpy as np
import pytest
from schedule_testing import Schedule, kinds, random, run
from xdsl.parser import Parser

from xtvm import te, topi
from xtvm.dialects.tir import AllocateOp, PrimFuncOp
from xtvm.driver.pipeline import mlir_context
from xtvm.schedule import ScheduleError

STENCIL = """
tir.prim_func @stencil(%A: memref<7xf32>, %C: memref<7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %P = tir.allocate "global" : memref<9xf32>
  tir.for %x = %c0 to %c9 kind "serial" {
    %ax = arith.subi %x, %c1 : index
    %lo = arith.cmpi sge, %ax, %c0 : index
    %hi = arith.cmpi slt, %ax, %c7 : index
    %in = arith.andi %lo, %hi : i1
    %p = arith.select %in, %ax, %c0 : index
    %v = tir.load %A[%p] : memref<7xf32>
    %v2 = arith.mulf %v, %two : f32
    %pv = arith.select %in, %v2, %zero : f32
    tir.store %pv, %P[%x] : memref<9xf32>
  }
  tir.for %y = %c0 to %c7 kind "serial" {
    %y1 = arith.addi %y, %c1 : index
    %y2 = arith.addi %y, %c2 : index
    %a = tir.load %P[%y] : memref<9xf32>
    %b = tir.load %P[%y1] : memref<9xf32>
    %c = tir.load %P[%y2] : memref<9xf32>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    tir.store %t, %C[%y] : memref<7xf32>
  }
  tir.return
}
"""
"""C[y] = P[y] + P[y+1] + P[y+2] with P the zero-padded 2 * A, as two stages."""


def _stencil() -> PrimFuncOp:
    (func,) = Parser(mlir_context(), STENCIL).parse_module().ops
    assert isinstance(func, PrimFuncOp)
    return func.clone()


def _stencil_reference(a: np.ndarray) -> np.ndarray:
    p = np.pad(2 * a, 1)
    return p[:-2] + p[1:-1] + p[2:]


def test_compute_inline() -> None:
    func = _stencil()
    Schedule(func).compute_inline("P")
    assert not any(isinstance(op, AllocateOp) for op in func.walk())
    assert len(kinds(func)) == 1
    a = random(7)
    (c,) = run(func, [a])
    np.testing.assert_allclose(c, _stencil_reference(a), rtol=1e-6)


@pytest.mark.parametrize("factor", [2, 3, 7])
def test_compute_at_tiles_of_a_stencil(factor) -> None:
    func = _stencil()
    sch = Schedule(func)
    (y,) = sch.get_loops("C")
    y0, _ = sch.split(y, [None, factor])
    (x,) = sch.compute_at("P", y0)
    assert x.name == "P.x"
    assert kinds(func)[:2] == [("y.0", "serial"), ("x", "serial")]
    a = random(7)
    (c,) = run(func, [a])
    np.testing.assert_allclose(c, _stencil_reference(a), rtol=1e-6)


def _mirrored_matmul(n: int, m: int, k: int):
    """E[i, j] = D[i, j] + D[i, m-1-j] with D = A @ B^T, so D is materialized."""
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((m, k), name="B")
    r = te.reduce_axis((0, k), name="k")
    D = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[j, r], axis=r), name="D")
    E = te.compute((n, m), lambda i, j: D[i, j] + D[i, m - 1 - j], name="E")

    def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = a @ b.T
        return d + d[:, ::-1]

    return te.create_prim_func([A, B, E], "mirrored"), reference


def test_compute_at_a_reduction_row_and_relayout() -> None:
    func, ref = _mirrored_matmul(5, 6, 4)
    sch = Schedule(func)
    (i, _) = sch.get_loops("E")
    di, dj = sch.compute_at("D", i)
    # E's nest has loops i and j already: the moved loops are renamed
    assert [rv.name for rv in (di, dj)] == ["D.iv1", "D.jv1"]
    sch.parallel(i)
    sch.transform_layout("D", lambda a, b: (b, a))
    (d,) = [op for op in func.walk() if isinstance(op, AllocateOp) and op.res.name_hint == "D"]
    assert d.res.type.get_shape() == (6, 5)
    a, b = random(5, 4), random(6, 4)
    (e,) = run(func, [a, b])
    np.testing.assert_allclose(e, ref(a, b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("parallel", [False, True])
def test_compute_at_local_stores_one_iterations_region(parallel) -> None:
    """``local``: the reduction is stored, one row at a time, in a buffer of
    the row's size allocated under the loop (under a parallel loop each
    thread has its own), read from the region's start; same result."""
    func, ref = _mirrored_matmul(5, 6, 4)
    sch = Schedule(func)
    (i, _) = sch.get_loops("E")
    sch.compute_at("D", i, local=True)
    if parallel:
        sch.parallel(i)
    (d,) = [op for op in func.walk() if isinstance(op, AllocateOp) and op.res.name_hint == "D"]
    assert d.res.type.get_shape() == (1, 6)
    assert d.parent_op() is i.op
    assert sch.trace[-2 if parallel else -1] == "compute_at D E.i local"
    a, b = random(5, 4), random(6, 4)
    (e,) = run(func, [a, b])
    np.testing.assert_allclose(e, ref(a, b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("channels", [8, 6])
def test_conv2d_with_packed_weights(channels) -> None:
    X = te.placeholder((1, 4, 5, 5), name="X")
    W = te.placeholder((channels, 4, 3, 3), name="W")
    out = topi.conv2d_nchw(X, W, padding=(1, 1, 1, 1))
    func = te.create_prim_func([X, W, out], "conv")
    sch = Schedule(func)
    packing = sch.transform_layout("W", lambda o, i, h, w: (o // 4, i, h, w, o % 4))
    sch.parallel(packing[0])
    _, f, y, x = sch.get_loops(out.name)
    f0, f1 = sch.split(f, [None, 4])
    sch.reorder(f0, y, x, f1)
    loops = sch.cache_write(out.name, x)
    sch.vectorize(loops.update[0])
    (packed,) = [
        op for op in func.walk() if isinstance(op, AllocateOp) and op.res.name_hint == "W_packed"
    ]
    assert packed.res.type.get_shape() == (2, 4, 3, 3, 4)
    rng = np.random.default_rng(1)
    xv = rng.uniform(-1, 1, (1, 4, 5, 5)).astype("float32")
    wv = rng.uniform(-1, 1, (channels, 4, 3, 3)).astype("float32")
    (got,) = run(func, [xv, wv])
    padded = np.pad(xv, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, channels, 5, 5), "float32")
    for dy in range(3):
        for dx in range(3):
            ref[0] += np.einsum(
                "chw,oc->ohw", padded[0, :, dy : dy + 5, dx : dx + 5], wv[:, :, dy, dx]
            )
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def test_stage_errors() -> None:
    func = _stencil()
    sch = Schedule(func)
    (y,) = sch.get_loops("C")
    with pytest.raises(ScheduleError, match="C is a function argument"):
        sch.compute_at("C", y)
    with pytest.raises(ScheduleError, match="gives negative indices"):
        sch.transform_layout("A", lambda i: (i - 1,))
    with pytest.raises(ScheduleError, match="takes 2 indices, the buffer has 1"):
        sch.transform_layout("A", lambda i, j: (j, i))
