"""`arith`/`math` ops and `tir.call_intrin` callees as C expressions.

One table row per op: a function of the op and its operands' C spellings
(variable names or literals) that returns the expression of its result.
The table covers exactly the ops `convert-tir-to-llvm` lowers
(`xtvm.lowering.tir_to_llvm.scalar.LOWERINGS`; a test keeps the two equal),
with the llvm path's semantics:

* integers: signless values are stored signed; the op casts to the unsigned
  type where it reads the bits as unsigned (`divui`, `shrui`, `ult`, ...);
  `addi`/`subi`/`muli`/`shli` wrap (computed unsigned) unless they are
  `index` or carry `nsw` (TVM's no-overflow assumption, as the llvm path);
* floats: `maximumf`/`minimumf` propagate NaN, `maxnumf`/`minnumf` drop it,
  float → int saturates (NaN gives 0); fastmath flags are not used;
* maths: the libm function of the type (`expf`, `exp`); f16 computes in f32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute, Operation

from xtvm.dtypes import REDUCED_FLOATS
from xtvm.lowering.tir_to_c.types import (
    CTranslationError,
    c_type,
    c_value_type,
    float_literal,
    int_literal,
    int_width,
    is_unsigned,
    round_f16,
    signed_type,
    sub_byte,
    unsigned_type,
)

Expression = Callable[[Operation, Sequence[str]], str]


def _type(op: Operation) -> Attribute:
    return op.results[0].type


def _signed(value: str, ty: Attribute) -> str:
    """`value` read as a signed integer of its width (a sub-byte one
    sign-extended from its bits)."""
    if is_unsigned(ty) and int_width(ty) in (2, 4):
        return sub_byte(value, IntegerType(int_width(ty)))
    return f"({signed_type(ty)}){value}" if is_unsigned(ty) else value


def _unsigned(value: str, ty: Attribute) -> str:
    """`value` read as an unsigned integer of its width (a sub-byte one
    masked to its bits)."""
    if not is_unsigned(ty) and int_width(ty) in (2, 4):
        return sub_byte(value, IntegerType(int_width(ty), Signedness.UNSIGNED))
    return value if is_unsigned(ty) else f"({unsigned_type(ty)}){value}"


def _constant(op: Operation, a: Sequence[str]) -> str:
    assert isinstance(op, arith.ConstantOp)
    value, ty = op.value, _type(op)
    if isinstance(value, IntegerAttr):
        return int_literal(value.value.data, ty)
    if isinstance(value, FloatAttr):
        return float_literal(value.value.data, ty)
    raise CTranslationError(f"convert-tir-to-c: unsupported constant {value}")


_WRAPPING = {arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.ShLIOp: "<<"}


def _wrapping(op: Operation, a: Sequence[str]) -> str:
    """add/sub/mul/shl: plain C where overflow cannot happen (index, nsw),
    else on the unsigned type (C's signed overflow is undefined)."""
    symbol = _WRAPPING[type(op)]
    ty, x, y = _type(op), a[0], a[1]
    flags = {f.value for f in op.overflow_flags.data}  # type: ignore[attr-defined]
    width = int_width(ty)
    if width == 1:
        return f"(bool)(({x} {symbol} {y}) & 1)"
    if isinstance(ty, IndexType) or ("nsw" in flags and not is_unsigned(ty)):
        if symbol == "<<":
            return f"({c_type(ty)})((uint64_t){x} << {y})"
        if isinstance(ty, IndexType) and all(s.lstrip("-").isdigit() for s in (x, y)):
            x = f"(int64_t){x}"  # two literals would multiply as int
        return f"{x} {symbol} {y}"
    if symbol == "<<":
        return f"({c_type(ty)})({_unsigned(x, ty)} << {y})"
    return f"({c_type(ty)})({_unsigned(x, ty)} {symbol} {_unsigned(y, ty)})"


def _binary(symbol: str, read: Callable[[str, Attribute], str]) -> Expression:
    def expression(op: Operation, a: Sequence[str]) -> str:
        ty = _type(op)
        return f"({c_type(ty)})({read(a[0], ty)} {symbol} {read(a[1], ty)})"

    return expression


def _bitwise(symbol: str) -> Expression:
    return lambda op, a: f"{a[0]} {symbol} {a[1]}"


def _shift_right(read: Callable[[str, Attribute], str]) -> Expression:
    return lambda op, a: f"({c_type(_type(op))})({read(a[0], _type(op))} >> {a[1]})"


def _macro(name: str, read: Callable[[str, Attribute], str] = lambda v, t: v) -> Expression:
    def expression(op: Operation, a: Sequence[str]) -> str:
        ty = _type(op)
        return f"({c_value_type(ty)}){name}({', '.join(read(x, ty) for x in a)})"

    return expression


def _select_by(symbol: str, read: Callable[[str, Attribute], str]) -> Expression:
    """min/max: the first operand when `a symbol b` (in the read signedness)."""

    def expression(op: Operation, a: Sequence[str]) -> str:
        ty = _type(op)
        return f"{read(a[0], ty)} {symbol} {read(a[1], ty)} ? {a[0]} : {a[1]}"

    return expression


_CMPI = {
    "eq": ("==", None), "ne": ("!=", None),
    "slt": ("<", _signed), "sle": ("<=", _signed), "sgt": (">", _signed), "sge": (">=", _signed),
    "ult": ("<", _unsigned), "ule": ("<=", _unsigned), "ugt": (">", _unsigned),
    "uge": (">=", _unsigned),
}  # fmt: skip


def _cmpi(op: Operation, a: Sequence[str]) -> str:
    assert isinstance(op, arith.CmpiOp)
    symbol, read = _CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
    ty = op.lhs.type
    if read is None:
        return f"{a[0]} {symbol} {a[1]}"
    return f"{read(a[0], ty)} {symbol} {read(a[1], ty)}"


_CMPF = {
    "false": "false", "true": "true",
    "oeq": "{a} == {b}", "ogt": "{a} > {b}", "oge": "{a} >= {b}", "olt": "{a} < {b}",
    "ole": "{a} <= {b}", "one": "({a} < {b} || {a} > {b})", "ord": "({a} == {a} && {b} == {b})",
    "ueq": "!({a} < {b} || {a} > {b})", "ugt": "!({a} <= {b})", "uge": "!({a} < {b})",
    "ult": "!({a} >= {b})", "ule": "!({a} > {b})", "une": "{a} != {b}",
    "uno": "({a} != {a} || {b} != {b})",
}  # fmt: skip


def _cmpf(op: Operation, a: Sequence[str]) -> str:
    assert isinstance(op, arith.CmpfOp)
    return _CMPF[arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]].format(a=a[0], b=a[1])


