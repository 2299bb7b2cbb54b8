"""cache_write (register blocking) on matmul and conv2d + bias + relu,
compiled and compared with NumPy, including tiles that do not divide."""

import numpy as np
import pytest
from schedule_testing import Schedule, kinds, matmul, random, run

from xtvm import te, topi
from xtvm.dialects.tir import AllocateOp
from xtvm.schedule import ScheduleError


@pytest.mark.parametrize(("shape", "relu"), [((8, 16, 32), False), ((10, 21, 7), True)])
def test_matmul_register_blocked(shape, relu) -> None:
    n, m, k = shape
    func, ref = matmul(n, m, k, relu=relu)
    out = "C" if relu else "D"
    sch = Schedule(func)
    i, j = sch.get_loops(out)
    i0, j0, i1, j1 = sch.tile(i, j, 4, 8)
    loops = sch.cache_write(out, j0)
    assert [rv.name for rv in loops.init] == ["D_acc.i.1_init", "D_acc.j.1_init"]
    assert loops.update[0].op is i1.op and loops.update[1].op is j1.op
    assert [rv.name for rv in loops.writeback] == [f"{out}.i.1_wb", f"{out}.j.1_wb"]
    for nest in (loops.init, loops.update, loops.writeback):
        sch.unroll(nest[0])
        sch.vectorize(nest[1])
    sch.parallel(i0)
    (acc,) = [op for op in func.walk() if isinstance(op, AllocateOp)]
    assert acc.res.type.get_shape() == (4, 8)
    a, b = random(n, k), random(m, k)
    (c,) = run(func, [a, b])
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-5, atol=1e-5)


def test_reduction_split_before_cache_write() -> None:
    func, ref = matmul(6, 8, 10)
    sch = Schedule(func)
    i, j = sch.get_loops("D")
    _, k = sch.get_loops("D_acc")[1:]
    sch.split(k, [None, 4])
    sch.split(j, [None, 4])
    loops = sch.cache_write("D", i)
    # the update nest: k.0, k.1 outside, then the spatial j.0, j.1
    names = [n for n, _ in kinds(func)]
    assert names[:3] == ["i", "j.0_init", "j.1_init"]
    assert names[3:7] == ["k.0", "k.1", "j.0", "j.1"]
    sch.vectorize(loops.update[-1])
    a, b = random(6, 10), random(8, 10)
    (c,) = run(func, [a, b])
    np.testing.assert_allclose(c, ref(a, b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("channels", "width"), [(8, 8), (6, 7)])
def test_conv2d_bias_relu(channels, width) -> None:
    X = te.placeholder((1, 3, 6, width), name="X")
    W = te.placeholder((channels, 3, 3, 3), name="W")
    bias = te.placeholder((channels,), name="bias")
    conv = topi.conv2d_nchw(X, W, padding=(1, 1, 1, 1))
    out = topi.relu(topi.bias_add(conv, bias))
    func = te.create_prim_func([X, W, bias, out], "conv")
    name = out.name
    sch = Schedule(func)
    _, f, y, x = sch.get_loops(name)
    f0, f1 = sch.split(f, [None, 4])
    x0, x1 = sch.split(x, [None, 4])
    sch.reorder(f0, y, x0, f1, x1)
    loops = sch.cache_write(name, x0)
    for nest in (loops.update, loops.writeback):
        sch.unroll(nest[0])
        sch.vectorize(nest[1])
    sch.parallel(f0)
    rng = np.random.default_rng(0)
    xv = rng.uniform(-1, 1, (1, 3, 6, width)).astype("float32")
    wv = rng.uniform(-1, 1, (channels, 3, 3, 3)).astype("float32")
    bv = rng.uniform(-1, 1, (channels,)).astype("float32")
    (got,) = run(func, [xv, wv, bv])
    padded = np.pad(xv, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, channels, 6, width), "float32")
    for o in range(channels):
        for dy in range(3):
            for dx in range(3):
                ref[0, o] += np.einsum(
                    "chw,c->hw", padded[0, :, dy : dy + 6, dx : dx + width], wv[o, :, dy, dx]
                )
    ref = np.maximum(ref + bv[None, :, None, None], 0)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def test_cache_write_errors() -> None:
    func, _ = matmul(4, 4, 4)
    sch = Schedule(func)
    i, j = sch.get_loops("D")
    with pytest.raises(ScheduleError, match="no loop lies between loop 'j' and the store into D"):
        sch.cache_write("D", j)
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    sch = Schedule(te.create_prim_func([A, B], "scale"))
    (i,) = sch.get_loops("B")
    with pytest.raises(ScheduleError, match="expected one store into A inside loop 'i', found 0"):
        sch.cache_write("A", i)
