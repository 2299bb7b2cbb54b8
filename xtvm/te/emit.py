"""Expressions to ops: a tensor expression becomes ``arith``, ``math`` and
``tir`` ops appended to a block.

Signed integers are signless in the IR and unsigned ones keep their
signedness (``ui8``); the dtype picks signed or unsigned ops. An unsigned
constant is a signless ``arith.constant`` and an ``arith.bitcast``.
Constants go to a pool placed at the top of the function (one
``arith.constant`` per value and type). Integer division by a non-constant
divisor is guarded so that data never traps the process: ``x / 0`` gives
``x`` and ``x % 0`` gives 0, and ``INT_MIN / -1`` wraps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, MemRefType, i32, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xtvm.dialects import tir
from xtvm.te import dtype as dt
from xtvm.te.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    BinaryOp,
    Call,
    Cast,
    CmpOp,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    PrimExpr,
    ProducerLoad,
    Select,
    Sub,
    Var,
)
from xtvm.te.operation import Tensor
from xtvm.te.traversal import walk

_MATH_OPS: dict[str, type[Operation]] = {
    # maths on floats
    "exp": math.ExpOp,
    "log": math.LogOp,
    "sqrt": math.SqrtOp,
    "tanh": math.TanhOp,
    "floor": math.FloorOp,
    "ceil": math.CeilOp,
    "trunc": math.TruncOp,
    "roundeven": math.RoundEvenOp,
    "sin": math.SinOp,
    "cos": math.CosOp,
    "tan": math.TanOp,
    "asin": math.AsinOp,
    "acos": math.AcosOp,
    "atan": math.AtanOp,
    "sinh": math.SinhOp,
    "cosh": math.CoshOp,
    "asinh": math.AsinhOp,
    "acosh": math.AcoshOp,
    "atanh": math.AtanhOp,
    "erf": math.ErfOp,
    "absf": math.AbsFOp,
    "powf": math.PowFOp,
    "copysign": math.CopySignOp,
    # integers: |x| and the bit operations, which have no expression node
    "absi": math.AbsIOp,
    "andi": arith.AndIOp,
    "ori": arith.OrIOp,
    "xori": arith.XOrIOp,
    "shli": arith.ShLIOp,
    "shrsi": arith.ShRSIOp,
    "shrui": arith.ShRUIOp,
    # branch-free selection (te.eager_select)
    "select": arith.SelectOp,
}
"""The ops computing ``Call`` nodes of kind ``"math"``, by ``Call.op``."""

_SIMPLE: dict[type[BinaryOp], tuple[type[Operation], type[Operation], type[Operation]]] = {
    # node: (signed int op, unsigned int op, float op)
    Add: (arith.AddiOp, arith.AddiOp, arith.AddfOp),
    Sub: (arith.SubiOp, arith.SubiOp, arith.SubfOp),
    Mul: (arith.MuliOp, arith.MuliOp, arith.MulfOp),
    Min: (arith.MinSIOp, arith.MinUIOp, arith.MinimumfOp),
    Max: (arith.MaxSIOp, arith.MaxUIOp, arith.MaximumfOp),
}

_PREDICATES: dict[type[CmpOp], tuple[str, str, str]] = {
    # node: (signed, unsigned, float) predicate
    EQ: ("eq", "eq", "oeq"),
    NE: ("ne", "ne", "une"),
    LT: ("slt", "ult", "olt"),
    LE: ("sle", "ule", "ole"),
    GT: ("sgt", "ugt", "ogt"),
    GE: ("sge", "uge", "oge"),
}


def _unsigned(dtype: str) -> bool:
    return dt.is_uint(dtype) or dtype == "bool"


def _constant_name(value: int | float, dtype: str) -> str:
    if dt.is_float(dtype):
        return "cst"
    if dtype == "bool":
        return "true" if value else "false"
    return f"c{value}" if dtype == "index" else f"c{value}_{dt.to_xdsl(dtype)}"



def _check_computable(e: PrimExpr) -> None:
    """Raise when ``e`` computes on a storage-only float (bfloat16, float8):
    those are only loaded, stored, selected and converted; arithmetic on
    them is done in float32 after a cast."""
    dtypes = [e.dtype, *(a.dtype for a in getattr(e, "args", ()))]
    dtypes += [getattr(e, x).dtype for x in ("a", "b") if hasattr(e, x)]
    for dtype in dtypes:
        if dt.is_reduced_float(dtype):
            raise ValueError(
                f"{type(e).__name__ if not isinstance(e, Call) else e.op} does not compute on "
                f"{dtype} (a storage-only type): cast to float32 first"
            )
        selects = isinstance(e, Call) and e.op == "select"  # data movement, allowed
        if dtype in dt.SUB_BYTE_INT_DTYPES and not selects:  # ONNX computes wider
            raise ValueError(
                f"{type(e).__name__ if not isinstance(e, Call) else e.op} does not compute on "
                f"{dtype} (a sub-byte storage type): cast to int8 or int32 first"
            )

class ConstantPool:
    """One ``arith.constant`` per (value, dtype), placed at the top of a block."""

    def __init__(self) -> None:
        self._values: dict[tuple[int | str, str], SSAValue] = {}
        self._ops: list[Operation] = []

    def get(self, value: int | float, dtype: str) -> SSAValue:
        # floats by their exact bits: 0.0 and -0.0 are different constants
        key = (float(value).hex() if dt.is_float(dtype) else int(value), dtype)
        if key not in self._values:
            ty = dt.to_xdsl(dtype)
            if dt.is_float(dtype):
                attr: Attribute = FloatAttr(float(value), ty)  # type: ignore[arg-type]
            else:
                # arith.constant is signless: an unsigned one is a bitcast of it
                signless = IntegerType(dt.bits(dtype)) if dt.is_uint(dtype) else ty
                attr = IntegerAttr(int(value), signless)  # type: ignore[arg-type]
            op = arith.ConstantOp(attr, attr.type)
            op.result.name_hint = _constant_name(value, dtype)
            self._ops.append(op)
            result = op.result
            if dt.is_uint(dtype):
                cast = arith.BitcastOp(result, ty)
                cast.result.name_hint = op.result.name_hint
                op.result.name_hint = _constant_name(value, f"int{dt.bits(dtype)}")
                self._ops.append(cast)
                result = cast.result
            self._values[key] = result
        return self._values[key]

    def index(self, value: int) -> SSAValue:
        return self.get(value, "index")

    def place_at_start(self, block: Block) -> None:
        """Insert every constant made so far at the start of ``block``."""
        first = block.first_op
        for op in self._ops:
            if first is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, first)
        self._ops = []


Memo = dict[int, tuple[PrimExpr, SSAValue]]
"""Values of expression nodes already computed, by node identity (the node
is kept so that its identity is not reused)."""


@dataclass
class BufferRef:
    """Where a tensor's elements live: a buffer indexed like the tensor, or a
    one-element accumulator (``scalar``) standing for the element being
    computed, which may hold a wider ``stored`` dtype than the tensor's."""

    buffer: SSAValue
    scalar: bool = False
    stored: str | None = None