def _float_binary(symbol: str) -> Expression:
    def expression(op: Operation, a: Sequence[str]) -> str:
        text = f"{a[0]} {symbol} {a[1]}"
        return round_f16(text) if isinstance(_type(op), Float16Type) else text

    return expression


def _int_resize(op: Operation, a: Sequence[str]) -> str:
    src, dst = op.operands[0].type, _type(op)
    if int_width(dst) == 1:
        return f"(bool)({a[0]} & 1)"
    if int_width(src) == 1:  # i1 is 0 or 1: sign extension makes -1 of true
        signed = isinstance(op, arith.ExtSIOp | arith.IndexCastOp)
        return f"({c_type(dst)})(-(int){a[0]})" if signed else f"({c_type(dst)}){a[0]}"
    if isinstance(op, arith.ExtUIOp):
        return f"({c_type(dst)}){_unsigned(a[0], src)}"
    return f"({c_type(dst)}){_signed(a[0], src)}"


def _fp_to_int(op: Operation, a: Sequence[str]) -> str:
    ty = _type(op)
    width = int_width(ty)
    if width == 1:
        raise CTranslationError(f"convert-tir-to-c: {op.name} to i1 is not supported")
    if isinstance(op, arith.FPToSIOp):
        low, high = f"-0x1p{width - 1}", f"0x1p{width - 1}"
        least, most = f"INT{width}_MIN", f"INT{width}_MAX"
        target = signed_type(ty)
    else:
        low, high, least, most = "0.0", f"0x1p{width}", "0", f"UINT{width}_MAX"
        target = unsigned_type(ty)
    value = f"XTVM_FPTOI({target}, {low}, {least}, {high}, {most}, {a[0]})"
    return value if target == c_type(ty) else f"({c_type(ty)}){value}"


