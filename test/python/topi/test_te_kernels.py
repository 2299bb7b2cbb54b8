"""Tensor expressions compiled to native code: the semantics the emitter
promises (integer division variants, lazy selects, guarded reductions,
casts, limits), checked against NumPy."""

import numpy as np
from topi_testing import run_te

from xtvm import te


def test_integer_division_variants_and_guards() -> None:
    a = np.array([7, -7, 7, -7, 5, -2**31, 9], "int32")
    b = np.array([2, 2, -2, -2, 0, -1, 0], "int32")
    A = te.placeholder((7,), "int32", name="A")
    B = te.placeholder((7,), "int32", name="B")
    outs = [
        te.compute((7,), lambda i: te.truncdiv(A[i], B[i]), name="td"),
        te.compute((7,), lambda i: te.truncmod(A[i], B[i]), name="tm"),
        te.compute((7,), lambda i: te.floordiv(A[i], B[i]), name="fd"),
        te.compute((7,), lambda i: te.floormod(A[i], B[i]), name="fm"),
    ]
    td, tm, fd, fm = run_te([A, B, *outs], [a, b])
    ok = b[:4]
    np.testing.assert_array_equal(td[:4], np.trunc(a[:4] / ok).astype("int32"))
    np.testing.assert_array_equal(tm[:4], np.fmod(a[:4], ok))
    np.testing.assert_array_equal(fd[:4], a[:4] // ok)
    np.testing.assert_array_equal(fm[:4], a[:4] % ok)
    # x / 0 is x, x % 0 is 0, INT_MIN / -1 wraps: no trap
    assert td[4] == 5 and tm[4] == 0 and td[6] == 9
    assert td[5] == -(2**31) and tm[5] == 0


def test_float_floor_and_trunc_division() -> None:
    a = np.array([7.5, -7.5, 7.5, -7.5], "float32")
    b = np.array([2.0, 2.0, -2.0, -2.0], "float32")
    A = te.placeholder((4,), name="A")
    B = te.placeholder((4,), name="B")
    fd = te.compute((4,), lambda i: te.floordiv(A[i], B[i]), name="fd")
    fm = te.compute((4,), lambda i: te.floormod(A[i], B[i]), name="fm")
    tm = te.compute((4,), lambda i: te.truncmod(A[i], B[i]), name="tm")
    got_fd, got_fm, got_tm = run_te([A, B, fd, fm, tm], [a, b])
    np.testing.assert_allclose(got_fd, np.floor(a / b))
    np.testing.assert_allclose(got_fm, np.mod(a, b))
    np.testing.assert_allclose(got_tm, np.fmod(a, b))


def test_padding_select_never_reads_out_of_bounds() -> None:
    a = np.arange(1, 5, dtype="float32")
    A = te.placeholder((4,), name="A")
    P = te.compute(
        (8,), lambda i: te.if_then_else((i >= 2) & (i < 6), A[i - 2], -1.0), name="P"
    )
    (got,) = run_te([A, P], [a])
    np.testing.assert_array_equal(got, [-1, -1, 1, 2, 3, 4, -1, -1])


def test_reduction_with_condition_and_offset_axis() -> None:
    a = np.arange(10, dtype="int64")
    A = te.placeholder((10,), "int64", name="A")
    k = te.reduce_axis((1, 9), name="k")
    S = te.compute((1,), lambda i: te.sum(A[k], axis=k, where=k % 2 == 1), name="S")
    M = te.compute((1,), lambda i: te.min(A[k] * -1, axis=k), name="M")
    s, m = run_te([A, S, M], [a])
    assert s[0] == 1 + 3 + 5 + 7 and m[0] == -8


def test_casts() -> None:
    a = np.array([-1.75, 2.5, 300.0], "float32")
    n = np.array([-56, 7, -1], "int8")
    A = te.placeholder((3,), name="A")
    N = te.placeholder((3,), "int8", name="N")
    to_int = te.compute((3,), lambda i: A[i].astype("int32"), name="to_int")
    # int8 -> uint8 reinterprets, uint8 -> int32 zero-extends
    unsigned = te.compute((3,), lambda i: N[i].astype("uint8").astype("int32") + i.astype("int32"), name="u")
    to_f64 = te.compute((3,), lambda i: N[i].astype("uint8").astype("float64") / 2.0, name="f")
    nonzero = te.compute((3,), lambda i: (A[i] > 0.0).astype("int8"), name="nonzero")
    narrow = te.compute((3,), lambda i: A[i].astype("int32").astype("int8"), name="narrow")
    got = run_te([A, N, to_int, unsigned, to_f64, nonzero, narrow], [a, n])
    np.testing.assert_array_equal(got[0], [-1, 2, 300])
    np.testing.assert_array_equal(got[1], [200, 8, 257])
    np.testing.assert_array_equal(got[2], [100.0, 3.5, 127.5])
    np.testing.assert_array_equal(got[3], [0, 1, 1])
    np.testing.assert_array_equal(got[4], [-1, 2, 44])


def test_max_reduction_of_float_limits_and_math() -> None:
    a = np.array([[-3.0e38, -2.0e38], [0.25, 4.0]], "float32")
    A = te.placeholder((2, 2), name="A")
    k = te.reduce_axis((0, 2), name="k")
    M = te.compute((2,), lambda i: te.max(A[i, k], axis=k), name="M")
    L = te.compute((2, 2), lambda i, j: te.log(te.sqrt(te.exp(te.tanh(A[i, j])))), name="L")
    m, log = run_te([A, M, L], [a])
    np.testing.assert_array_equal(m, a.max(axis=1))
    np.testing.assert_allclose(log, np.tanh(a) / 2, rtol=1e-6, atol=1e-7)


def test_scalar_tensors() -> None:
    A = te.placeholder((), "float64", name="A")
    B = te.compute((), lambda: A[()] * 3.0, name="B")
    (got,) = run_te([A, B], [np.array(1.5)])
    assert got.shape == () and got == 4.5
