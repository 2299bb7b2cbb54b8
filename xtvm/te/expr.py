"""The scalar expression tree of tensor expressions (TVM's ``PrimExpr``).

Nodes are immutable and compared by identity; Python operators build them::

    i = Var("i")                    # an index variable
    e = A[i, k] * B[j, k] + 1.0     # ProducerLoad, Mul, Add (1.0 takes A's dtype)
    c = te.if_then_else(i < 3, e, 0.0)

Leaves: :class:`Var`, :class:`IntImm`, :class:`FloatImm`. Arithmetic:
:class:`Add`, :class:`Sub`, :class:`Mul`, :class:`Div` (float division, or
integer division truncating toward zero), :class:`Mod` (truncating),
:class:`FloorDiv`, :class:`FloorMod`, :class:`Min`, :class:`Max`. Logic:
comparisons (:class:`EQ`, :class:`NE`, :class:`LT`, :class:`LE`,
:class:`GT`, :class:`GE`; ``bool``), :class:`And`, :class:`Or`, :class:`Not`,
:class:`Select`. Others: :class:`Cast`, :class:`Call` (a math function, a C
function or an LLVM intrinsic), :class:`ProducerLoad` (an element of a
tensor), :class:`Reduce` (a commutative reduction, only at the root of a
compute body).

Operator semantics follow TVM's Python API: ``/`` is float division (an error
on two integers: use ``//``, ``%`` or ``te.truncdiv``), ``//`` and ``%`` are
floor division and modulo, ``==`` builds a comparison whose truth value (in
``if`` or a dict lookup) is identity. Operands of different dtypes are
promoted (float over int, wider over narrower, ``index`` over other
integers); Python numbers take the dtype of the other operand. Integer
arithmetic on constants is folded as it is built (``i * 1 + 0`` is ``i``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from xtvm.arith.constant import to_signed, to_unsigned, trunc_div, trunc_rem
from xtvm.te import dtype as dt

if TYPE_CHECKING:
    from xtvm.te.operation import Tensor
    from xtvm.te.reduction import CommReducer

_node = dataclass(frozen=True, eq=False, repr=False)


class ExprOp:
    """Python operators shared by expressions and iteration variables."""

    dtype: str

    def __add__(self, other: Any) -> PrimExpr:
        return binary(Add, self, other)

    def __radd__(self, other: Any) -> PrimExpr:
        return binary(Add, other, self)

    def __sub__(self, other: Any) -> PrimExpr:
        return binary(Sub, self, other)

    def __rsub__(self, other: Any) -> PrimExpr:
        return binary(Sub, other, self)

    def __mul__(self, other: Any) -> PrimExpr:
        return binary(Mul, self, other)

    def __rmul__(self, other: Any) -> PrimExpr:
        return binary(Mul, other, self)

    def __truediv__(self, other: Any) -> PrimExpr:
        return true_divide(self, other)

    def __rtruediv__(self, other: Any) -> PrimExpr:
        return true_divide(other, self)

    def __floordiv__(self, other: Any) -> PrimExpr:
        return binary(FloorDiv, self, other)

    def __rfloordiv__(self, other: Any) -> PrimExpr:
        return binary(FloorDiv, other, self)

    def __mod__(self, other: Any) -> PrimExpr:
        return binary(FloorMod, self, other)

    def __rmod__(self, other: Any) -> PrimExpr:
        return binary(FloorMod, other, self)

    def __neg__(self) -> PrimExpr:
        return binary(Mul, self, -1)

    def __lt__(self, other: Any) -> PrimExpr:
        return compare(LT, self, other)

    def __le__(self, other: Any) -> PrimExpr:
        return compare(LE, self, other)

    def __gt__(self, other: Any) -> PrimExpr:
        return compare(GT, self, other)

    def __ge__(self, other: Any) -> PrimExpr:
        return compare(GE, self, other)

    def __eq__(self, other: Any) -> PrimExpr:  # type: ignore[override]
        return compare(EQ, self, other)

    def __ne__(self, other: Any) -> PrimExpr:  # type: ignore[override]
        return compare(NE, self, other)

    def __and__(self, other: Any) -> PrimExpr:
        return logical(And, self, other)

    def __rand__(self, other: Any) -> PrimExpr:
        return logical(And, other, self)

    def __or__(self, other: Any) -> PrimExpr:
        return logical(Or, self, other)

    def __ror__(self, other: Any) -> PrimExpr:
        return logical(Or, other, self)

    def __invert__(self) -> PrimExpr:
        return Not(_as_bool(convert(self)))

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(
            f"the symbolic expression {self!r} has no Python truth value; "
            "use te.if_then_else to choose between expressions"
        )

    def astype(self, dtype: str) -> PrimExpr:
        """This expression converted to ``dtype``."""
        return cast(dtype, self)


class PrimExpr(ExprOp):
    """Base of every expression node; ``dtype`` is a TVM dtype string."""

    def __repr__(self) -> str:
        return format_expr(self)


@_node
class Var(PrimExpr):
    """A scalar variable: a loop (axis) variable when its dtype is ``index``."""

    name: str
    dtype: str = "index"


@_node
class IntImm(PrimExpr):
    """An integer (or ``bool``, or ``index``) constant."""

    value: int
    dtype: str = "int32"


@_node
class FloatImm(PrimExpr):
    """A floating-point constant."""

    value: float
    dtype: str = "float32"


@_node
class BinaryOp(PrimExpr):
    """Base of the arithmetic nodes: both operands have the result's dtype."""

    a: PrimExpr
    b: PrimExpr

    @property
    def dtype(self) -> str:
        return self.a.dtype