def _int_to_fp(op: Operation, a: Sequence[str]) -> str:
    src, half = op.operands[0].type, isinstance(_type(op), Float16Type)
    ty = "float" if half else c_type(_type(op))
    if int_width(src) == 1:
        signed = isinstance(op, arith.SIToFPOp)
        text = f"({ty})(-(int){a[0]})" if signed else f"({ty}){a[0]}"
    else:
        read = _signed if isinstance(op, arith.SIToFPOp) else _unsigned
        text = f"({ty}){read(a[0], src)}"
    return round_f16(text) if half else text


def _float_resize(op: Operation, a: Sequence[str]) -> str:
    src, dst = op.operands[0].type, _type(op)
    if isinstance(src, Float64Type) and isinstance(dst, Float16Type):
        return f"xtvm_h2f(xtvm_d2h({a[0]}))"  # rounded once, as LLVM's fptrunc
    if isinstance(dst, Float16Type):
        return round_f16(a[0])
    return f"({c_value_type(dst)}){a[0]}"


def _bitcast(op: Operation, a: Sequence[str]) -> str:
    src_type, dst_type = op.operands[0].type, _type(op)
    src, dst = c_type(src_type), c_type(dst_type)
    if isinstance(src_type, Float16Type):  # the bits of an f16 value
        return f"({dst})xtvm_f2h({a[0]})"
    if isinstance(dst_type, Float16Type):
        return f"xtvm_h2f((uint16_t){a[0]})"
    return a[0] if src == dst else f"XTVM_BITCAST({dst}, {src}, {a[0]})"


def libm_call(name: str, ty: Attribute, args: Sequence[str]) -> str:
    """The libm function `name` on `ty` (`expf` for f32, `exp` for f64,
    through f32 for f16)."""
    if isinstance(ty, Float64Type):
        return f"{name}({', '.join(args)})"
    if isinstance(ty, Float32Type):
        return f"{name}f({', '.join(args)})"
    if isinstance(ty, Float16Type):  # the operands are floats already
        return round_f16(f"{name}f({', '.join(args)})")
    raise CTranslationError(f"convert-tir-to-c: {name} on {ty} is not supported")


def _libm(name: str) -> Expression:
    return lambda op, a: libm_call(name, _type(op), a)


def _rsqrt(op: Operation, a: Sequence[str]) -> str:
    ty = _type(op)
    if isinstance(ty, Float16Type):
        return round_f16(f"1.0f / sqrtf({a[0]})")
    return f"({c_type(ty)})({float_literal(1.0, ty)} / {libm_call('sqrt', ty, a)})"


def _powi(op: Operation, a: Sequence[str]) -> str:
    ty = _type(op)
    if isinstance(ty, Float64Type):
        return f"xtvm_powi({a[0]}, {a[1]})"
    text = f"xtvm_powif({a[0]}, {a[1]})"
    return round_f16(text) if isinstance(ty, Float16Type) else text


def _abs_int(op: Operation, a: Sequence[str]) -> str:
    ty = _type(op)
    u = _unsigned(a[0], ty)
    return f"({c_type(ty)})({_signed(a[0], ty)} < 0 ? ({unsigned_type(ty)})0 - {u} : {u})"


