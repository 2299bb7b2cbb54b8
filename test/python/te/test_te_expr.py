"""The tensor-expression tree: operators, promotion, folding, errors."""

import pytest

from xtvm import te
from xtvm.te import expr as E
from xtvm.te.traversal import substitute


def test_python_numbers_take_the_other_operands_dtype() -> None:
    A = te.placeholder((4,), "float64", name="A")
    i = E.Var("i")
    e = A[i] + 1
    assert isinstance(e, E.Add) and e.dtype == "float64"
    assert isinstance(e.b, E.FloatImm) and e.b.dtype == "float64"
    assert (i + 1).dtype == "index"


def test_promotion_float_over_int_and_wider_over_narrower() -> None:
    x = E.Var("x", "int32")
    y = E.Var("y", "float32")
    z = E.Var("z", "int64")
    s = x + y
    assert s.dtype == "float32" and isinstance(s.a, E.Cast)
    w = x * z
    assert w.dtype == "int64" and isinstance(w.a, E.Cast) and w.a.dtype == "int64"
    assert (x + E.Var("i")).dtype == "index"


def test_integer_folding_and_identities() -> None:
    i = E.Var("i")
    assert (i * 1 + 0) is i
    assert isinstance(i * 0, E.IntImm)
    assert (E.IntImm(7, "index") // 2).value == 3
    assert te.truncdiv(E.IntImm(-7, "index"), 2).value == -3
    assert te.floordiv(E.IntImm(-7, "index"), 2).value == -4
    assert te.truncmod(E.IntImm(-7, "index"), 2).value == -1
    assert te.floormod(E.IntImm(-7, "index"), 2).value == 1
    assert isinstance(te.truncmod(i, 1), E.IntImm)
    # int32 arithmetic wraps
    assert (E.IntImm(2**31 - 1) + 1).value == -(2**31)
    # division by a zero constant is left for run time
    assert isinstance(te.truncdiv(i, 0), E.Div)


def test_float_arithmetic_is_never_folded() -> None:
    s = te.const(0.1) + te.const(0.2)
    assert isinstance(s, E.Add)


def test_integer_true_division_is_an_error() -> None:
    with pytest.raises(TypeError, match="ambiguous"):
        E.Var("i") / 2


def test_equality_builds_a_comparison_whose_truth_is_identity() -> None:
    i, j = E.Var("i"), E.Var("j")
    eq = i == j
    assert isinstance(eq, E.EQ) and eq.dtype == "bool"
    assert not eq and (i == i)
    assert {i: 1}[i] == 1


def test_symbolic_truth_value_is_an_error() -> None:
    with pytest.raises(TypeError, match="if_then_else"):
        bool(E.Var("i") < 3)


def test_logical_operators_need_bool() -> None:
    i = E.Var("i")
    both = (i < 3) & (i > 0)
    assert isinstance(both, E.And)
    assert isinstance(~both, E.Not)
    with pytest.raises(TypeError, match="bool"):
        i & (i < 3)


def test_if_then_else_and_math_dtypes() -> None:
    x = E.Var("x", "float32")
    sel = te.if_then_else(x > 0.0, x, 0)
    assert isinstance(sel, E.Select) and sel.false_value.dtype == "float32"
    assert te.exp(x).dtype == "float32"
    with pytest.raises(TypeError, match="float"):
        te.exp(E.Var("n", "int32"))


def test_limits() -> None:
    assert te.max_value("int8").value == 127
    assert te.min_value("int8").value == -128
    assert te.max_value("uint16").value == 65535
    assert te.min_value("float32").value == pytest.approx(-3.4028234663852886e38)
    with pytest.raises(ValueError, match="unknown dtype"):
        te.max_value("float8")


def test_reducers() -> None:
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    r = te.sum(A[0, k], axis=k)
    assert isinstance(r, E.Reduce) and r.axis == (k,)
    assert isinstance(te.max(A[0, 0], 1.0), E.Max)  # elementwise form
    with pytest.raises(TypeError, match="reduce_axis"):
        te.sum(A[0, 0], axis=[E.Var("k")])
    with pytest.raises(TypeError, match="axis="):
        te.sum(A[0, 0])


def test_substitute_refolds() -> None:
    i, j = E.Var("i"), E.Var("j")
    e = i * 4 + j
    assert substitute(e, {i: E.IntImm(0, "index")}) is j
    assert repr(substitute(e, {j: E.IntImm(1, "index")})) == "((i * 4) + 1)"


def test_tensor_indexing_checks_rank_and_dtype() -> None:
    A = te.placeholder((2, 3), name="A")
    with pytest.raises(IndexError, match="needs 2 indices"):
        A[0]
    with pytest.raises(TypeError, match="expected an integer"):
        A[0, E.Var("x", "float32")]
    load = A[E.Var("n", "int32"), 1]
    assert load.indices[0].dtype == "index"


def test_compute_names_axes_after_the_lambda() -> None:
    C = te.compute((2, 3), lambda row, col: row * 3 + col, name="C")
    assert [a.var.name for a in C.op.axis] == ["row", "col"]
    assert C.dtype == "int32"  # index-typed bodies are stored as int32
    D = te.compute((2, 3), lambda *i: te.const(1.0), name="D")
    assert [a.var.name for a in D.op.axis] == ["i0", "i1"]
    with pytest.raises(ValueError, match="2 indices"):
        te.compute((2, 3), lambda i: i, name="E")


def test_reduction_must_be_the_whole_body() -> None:
    A = te.placeholder((4,), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(ValueError, match="whole body"):
        te.compute((1,), lambda i: te.sum(A[k], axis=k) + 1.0)


def test_bad_shapes() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        te.placeholder((2, -1))
    with pytest.raises(ValueError, match="lo <= hi"):
        te.reduce_axis((3, 1))