@_node
class Add(BinaryOp):
    """``a + b``."""


@_node
class Sub(BinaryOp):
    """``a - b``."""


@_node
class Mul(BinaryOp):
    """``a * b``."""


@_node
class Div(BinaryOp):
    """``a / b``: float division, or integer division truncating toward zero."""


@_node
class Mod(BinaryOp):
    """Remainder of :class:`Div` (its sign follows ``a``)."""


@_node
class FloorDiv(BinaryOp):
    """``floor(a / b)``."""


@_node
class FloorMod(BinaryOp):
    """``a - floor(a / b) * b`` (its sign follows ``b``)."""


@_node
class Min(BinaryOp):
    """``min(a, b)``."""


@_node
class Max(BinaryOp):
    """``max(a, b)``; NaN if either float operand is NaN (as NumPy)."""


@_node
class BoolBinaryOp(PrimExpr):
    """Base of the binary nodes with a ``bool`` result: comparisons and
    logical ops."""

    a: PrimExpr
    b: PrimExpr

    @property
    def dtype(self) -> str:
        return "bool"


@_node
class CmpOp(BoolBinaryOp):
    """Base of the comparisons: operands of one dtype, a ``bool`` result."""


@_node
class EQ(CmpOp):
    """``a == b``; as a Python truth value: whether ``a`` and ``b`` are one node."""

    def __bool__(self) -> bool:
        return self.a is self.b


@_node
class NE(CmpOp):
    """``a != b``; as a Python truth value: whether ``a`` and ``b`` are distinct nodes."""

    def __bool__(self) -> bool:
        return self.a is not self.b


@_node
class LT(CmpOp):
    """``a < b``."""


@_node
class LE(CmpOp):
    """``a <= b``."""


@_node
class GT(CmpOp):
    """``a > b``."""


@_node
class GE(CmpOp):
    """``a >= b``."""


@_node
class LogicalOp(BoolBinaryOp):
    """Base of :class:`And` and :class:`Or`: two ``bool`` operands."""


@_node
class And(LogicalOp):
    """Logical ``a and b`` of two ``bool`` operands."""


@_node
class Or(LogicalOp):
    """Logical ``a or b`` of two ``bool`` operands."""


@_node
class Not(PrimExpr):
    """Logical negation of a ``bool`` operand."""

    a: PrimExpr

    @property
    def dtype(self) -> str:
        return "bool"


@_node
class Select(PrimExpr):
    """``true_value if condition else false_value``. Only the chosen value is
    evaluated, so a branch may hold a load that is out of bounds when not taken
    (TVM's ``if_then_else``)."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr

    @property
    def dtype(self) -> str:
        return self.true_value.dtype


@_node
class Cast(PrimExpr):
    """``value`` converted to ``dtype`` (float to int truncates toward zero)."""

    value: PrimExpr
    dtype: str


@_node
class Call(PrimExpr):
    """A call of a scalar function. ``kind`` says which: ``"math"`` (``op`` is
    an xDSL ``math`` dialect op such as ``exp``), ``"extern"`` (a C function,
    ``tir.call_extern``) or ``"intrin"`` (an LLVM intrinsic, ``tir.call_intrin``)."""

    dtype: str
    op: str
    args: tuple[PrimExpr, ...]
    kind: Literal["math", "extern", "intrin"] = "math"


@_node
class ProducerLoad(PrimExpr):
    """The element ``producer[indices]`` of a tensor; indices are ``index`` expressions."""

    producer: Tensor
    indices: tuple[PrimExpr, ...]

    @property
    def dtype(self) -> str:
        return self.producer.dtype


@_node
class Reduce(PrimExpr):
    """``combiner`` folded over ``source`` for every point of ``axis`` where
    ``condition`` holds (all points when it is None), starting from the
    combiner's identity. Allowed only as the whole body of a compute."""

    combiner: CommReducer
    source: PrimExpr
    axis: tuple[IterVar, ...]
    condition: PrimExpr | None = None

    @property
    def dtype(self) -> str:
        return self.source.dtype