def _bit_count(builtin: str, zero_is_width: bool) -> Expression:
    def expression(op: Operation, a: Sequence[str]) -> str:
        ty = _type(op)
        width = int_width(ty)
        wide = f"(unsigned long long){_unsigned(a[0], ty)}"
        count = f"__builtin_{builtin}ll({wide})"
        if builtin == "clz":
            count = f"({count} - {64 - width})"
        if zero_is_width:
            count = f"({a[0]} == 0 ? {width} : {count})"
        return f"({c_type(ty)}){count}"

    return expression


LIBM_NAMES: dict[type[Operation], str] = {
    math.AbsFOp: "fabs", math.CeilOp: "ceil", math.FloorOp: "floor", math.TruncOp: "trunc",
    math.RoundOp: "round", math.RoundEvenOp: "roundeven", math.SqrtOp: "sqrt",
    math.ExpOp: "exp", math.Exp2Op: "exp2", math.LogOp: "log", math.Log2Op: "log2",
    math.Log10Op: "log10", math.SinOp: "sin", math.CosOp: "cos", math.TanOp: "tan",
    math.TanhOp: "tanh", math.SinhOp: "sinh", math.CoshOp: "cosh", math.AsinOp: "asin",
    math.AcosOp: "acos", math.AtanOp: "atan", math.Atan2Op: "atan2", math.PowFOp: "pow",
    math.CopySignOp: "copysign", math.FmaOp: "fma", math.ErfOp: "erf", math.CbrtOp: "cbrt",
    math.ExpM1Op: "expm1", math.Log1pOp: "log1p", math.AsinhOp: "asinh",
    math.AcoshOp: "acosh", math.AtanhOp: "atanh",
}  # fmt: skip
"""The `math` ops that are one libm function (roundeven: GCC's builtin)."""

EXPRESSIONS: dict[type[Operation], Expression] = {
    arith.ConstantOp: _constant,
    **{op: _wrapping for op in _WRAPPING},
    arith.DivSIOp: _binary("/", _signed),
    arith.DivUIOp: _binary("/", _unsigned),
    arith.RemSIOp: _binary("%", _signed),
    arith.RemUIOp: _binary("%", _unsigned),
    arith.AndIOp: _bitwise("&"),
    arith.OrIOp: _bitwise("|"),
    arith.XOrIOp: _bitwise("^"),
    arith.ShRSIOp: _shift_right(_signed),
    arith.ShRUIOp: _shift_right(_unsigned),
    arith.FloorDivSIOp: _macro("XTVM_FLOORDIV", _signed),
    arith.CeilDivSIOp: _macro("XTVM_CEILDIV", _signed),
    arith.CeilDivUIOp: _macro("XTVM_CEILDIVU", _unsigned),
    arith.MinSIOp: _select_by("<", _signed),
    arith.MaxSIOp: _select_by(">", _signed),
    arith.MinUIOp: _select_by("<", _unsigned),
    arith.MaxUIOp: _select_by(">", _unsigned),
    arith.MaximumfOp: _macro("XTVM_MAXIMUMF"),
    arith.MinimumfOp: _macro("XTVM_MINIMUMF"),
    arith.MaxnumfOp: _macro("XTVM_MAXNUMF"),
    arith.MinnumfOp: _macro("XTVM_MINNUMF"),
    arith.CmpiOp: _cmpi,
    arith.CmpfOp: _cmpf,
    arith.SelectOp: lambda op, a: f"{a[0]} ? {a[1]} : {a[2]}",
    arith.AddfOp: _float_binary("+"),
    arith.SubfOp: _float_binary("-"),
    arith.MulfOp: _float_binary("*"),
    arith.DivfOp: _float_binary("/"),
    arith.NegfOp: lambda op, a: f"-{a[0]}",
    arith.IndexCastOp: _int_resize,
    arith.ExtSIOp: _int_resize,
    arith.ExtUIOp: _int_resize,
    arith.TruncIOp: _int_resize,
    arith.FPToSIOp: _fp_to_int,
    arith.FPToUIOp: _fp_to_int,
    arith.SIToFPOp: _int_to_fp,
    arith.UIToFPOp: _int_to_fp,
    arith.ExtFOp: _float_resize,
    arith.TruncFOp: _float_resize,
    arith.BitcastOp: _bitcast,
    **{op: _libm(name) for op, name in LIBM_NAMES.items()},
    math.RsqrtOp: _rsqrt,
    math.FPowIOp: _powi,
    math.AbsIOp: _abs_int,
    math.CountLeadingZerosOp: _bit_count("clz", True),
    math.CountTrailingZerosOp: _bit_count("ctz", True),
    math.CtPopOp: _bit_count("popcount", False),
}
"""How each `arith`/`math` op becomes a C expression; anything else is an error."""


