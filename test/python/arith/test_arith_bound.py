"""xtvm.arith: exact integer folding and constant bounds from loop ranges."""

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, i8

from xtvm.arith import (
    BINARY_FOLDERS,
    Bound,
    compact_strides,
    const_int_bound,
    loop_extent,
    make_int_constant,
    prove_cmpi,
    row_major_offset,
    to_signed,
    trunc_div,
    trunc_rem,
)
from xtvm import te
from xtvm.dialects.tir import ForOp
from xtvm.te.expr import IntImm

INDEX = IndexType()


def const(value: int, ty=INDEX) -> arith.ConstantOp:
    return make_int_constant(value, ty)


def loop(lb: int, ub: int) -> ForOp:
    """A detached `tir.for` over [lb, ub) (its bounds are constants)."""
    return ForOp(const(lb), const(ub), [])


@pytest.mark.parametrize(
    ("op", "lhs", "rhs", "width", "expected"),
    [
        (arith.AddiOp, 100, 100, 8, -56),
        (arith.DivSIOp, -7, 2, 64, -3),
        (arith.FloorDivSIOp, -7, 2, 64, -4),
        (arith.CeilDivSIOp, -7, 2, 64, -3),
        (arith.RemSIOp, -7, 2, 64, -1),
        (arith.RemUIOp, -1, 10, 8, 5),
        (arith.ShRUIOp, -1, 4, 8, 15),
        (arith.DivSIOp, 1, 0, 64, None),
        (arith.ShLIOp, 1, 64, 64, None),
    ],
)
def test_folders_are_exact(op, lhs: int, rhs: int, width: int, expected) -> None:
    value = BINARY_FOLDERS[op](lhs, rhs, width)
    assert (None if value is None else to_signed(value, width)) == expected


def test_loop_variable_bounds_propagate() -> None:
    for_op = loop(0, 4)
    i = for_op.induction_var
    c8, c3 = const(8), const(3)
    mul = arith.MuliOp(i, c8)
    add = arith.AddiOp(mul, c3)
    div = arith.FloorDivSIOp(add, c8)
    rem = arith.RemSIOp(add, c8)
    assert const_int_bound(i) == Bound(0, 3)
    assert const_int_bound(mul.result) == Bound(0, 24)
    assert const_int_bound(add.result) == Bound(3, 27)
    assert const_int_bound(div.result) == Bound(0, 3)
    assert const_int_bound(rem.result) == Bound(0, 7)
    assert prove_cmpi(arith.CmpiOp(add, const(28), "slt")) is True
    assert prove_cmpi(arith.CmpiOp(add, const(27), "sge")) is None
    assert prove_cmpi(arith.CmpiOp(add, const(2), "eq")) is False


def test_overflowing_bounds_are_unknown() -> None:
    for_op = loop(0, 100)
    wide = arith.IndexCastOp(for_op.induction_var, i8)
    big = arith.MuliOp(wide, const(2, i8))
    assert const_int_bound(wide.result) == Bound(0, 99)
    assert const_int_bound(big.result) == Bound(None, None)


def test_loop_extent() -> None:
    assert loop_extent(loop(2, 9)) == 7
    assert loop_extent(loop(9, 2)) == 0
    n = loop(0, 4).induction_var
    ub = arith.AddiOp(n, const(3))
    assert loop_extent(ForOp(n, ub, [])) == 3
    assert loop_extent(ForOp(n, n, [])) == 0
    assert loop_extent(ForOp(n, const(5), [])) is None


def test_compact_strides() -> None:
    assert compact_strides([2, 3, 4]) == [12, 4, 1]
    assert compact_strides([]) == []


@pytest.mark.parametrize(
    ("a", "b", "quotient", "remainder"),
    [(7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1), (0, 5, 0, 0)],
)
def test_truncating_division_rounds_toward_zero(a: int, b: int, quotient: int, remainder: int):
    # One truncating division for the arith folders, the bounds and te's folding.
    assert (trunc_div(a, b), trunc_rem(a, b)) == (quotient, remainder)
    folded = BINARY_FOLDERS[arith.DivSIOp](a, b, 32), BINARY_FOLDERS[arith.RemSIOp](a, b, 32)
    assert folded == (quotient, remainder)
    x, y = IntImm(a, "int32"), IntImm(b, "int32")
    assert (te.truncdiv(x, y).value, te.truncmod(x, y).value) == (quotient, remainder)


def test_row_major_offset_builds_the_linear_index() -> None:
    # Symbolic terms show which operations run, in which order.
    def scale(index: str, stride: int) -> str:
        return f"{index}*{stride}"

    def add(total: str, term: str) -> str:
        return f"({total}+{term})"

    assert row_major_offset(["i", "j", "k"], [2, 3, 4], scale, add, lambda: "0") == "((i*12+j*4)+k)"
    assert row_major_offset([], [], scale, add, lambda: "0") == "0"
    assert row_major_offset([1, 2], [4, 8], lambda i, s: i * s, lambda a, b: a + b, lambda: 0) == 10
    with pytest.raises(ValueError):
        row_major_offset(["i"], [2, 3], scale, add, lambda: "0")
