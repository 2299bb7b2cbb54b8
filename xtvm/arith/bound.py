"""Constant integer bounds of index expressions (TVM's `arith::ConstIntBound`).

`const_int_bound(v)` gives an inclusive interval `[lo, hi]` that contains
every value `v` can take; `None` stands for an unbounded side. Sources of
information are constants and `tir.for` loop variables (`lb <= i < ub`);
the arithmetic of `arith` propagates them. A result that may overflow its
type's signed range is reported as unbounded, so wrapping never produces a
wrong bound.

    %i = loop var of  tir.for %i = %c0 to %c4      -> [0, 3]
    %a = arith.muli %i, %c8 : index                 -> [0, 24]
    %b = arith.addi %a, %j : index  (j in [0, 7])   -> [0, 31]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import BlockArgument, Operation, SSAValue

from xtvm.arith.constant import (
    cmpi_predicate,
    int_constant,
    int_width,
    signed_range,
    trunc_div,
)
from xtvm.dialects.tir import ForOp

_MAX_DEPTH = 16
"""How many producer ops the analysis follows from the queried value."""


@dataclass(frozen=True)
class Bound:
    """An inclusive integer interval; None is an unbounded side."""

    lo: int | None
    hi: int | None

    @staticmethod
    def point(value: int) -> Bound:
        return Bound(value, value)

    @property
    def is_const(self) -> bool:
        return self.lo is not None and self.lo == self.hi

    def nonneg(self) -> bool:
        """True when every value is >= 0."""
        return self.lo is not None and self.lo >= 0

    def within(self, lo: int, hi: int) -> bool:
        """True when the interval lies inside `[lo, hi]`."""
        return self.lo is not None and self.hi is not None and lo <= self.lo and self.hi <= hi


UNKNOWN = Bound(None, None)


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _neg(a: int | None) -> int | None:
    return None if a is None else -a


def _union(a: Bound, b: Bound) -> Bound:
    lo = None if a.lo is None or b.lo is None else min(a.lo, b.lo)
    hi = None if a.hi is None or b.hi is None else max(a.hi, b.hi)
    return Bound(lo, hi)


def _mul(a: Bound, b: Bound) -> Bound:
    if None not in (a.lo, a.hi, b.lo, b.hi):
        products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]  # type: ignore[operator]
        return Bound(min(products), max(products))
    if b.is_const:
        a, b = b, a
    if a.is_const and a.lo is not None:
        c = a.lo
        if c >= 0:
            return Bound(None if b.lo is None else b.lo * c, None if b.hi is None else b.hi * c)
        return Bound(None if b.hi is None else b.hi * c, None if b.lo is None else b.lo * c)
    return UNKNOWN


def _div_by_const(a: Bound, c: int, div: Callable[[int, int], int]) -> Bound:
    """Bounds of a monotone division by a positive constant."""
    return Bound(None if a.lo is None else div(a.lo, c), None if a.hi is None else div(a.hi, c))


def _rem_by_const(a: Bound, c: int, signed: bool) -> Bound:
    if a.within(0, c - 1):
        return a
    if a.nonneg():
        return Bound(0, c - 1 if a.hi is None else min(a.hi, c - 1))
    return Bound(-(c - 1), c - 1) if signed else Bound(0, c - 1)


_HANDLED = (
    arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.MinSIOp, arith.MaxSIOp, arith.SelectOp,
    arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp,
    arith.FloorDivSIOp, arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp,
    arith.AndIOp, arith.ShRSIOp, arith.ShRUIOp, arith.ShLIOp,
)  # fmt: skip


def const_int_bound(value: SSAValue) -> Bound:
    """The constant interval `value` (an integer or index value) lies in."""
    return _Analysis().bound(value, _MAX_DEPTH)


class _Analysis:
    """One query: memoises the bound of every value it visits."""

    def __init__(self) -> None:
        self.cache: dict[SSAValue, Bound] = {}

    def bound(self, value: SSAValue, depth: int) -> Bound:
        if value in self.cache:
            return self.cache[value]
        width = int_width(value.type)
        if width is None:
            return UNKNOWN
        result = self._raw_bound(value, depth)
        lo, hi = signed_range(width)
        if (result.lo is not None and result.lo < lo) or (result.hi is not None and result.hi > hi):
            result = UNKNOWN
        self.cache[value] = result
        return result

    def _raw_bound(self, value: SSAValue, depth: int) -> Bound:
        const = int_constant(value)
        if const is not None:
            return Bound.point(const)
        if depth == 0:
            return UNKNOWN
        sub = depth - 1
        if isinstance(value, BlockArgument):
            loop = value.block.parent_op()
            if isinstance(loop, ForOp) and value.index == 0:
                lb, ub = self.bound(loop.lb, sub), self.bound(loop.ub, sub)
                return Bound(lb.lo, _add(ub.hi, -1))
            return UNKNOWN
        op = value.owner
        if not isinstance(op, _HANDLED):
            return UNKNOWN
        if isinstance(op, arith.SelectOp):
            return _union(self.bound(op.lhs, sub), self.bound(op.rhs, sub))
        return _combine(op, [self.bound(o, sub) for o in op.operands])


def _combine(op: Operation, operands: list[Bound]) -> Bound:
    """The bound of `op`'s result from its operands' bounds."""
    match op:
        case arith.AddiOp():
            a, b = operands
            return Bound(_add(a.lo, b.lo), _add(a.hi, b.hi))
        case arith.SubiOp():
            a, b = operands
            return Bound(_add(a.lo, _neg(b.hi)), _add(a.hi, _neg(b.lo)))
        case arith.MuliOp():
            return _mul(*operands)
        case arith.MinSIOp():
            a, b = operands
            lo = None if a.lo is None or b.lo is None else min(a.lo, b.lo)
            his = [h for h in (a.hi, b.hi) if h is not None]
            return Bound(lo, min(his) if his else None)
        case arith.MaxSIOp():
            a, b = operands
            los = [lo for lo in (a.lo, b.lo) if lo is not None]
            hi = None if a.hi is None or b.hi is None else max(a.hi, b.hi)
            return Bound(max(los) if los else None, hi)
        case arith.IndexCastOp() | arith.ExtSIOp():
            return operands[0]
        case arith.ExtUIOp() | arith.TruncIOp():
            return operands[0] if operands[0].nonneg() else UNKNOWN
    if len(operands) == 2 and operands[1].is_const and operands[1].lo is not None:
        a, c = operands[0], operands[1].lo
        match op:
            case arith.FloorDivSIOp() if c > 0:
                return _div_by_const(a, c, lambda x, y: x // y)
            case arith.DivSIOp() if c > 0:
                return _div_by_const(a, c, trunc_div)
            case arith.DivUIOp() if c > 0 and a.nonneg():
                return _div_by_const(a, c, lambda x, y: x // y)
            case arith.RemSIOp() if c > 0:
                return _rem_by_const(a, c, signed=True)
            case arith.RemUIOp() if c > 0:
                return _rem_by_const(a, c, signed=False)
            case arith.AndIOp() if c >= 0:
                return Bound(0, c if a.hi is None or not a.nonneg() else min(a.hi, c))
            case arith.ShRSIOp() | arith.ShRUIOp() if 0 <= c < 63 and a.nonneg():
                return _div_by_const(a, 1 << c, lambda x, y: x // y)
            case arith.ShLIOp() if 0 <= c < 63:
                return _mul(a, Bound.point(1 << c))
    return UNKNOWN


def prove_cmpi(op: arith.CmpiOp) -> bool | None:
    """The value of an `arith.cmpi` when the operands' bounds decide it, else None."""
    pred = cmpi_predicate(op)
    a, b = const_int_bound(op.lhs), const_int_bound(op.rhs)
    if pred.startswith("u"):
        if not (a.nonneg() and b.nonneg()):
            return None
        pred = "s" + pred[1:]

    def lt(x: Bound, y: Bound) -> bool | None:
        if x.hi is not None and y.lo is not None and x.hi < y.lo:
            return True
        if x.lo is not None and y.hi is not None and x.lo >= y.hi:
            return False
        return None

    def not_(v: bool | None) -> bool | None:
        return None if v is None else not v

    if pred == "slt":
        return lt(a, b)
    if pred == "sge":
        return not_(lt(a, b))
    if pred == "sgt":
        return lt(b, a)
    if pred == "sle":
        return not_(lt(b, a))
    if a.is_const and b.is_const:
        return (a.lo == b.lo) == (pred == "eq")
    if lt(a, b) is True or lt(b, a) is True:
        return pred == "ne"
    return None


def loop_extent(loop: ForOp) -> int | None:
    """The trip count of a `tir.for` when it is a constant (`ub - lb`), else None.

    Recognises constant bounds, `ub = lb` and `ub = lb + c`.
    """
    if loop.ub == loop.lb:
        return 0
    lb, ub = int_constant(loop.lb), int_constant(loop.ub)
    if lb is not None and ub is not None:
        return max(ub - lb, 0)
    owner = loop.ub.owner
    if isinstance(owner, arith.AddiOp):
        for x, y in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            c = int_constant(y)
            if x == loop.lb and c is not None:
                return max(c, 0)
    return None