@dataclass(frozen=True, eq=False)
class IterVar(ExprOp):
    """An iteration variable: ``var`` ranging over ``[lo, hi)``. ``kind`` is
    ``"data_par"`` for the axes of a compute and ``"comm_reduce"`` for
    reduction axes. Usable wherever an expression is (it stands for ``var``)."""

    var: Var
    lo: int
    hi: int | PrimExpr
    kind: Literal["data_par", "comm_reduce"] = "data_par"

    @property
    def dtype(self) -> str:
        return self.var.dtype

    @property
    def extent(self) -> int | PrimExpr:
        """``hi - lo``: an ``int``, or an expression when ``hi`` is a shape
        variable's (see :mod:`xtvm.te.symbolic`)."""
        return self.hi - self.lo

    def __repr__(self) -> str:
        return f"iter_var({self.var.name}, [{self.lo}, {self.hi}))"


# -- construction: conversion, promotion, folding ---------------------------------


def convert(value: Any, hint: str | None = None) -> PrimExpr:
    """``value`` as an expression: Python numbers become constants of dtype
    ``hint`` when it fits (``int32``/``float32`` otherwise)."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, IterVar):
        return value.var
    if isinstance(value, bool):
        return IntImm(int(value), "bool")
    if isinstance(value, int):
        if hint is not None and dt.is_float(hint):
            return FloatImm(float(value), hint)
        return IntImm(value, hint if hint is not None and dt.is_int(hint) else "int32")
    if isinstance(value, float):
        return FloatImm(value, hint if hint is not None and dt.is_float(hint) else "float32")
    raise TypeError(f"cannot use {value!r} of type {type(value).__name__} in a tensor expression")


def _promote(a: str, b: str) -> str:
    if dt.is_float(a) or dt.is_float(b):
        if dt.is_float(a) and dt.is_float(b):
            return a if dt.bits(a) >= dt.bits(b) else b
        return a if dt.is_float(a) else b
    if "index" in (a, b):
        return "index"
    return a if dt.bits(a) >= dt.bits(b) else b


def _operands(x: Any, y: Any) -> tuple[PrimExpr, PrimExpr]:
    """Convert and promote two operands to one dtype."""
    if isinstance(x, ExprOp) and not isinstance(y, ExprOp):
        a = convert(x)
        b = convert(y, a.dtype)
    elif isinstance(y, ExprOp) and not isinstance(x, ExprOp):
        b = convert(y)
        a = convert(x, b.dtype)
    else:
        a, b = convert(x), convert(y)
    if a.dtype != b.dtype:
        target = _promote(a.dtype, b.dtype)
        a, b = cast(target, a), cast(target, b)
    return a, b


def _wrap(value: int, dtype: str) -> int:
    """``value`` wrapped to ``dtype``'s two's complement range."""
    if dtype == "bool":
        return int(value != 0)
    wrap = to_unsigned if dt.is_uint(dtype) else to_signed
    return wrap(value, dt.bits(dtype))


_FOLD_INT: dict[type[BinaryOp], Callable[[int, int], int]] = {
    Add: lambda a, b: a + b,
    Sub: lambda a, b: a - b,
    Mul: lambda a, b: a * b,
    Div: trunc_div,
    Mod: trunc_rem,
    FloorDiv: lambda a, b: a // b,
    FloorMod: lambda a, b: a % b,
    Min: min,
    Max: max,
}


def _fold(cls: type[BinaryOp], a: PrimExpr, b: PrimExpr) -> PrimExpr | None:
    """Integer simplifications at construction; float maths is never folded
    (Python would compute it in double precision)."""
    if not dt.is_int(a.dtype):
        return None
    ca = a.value if isinstance(a, IntImm) else None
    cb = b.value if isinstance(b, IntImm) else None
    if ca is not None and cb is not None:
        if cls in (Div, Mod, FloorDiv, FloorMod) and cb == 0:
            return None
        return IntImm(_wrap(_FOLD_INT[cls](ca, cb), a.dtype), a.dtype)
    if cls is Add and cb == 0 or cls is Sub and cb == 0:
        return a
    if cls is Add and ca == 0:
        return b
    if cls is Mul and (cb == 1 or ca == 0):
        return a
    if cls is Mul and (ca == 1 or cb == 0):
        return b
    if cls in (Div, FloorDiv) and cb == 1:
        return a
    if cls in (Mod, FloorMod) and cb == 1:
        return IntImm(0, a.dtype)
    return None


def binary(cls: type[BinaryOp], x: Any, y: Any) -> PrimExpr:
    """The node ``cls(x, y)`` after promotion and integer folding."""
    a, b = _operands(x, y)
    if a.dtype == "bool":
        raise TypeError(f"{cls.__name__} is not defined on bool operands ({a!r}, {b!r})")
    folded = _fold(cls, a, b)
    return folded if folded is not None else cls(a, b)


def true_divide(x: Any, y: Any) -> PrimExpr:
    """``x / y`` on floats; integers must say which rounding they want."""
    a, b = _operands(x, y)
    if not dt.is_float(a.dtype):
        raise TypeError(
            f"'/' on integer expressions ({a!r} / {b!r}) is ambiguous: use '//' "
            "(floor division) or te.truncdiv"
        )
    return Div(a, b)


def compare(cls: type[CmpOp], x: Any, y: Any) -> PrimExpr:
    a, b = _operands(x, y)
    return cls(a, b)


def _as_bool(e: PrimExpr) -> PrimExpr:
    if e.dtype != "bool":
        raise TypeError(f"expected a bool expression, got {e!r} of dtype {e.dtype}")
    return e


def logical(cls: type[And] | type[Or], x: Any, y: Any) -> PrimExpr:
    return cls(_as_bool(convert(x, "bool")), _as_bool(convert(y, "bool")))


def cast(dtype: str, value: Any) -> PrimExpr:
    """``value`` converted to ``dtype`` (constants are converted at once)."""
    dt.check_dtype(dtype)
    e = convert(value, dtype)
    if e.dtype == dtype:
        return e
    if dt.is_reduced_float(dtype) or dt.is_reduced_float(e.dtype):
        from xtvm.te.reduced_float import convert_float  # it builds on this module

        return convert_float(e, dtype)
    if isinstance(e, IntImm) and dt.is_int(dtype):
        return IntImm(_wrap(e.value, dtype), dtype)
    if isinstance(e, IntImm | FloatImm) and dt.is_float(dtype):
        return FloatImm(float(e.value), dtype)
    return Cast(e, dtype)


# -- printing ----------------------------------------------------------------------

_SYMBOLS: dict[type[PrimExpr], str] = {
    Add: "+",
    Sub: "-",
    Mul: "*",
    Div: "/",
    Mod: "%",
    FloorDiv: "//",
    FloorMod: "floormod",
    EQ: "==",
    NE: "!=",
    LT: "<",
    LE: "<=",
    GT: ">",
    GE: ">=",
    And: "&&",
    Or: "||",
}


def format_expr(e: PrimExpr) -> str:
    """A readable infix form, for error messages and debugging."""
    if isinstance(e, Var):
        return e.name
    if isinstance(e, IntImm):
        return str(e.value) if e.dtype in ("int32", "index") else f"{e.dtype}({e.value})"
    if isinstance(e, FloatImm):
        return repr(e.value) if e.dtype == "float32" else f"{e.dtype}({e.value!r})"
    if isinstance(e, Min | Max | FloorMod):
        return f"{type(e).__name__.lower()}({e.a!r}, {e.b!r})"
    if isinstance(e, BinaryOp | CmpOp | LogicalOp):
        return f"({e.a!r} {_SYMBOLS[type(e)]} {e.b!r})"
    if isinstance(e, Not):
        return f"!{e.a!r}"
    if isinstance(e, Select):
        return f"select({e.condition!r}, {e.true_value!r}, {e.false_value!r})"
    if isinstance(e, Cast):
        return f"{e.dtype}({e.value!r})"
    if isinstance(e, Call):
        return f"{e.op}({', '.join(repr(a) for a in e.args)})"
    if isinstance(e, ProducerLoad):
        return f"{e.producer.name}[{', '.join(repr(i) for i in e.indices)}]"
    if isinstance(e, Reduce):
        axes = ", ".join(a.var.name for a in e.axis)
        where = "" if e.condition is None else f", where={e.condition!r}"
        return f"{e.combiner.name}({e.source!r}, axis=[{axes}]{where})"
    return type(e).__name__