def _no_storage_floats(expression: Expression) -> Expression:
    """``expression``, refusing an op on a storage-only float (bf16, f8: their
    bits in C, where arithmetic would compute on the bits as an integer)."""

    def checked(op: Operation, args: Sequence[str]) -> str:
        for value in (*op.operands, *op.results):
            if value.type in REDUCED_FLOATS.values():
                raise CTranslationError(
                    f"convert-tir-to-c: {op.name} does not compute on {value.type} "
                    "(a storage-only type): convert it to f32 first (te.cast does)"
                )
        return expression(op, args)

    return checked


EXPRESSIONS = {
    op: e if op in (arith.BitcastOp, arith.SelectOp) else _no_storage_floats(e)
    for op, e in EXPRESSIONS.items()
}

_INTRINSIC_OPS: dict[str, type[Operation]] = {
    **{name: op for op, name in LIBM_NAMES.items()},
    "smin": arith.MinSIOp, "smax": arith.MaxSIOp, "umin": arith.MinUIOp, "umax": arith.MaxUIOp,
    "maximum": arith.MaximumfOp, "minimum": arith.MinimumfOp, "maxnum": arith.MaxnumfOp,
    "minnum": arith.MinnumfOp, "fmuladd": math.FmaOp, "abs": math.AbsIOp,
    "ctlz": math.CountLeadingZerosOp, "cttz": math.CountTrailingZerosOp, "ctpop": math.CtPopOp,
}  # fmt: skip
"""LLVM intrinsic base names (`llvm.<name>.<type>`) that are an op of the table."""

LANE_HELPERS = {
    "llvm.x86.avx512.vpdpbusd.512": "xtvm_vpdpbusd",
    "llvm.x86.avx512.vpdpbusd.256": "xtvm_vpdpbusd",
}
"""Lane-wise intrinsics (tir_to_llvm's `LANE_INTRINSICS`) by their one-lane C helper."""


def intrinsic_expression(op: Operation, args: Sequence[str]) -> str:
    """A `tir.call_intrin` as C: a lane-wise x86 intrinsic's scalar helper, or
    the op its generic name (`llvm.fma.f32`) stands for, on the given operands."""
    callee = op.callee.data  # type: ignore[attr-defined]
    if callee in LANE_HELPERS:
        return f"{LANE_HELPERS[callee]}({', '.join(args)})"
    parts = callee.split(".")
    stand_in = _INTRINSIC_OPS.get(parts[1]) if len(parts) >= 2 else None
    if stand_in is None or not op.results:
        raise CTranslationError(
            f"convert-tir-to-c: no C translation for the intrinsic {callee!r} "
            f"(known: {', '.join(sorted(_INTRINSIC_OPS))}, {', '.join(LANE_HELPERS)})"
        )
    args = list(args[: len(op.operands)])
    if stand_in in (math.AbsIOp, math.CountLeadingZerosOp, math.CountTrailingZerosOp):
        args = args[:1]  # the poison flag operand
    return EXPRESSIONS[stand_in](op, args)
