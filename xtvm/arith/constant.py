"""Integer constants of `arith`/`index` values: reading, making, wrapping, folding.

Integers are signless and two's complement; `index` is 64 bits wide (as in
generated code). Folding functions return None when the result is undefined
(division by zero, oversized shift), so the op is left in place.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

INDEX_BITWIDTH = 64
"""Width of `index` in generated code (x86-64)."""


def int_width(ty: Attribute) -> int | None:
    """Bit width of an integer or index type, None for anything else."""
    if isinstance(ty, IndexType):
        return INDEX_BITWIDTH
    if isinstance(ty, IntegerType):
        return ty.width.data
    return None


def is_int_like(ty: Attribute) -> bool:
    """True for scalar integer and index types."""
    return int_width(ty) is not None


def to_signed(value: int, width: int) -> int:
    """Wrap `value` to a `width`-bit two's complement signed integer."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def to_unsigned(value: int, width: int) -> int:
    """Wrap `value` to a `width`-bit unsigned integer."""
    return value & ((1 << width) - 1)


def signed_range(width: int) -> tuple[int, int]:
    """The inclusive range of a `width`-bit signed integer."""
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def int_constant(value: SSAValue) -> int | None:
    """The signed value of `value` if an `arith.constant` integer defines it."""
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        width = int_width(value.type)
        if width is not None:
            return to_signed(op.value.value.data, width)
    return None


def make_int_constant(value: int, ty: Attribute) -> arith.ConstantOp:
    """An `arith.constant` of integer or index type `ty`, wrapped to its width."""
    width = int_width(ty)
    assert width is not None, f"not an integer type: {ty}"
    return arith.ConstantOp(IntegerAttr(to_signed(value, width), ty), ty)


def trunc_div(a: int, b: int) -> int:
    """`a / b` rounded toward zero (C's and `arith.divsi`'s division); `b != 0`."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trunc_rem(a: int, b: int) -> int:
    """The remainder of `trunc_div`, with the sign of `a` (C's `%`)."""
    return a - b * trunc_div(a, b)


def _signed(f: Callable[[int, int], int | None]) -> Callable[[int, int, int], int | None]:
    return lambda a, b, w: f(a, b)


def _unsigned(f: Callable[[int, int], int | None]) -> Callable[[int, int, int], int | None]:
    return lambda a, b, w: f(to_unsigned(a, w), to_unsigned(b, w))


def _shift(f: Callable[[int, int, int], int]) -> Callable[[int, int, int], int | None]:
    return lambda a, b, w: f(a, b, w) if 0 <= b < w else None


BINARY_FOLDERS: dict[type[Operation], Callable[[int, int, int], int | None]] = {
    arith.AddiOp: _signed(lambda a, b: a + b),
    arith.SubiOp: _signed(lambda a, b: a - b),
    arith.MuliOp: _signed(lambda a, b: a * b),
    arith.DivSIOp: _signed(lambda a, b: trunc_div(a, b) if b else None),
    arith.DivUIOp: _unsigned(lambda a, b: a // b if b else None),
    arith.FloorDivSIOp: _signed(lambda a, b: a // b if b else None),
    arith.CeilDivSIOp: _signed(lambda a, b: -(-a // b) if b else None),
    arith.CeilDivUIOp: _unsigned(lambda a, b: -(-a // b) if b else None),
    arith.RemSIOp: _signed(lambda a, b: trunc_rem(a, b) if b else None),
    arith.RemUIOp: _unsigned(lambda a, b: a % b if b else None),
    arith.MinSIOp: _signed(min),
    arith.MaxSIOp: _signed(max),
    arith.MinUIOp: _unsigned(min),
    arith.MaxUIOp: _unsigned(max),
    arith.AndIOp: _signed(lambda a, b: a & b),
    arith.OrIOp: _signed(lambda a, b: a | b),
    arith.XOrIOp: _signed(lambda a, b: a ^ b),
    arith.ShLIOp: _shift(lambda a, b, w: a << b),
    arith.ShRSIOp: _shift(lambda a, b, w: a >> b),
    arith.ShRUIOp: _shift(lambda a, b, w: to_unsigned(a, w) >> b),
}
"""Exact semantics of the integer binary ops: `f(lhs, rhs, width)` on signed
inputs; the caller wraps the result to the width."""


def _cmp(pred: str, a: int, b: int, width: int) -> bool:
    if pred.startswith("u"):
        a, b = to_unsigned(a, width), to_unsigned(b, width)
    return {
        "eq": a == b,
        "ne": a != b,
        "slt": a < b,
        "sle": a <= b,
        "sgt": a > b,
        "sge": a >= b,
        "ult": a < b,
        "ule": a <= b,
        "ugt": a > b,
        "uge": a >= b,
    }[pred]


def cmpi_predicate(op: arith.CmpiOp) -> str:
    """The predicate mnemonic (`slt`, `eq`, ...) of an `arith.cmpi`."""
    return arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]


def fold_cmpi(pred: str, lhs: int, rhs: int, width: int) -> bool:
    """Evaluate an `arith.cmpi` predicate on two signed `width`-bit values."""
    return _cmp(pred, lhs, rhs, width)