def _is_safe(expr: PrimExpr, computed: Memo) -> bool:
    """Whether evaluating ``expr`` can never fault, so both values of a select
    may be computed: no loads (but those already ``computed``), no external
    calls, no integer division by a variable."""
    for e in walk(expr):
        if isinstance(e, ProducerLoad) and id(e) not in computed:
            return False
        if isinstance(e, Call) and e.kind != "math":
            return False
        if (
            isinstance(e, Div | Mod | FloorDiv | FloorMod)
            and dt.is_int(e.dtype)
            and not isinstance(e.b, IntImm)
        ):
            return False
    return True


class ExprEmitter:
    """Appends the ops computing expressions to the current block.

    ``vars`` binds variables (by identity) to SSA values, ``buffers`` binds
    tensors to where their elements live.
    """

    def __init__(self, consts: ConstantPool, block: Block):
        self.consts = consts
        self.block = block
        self.vars: dict[int, SSAValue] = {}
        self.buffers: dict[int, BufferRef] = {}

    # -- building blocks ------------------------------------------------------------

    def add(self, op: Operation) -> SSAValue:
        """Append ``op``; return its first result (or nothing useful if none)."""
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    @contextmanager
    def at(self, block: Block) -> Iterator[None]:
        """Append to ``block`` inside the ``with``."""
        outer, self.block = self.block, block
        try:
            yield
        finally:
            self.block = outer

    def bind(self, var: Var, value: SSAValue) -> None:
        self.vars[id(var)] = value

    def load(self, tensor: Tensor, indices: list[SSAValue]) -> SSAValue:
        ref = self.buffers[id(tensor)]
        if ref.scalar:
            value = self.add(tir.LoadOp(ref.buffer, [self.consts.index(0)]))
            return self.convert(value, ref.stored or tensor.dtype, tensor.dtype)
        return self.add(tir.LoadOp(ref.buffer, indices))

    # -- expressions ----------------------------------------------------------------

    def emit(self, expr: PrimExpr, memo: Memo | None = None) -> SSAValue:
        """The value of ``expr``; a node shared in the tree is computed once.
        ``memo`` holds nodes already computed in a dominating block (it gains
        the nodes computed here)."""
        return self._emit(expr, {} if memo is None else memo)

    def _emit(self, e: PrimExpr, memo: Memo) -> SSAValue:
        if id(e) in memo:
            return memo[id(e)][1]
        value = self._emit_node(e, memo)
        memo[id(e)] = (e, value)
        return value

    def _emit_node(self, e: PrimExpr, memo: Memo) -> SSAValue:
        sub: Callable[[PrimExpr], SSAValue] = lambda x: self._emit(x, memo)  # noqa: E731
        if isinstance(e, Var):
            if id(e) not in self.vars:
                raise ValueError(f"variable {e.name} is not bound in this scope")
            return self.vars[id(e)]
        if isinstance(e, IntImm | FloatImm):
            return self.consts.get(e.value, e.dtype)
        if isinstance(e, ProducerLoad):
            if id(e.producer) not in self.buffers:
                raise ValueError(f"tensor {e.producer.name} is not an argument of the function")
            return self.load(e.producer, [sub(i) for i in e.indices])
        if isinstance(e, BinaryOp | CmpOp) or (isinstance(e, Call) and e.op != "reinterpret"):
            _check_computable(e)
        if isinstance(e, BinaryOp):
            return self._binary(e, sub(e.a), sub(e.b))
        if isinstance(e, CmpOp):
            return self._compare(e, sub(e.a), sub(e.b))
        if isinstance(e, And | Or):
            cls = arith.AndIOp if isinstance(e, And) else arith.OrIOp
            return self.add(cls(sub(e.a), sub(e.b)))
        if isinstance(e, Not):
            return self.add(arith.XOrIOp(sub(e.a), self.consts.get(1, "bool")))
        if isinstance(e, Select):
            return self._select(e, memo)
        if isinstance(e, Cast):
            return self.convert(sub(e.value), e.value.dtype, e.dtype)
        if isinstance(e, Call):
            return self._call(e, [sub(a) for a in e.args])
        raise ValueError(f"cannot emit {type(e).__name__} {e!r} here")

    def _binary(self, e: BinaryOp, a: SSAValue, b: SSAValue) -> SSAValue:
        dtype = e.dtype
        if type(e) in _SIMPLE:
            signed, unsigned, floating = _SIMPLE[type(e)]
            cls = floating if dt.is_float(dtype) else unsigned if _unsigned(dtype) else signed
            return self.add(cls(a, b))  # type: ignore[call-arg]
        if dt.is_float(dtype):
            return self._float_division(e, a, b)
        return self._int_division(e, a, b)

    def _float_division(self, e: BinaryOp, a: SSAValue, b: SSAValue) -> SSAValue:
        """``/``, ``floor(a / b)``, C's ``fmod`` (the remainder of ``Mod``,
        exact), and NumPy's ``mod`` (``FloorMod``: ``fmod`` moved into
        ``b``'s sign, a zero remainder taking ``b``'s sign)."""
        if isinstance(e, Div):
            return self.add(arith.DivfOp(a, b))
        if isinstance(e, FloorDiv):
            return self.add(math.FloorOp(self.add(arith.DivfOp(a, b))))
        r = self._fmod(a, b, e.dtype)
        if isinstance(e, Mod):
            return r
        zero = self.consts.get(0.0, e.dtype)
        nonzero = self.add(arith.CmpfOp(r, zero, "une"))  # NaN stays NaN either way
        signs = self.add(
            arith.XOrIOp(
                self.add(arith.CmpfOp(r, zero, "olt")), self.add(arith.CmpfOp(b, zero, "olt"))
            )
        )
        adjust = self.add(arith.AndIOp(nonzero, signs))
        moved = self.add(arith.SelectOp(adjust, self.add(arith.AddfOp(r, b)), r))
        signed_zero = self.add(math.CopySignOp(zero, b))
        return self.add(arith.SelectOp(nonzero, moved, signed_zero))

    def _fmod(self, a: SSAValue, b: SSAValue, dtype: str) -> SSAValue:
        """C's ``fmod`` from libm (``fmodf`` for float32, and for float16
        through float32)."""
        if dtype == "float64":
            return self.add(tir.CallExternOp("fmod", [a, b], [a.type]))
        if dtype == "float32":
            return self.add(tir.CallExternOp("fmodf", [a, b], [a.type]))
        wide = [self.convert(v, dtype, "float32") for v in (a, b)]
        r = self.add(tir.CallExternOp("fmodf", wide, [dt.to_xdsl("float32")]))
        return self.convert(r, "float32", dtype)

    def _int_division(self, e: BinaryOp, a: SSAValue, b: SSAValue) -> SSAValue:
        dtype = e.dtype
        if _unsigned(dtype):
            if not isinstance(e.b, IntImm):
                zero = self.add(arith.CmpiOp(b, self.consts.get(0, dtype), "eq"))
                b = self.add(arith.SelectOp(zero, self.consts.get(1, dtype), b))
            cls = arith.DivUIOp if isinstance(e, Div | FloorDiv) else arith.RemUIOp
            return self.add(cls(a, b))
        minus_one = None
        if not isinstance(e.b, IntImm):
            zero = self.add(arith.CmpiOp(b, self.consts.get(0, dtype), "eq"))
            minus_one = self.add(arith.CmpiOp(b, self.consts.get(-1, dtype), "eq"))
            trap = self.add(arith.OrIOp(zero, minus_one))
            b = self.add(arith.SelectOp(trap, self.consts.get(1, dtype), b))
        if isinstance(e, Div | FloorDiv):
            q = self.add(arith.DivSIOp(a, b))
            if minus_one is not None:  # a / -1 is -a (wrapping at INT_MIN)
                neg = self.add(arith.SubiOp(self.consts.get(0, dtype), a))
                q = self.add(arith.SelectOp(minus_one, neg, q))
            if isinstance(e, Div):
                return q
        r = self.add(arith.RemSIOp(a, b))
        if isinstance(e, Mod):
            return r
        # floor rounding: adjust when the remainder is nonzero and its sign differs from b's
        zero = self.consts.get(0, dtype)
        nonzero = self.add(arith.CmpiOp(r, zero, "ne"))
        signs = self.add(
            arith.XOrIOp(
                self.add(arith.CmpiOp(r, zero, "slt")), self.add(arith.CmpiOp(b, zero, "slt"))
            )
        )
        adjust = self.add(arith.AndIOp(nonzero, signs))
        if isinstance(e, FloorDiv):
            one = self.add(arith.SelectOp(adjust, self.consts.get(1, dtype), zero))
            return self.add(arith.SubiOp(q, one))
        return self.add(arith.AddiOp(r, self.add(arith.SelectOp(adjust, b, zero))))

    def _compare(self, e: CmpOp, a: SSAValue, b: SSAValue) -> SSAValue:
        dtype = e.a.dtype
        signed, unsigned, floating = _PREDICATES[type(e)]
        if dt.is_float(dtype):
            return self.add(arith.CmpfOp(a, b, floating))
        return self.add(arith.CmpiOp(a, b, unsigned if _unsigned(dtype) else signed))

    def _select(self, e: Select, memo: Memo) -> SSAValue:
        cond = self._emit(e.condition, memo)
        if _is_safe(e.true_value, memo) and _is_safe(e.false_value, memo):
            t = self._emit(e.true_value, memo)
            f = self._emit(e.false_value, memo)
            return self.add(arith.SelectOp(cond, t, f))
        # Evaluate only the chosen value: branch into a one-element local buffer.
        tmp = self.add(tir.AllocateOp(MemRefType(dt.to_xdsl(e.dtype), [1]), "local"))
        tmp.name_hint = "select"
        c0 = self.consts.index(0)
        branches = []
        for value in (e.true_value, e.false_value):
            block = Block()
            with self.at(block):
                self.add(tir.StoreOp(self._emit(value, dict(memo)), tmp, [c0]))
            branches.append(block)
        self.add(tir.IfOp(cond, branches[0], branches[1]))
        return self.add(tir.LoadOp(tmp, [c0]))

    def _call(self, e: Call, args: list[SSAValue]) -> SSAValue:
        ty = dt.to_xdsl(e.dtype)
        if e.kind == "math":
            if e.op == "reinterpret":  # te.reinterpret: same width, another type
                return self.add(arith.BitcastOp(args[0], ty))
            if e.op not in _MATH_OPS:
                raise ValueError(f"no math op for {e.op!r}; known: {', '.join(_MATH_OPS)}")
            return self.add(_MATH_OPS[e.op](*args))  # type: ignore[call-arg]
        cls = tir.CallExternOp if e.kind == "extern" else tir.CallIntrinOp
        return self.add(cls(e.op, args, [ty]))

    def _float_to_sub_byte(self, v: SSAValue, dst: str) -> SSAValue:
        """A float to ``int4``/``uint4``/``int2``/``uint2``: truncated toward
        zero in int32; NaN and values out of ``dst``'s range give 0, as
        ``ml_dtypes`` and ONNX's Cast tests do (the ONNX spec leaves them
        undefined; QuantizeLinear clips before it casts)."""
        wide = self.add(arith.FPToSIOp(v, i32))
        lo = self.consts.get(int(dt.min_value(dst)), "int32")
        hi = self.consts.get(int(dt.max_value(dst)), "int32")
        above = self.add(arith.CmpiOp(wide, lo, "sge"))
        below = self.add(arith.CmpiOp(wide, hi, "sle"))
        ok = self.add(arith.AndIOp(above, below))
        kept = self.add(arith.SelectOp(ok, wide, self.consts.get(0, "int32")))
        narrow = self.add(arith.TruncIOp(kept, IntegerType(dt.bits(dst))))
        ty = dt.to_xdsl(dst)
        return narrow if narrow.type == ty else self.add(arith.BitcastOp(narrow, ty))

    def convert(self, v: SSAValue, src: str, dst: str) -> SSAValue:
        """``v`` of dtype ``src`` converted to ``dst`` (C semantics; ``bool``
        converts to 0 or 1, to ``bool`` is ``!= 0``)."""
        if src == dst:
            return v
        ty = dt.to_xdsl(dst)
        if dst == "bool":
            if dt.is_float(src):
                return self.add(arith.CmpfOp(v, self.consts.get(0.0, src), "une"))
            return self.add(arith.CmpiOp(v, self.consts.get(0, src), "ne"))
        if dt.is_float(src) and dt.is_float(dst):
            cls = arith.ExtFOp if dt.bits(dst) > dt.bits(src) else arith.TruncFOp
            return self.add(cls(v, ty))
        if dt.is_float(src) and dst in dt.SUB_BYTE_INT_DTYPES:
            return self._float_to_sub_byte(v, dst)
        if dt.is_float(src):  # to an integer, through i64 for index
            cls = arith.FPToUIOp if _unsigned(dst) else arith.FPToSIOp
            if dst == "index":
                return self.add(arith.IndexCastOp(self.add(cls(v, i64)), ty))
            return self.add(cls(v, ty))
        if (src == "index" and not dt.is_float(dst)) or (dst == "index" and not _unsigned(src)):
            return self.add(arith.IndexCastOp(v, ty))  # sign-extends or truncates
        if src == "index":  # to a float, through i64
            v, src = self.add(arith.IndexCastOp(v, i64)), "int64"
        if dt.is_float(dst):
            cls = arith.UIToFPOp if _unsigned(src) else arith.SIToFPOp
            return self.add(cls(v, ty))
        int_ty = i64 if dst == "index" else ty  # unsigned to index: zero-extend first
        if int_ty.width.data > dt.bits(src):
            cls = arith.ExtUIOp if _unsigned(src) else arith.ExtSIOp
            v = self.add(cls(v, int_ty))
        elif int_ty.width.data < dt.bits(src):
            v = self.add(arith.TruncIOp(v, int_ty))
        elif v.type != int_ty:  # same width, other signedness: reinterpret
            v = self.add(arith.BitcastOp(v, int_ty))
        return self.add(arith.IndexCastOp(v, ty)) if dst == "index" else v
