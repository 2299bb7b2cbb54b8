"""Scalar maths: `arith` and `math` ops to llvm ops, intrinsics and libm calls.

One table row per op: `LOWERINGS[OpClass](op, operands, em, externs)`
returns the llvm value of the op's result, `operands` being the already
lowered operands. Ops the llvm dialect lacks are expressed with intrinsics
(`llvm.fptosi.sat`, `llvm.smin`, ...) or short instruction sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import (
    Float16Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xtvm.lowering.tir_to_llvm.emitter import Emitter, Externs
from xtvm.lowering.tir_to_llvm.types import (
    LoweringError,
    intrinsic_suffix,
    llvm_type,
)

Lowering = Callable[[Operation, Sequence[SSAValue], Emitter, Externs], SSAValue]


def _result_type(op: Operation) -> Attribute:
    return llvm_type(op.results[0].type)


def _width(ty: Attribute) -> int:
    ty = llvm_type(ty)
    assert isinstance(ty, IntegerType)
    return ty.width.data


def _int_flags(op: Operation) -> llvm.OverflowAttr:
    """nsw/nuw from the arith op; index arithmetic is nsw (TVM assumes no overflow)."""
    flags = {f.value for f in op.overflow_flags.data} if isinstance(op, _OVERFLOW_OPS) else set()
    if op.results[0].type == arith.IndexType():
        flags.add("nsw")
    return llvm.OverflowAttr([llvm.OverflowFlag(f) for f in sorted(flags)] or "none")


_OVERFLOW_OPS = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.ShLIOp)


def _int_binary(cls: type[Operation], with_flags: bool = False) -> Lowering:
    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
        if with_flags:
            return em.value(cls(a[0], a[1], overflow=_int_flags(op)))  # type: ignore[call-arg]
        return em.value(cls(a[0], a[1]))  # type: ignore[call-arg]

    return lower


def _float_binary(cls: type[Operation]) -> Lowering:
    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
        assert isinstance(op, arith.FloatingPointLikeBinaryOperation)
        fastmath = llvm.FastMathAttr(op.fastmath.data)
        return em.value(cls(a[0], a[1], fastmath))  # type: ignore[call-arg]

    return lower


def _intrinsic(name: str, extra: Sequence[tuple[int, Attribute]] = ()) -> Lowering:
    """`llvm.<name>.<suffix>(operands..., extra constants...)` on the result type."""

    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
        ty = _result_type(op)
        consts = [em.int_const(v, t) for v, t in extra]
        call = llvm.CallIntrinsicOp(f"llvm.{name}.{intrinsic_suffix(ty)}", [*a, *consts], [ty])
        return em.value(call)

    return lower


def _libm(name: str) -> Lowering:
    """A C maths function: `namef` for f32, `name` for f64, f16 through f32."""

    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, ext: Externs) -> SSAValue:
        ty = _result_type(op)
        suffix = intrinsic_suffix(ty)
        if suffix == "f64":
            result = ext.call(em, name, a, ty)
        elif suffix == "f32":
            result = ext.call(em, name + "f", a, ty)
        elif suffix == "f16":
            wide = [em.value(llvm.FPExtOp(x, f32)) for x in a]
            value = ext.call(em, name + "f", wide, f32)
            assert value is not None
            result = em.value(llvm.FPTruncOp(value, ty))
        else:
            raise LoweringError(f"convert-tir-to-llvm: {op.name} on {ty} is not supported")
        assert result is not None
        return result

    return lower


def _constant(op: Operation, _: Sequence[SSAValue], em: Emitter, __: Externs) -> SSAValue:
    assert isinstance(op, arith.ConstantOp)
    ty = _result_type(op)
    value = op.value
    if isinstance(value, IntegerAttr):
        return em.int_const(value.value.data, ty)
    if isinstance(value, FloatAttr):
        return em.float_const(value.value.data, ty)
    raise LoweringError(f"convert-tir-to-llvm: unsupported constant {value}")


def _cmpi(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    assert isinstance(op, arith.CmpiOp)
    return em.icmp(arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data], a[0], a[1])


def _cmpf(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    """llvm.fcmp, except predicates xDSL's translator mistranslates (false, true,
    ord, uno), which become constants or self-comparisons."""
    assert isinstance(op, arith.CmpfOp)
    pred = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    if pred in ("false", "true"):
        return em.int_const(int(pred == "true"), i1)
    if pred in ("ord", "uno"):
        same = "oeq" if pred == "ord" else "une"
        lhs = em.value(llvm.FCmpOp(a[0], a[0], same))
        rhs = em.value(llvm.FCmpOp(a[1], a[1], same))
        combine = llvm.AndOp if pred == "ord" else llvm.OrOp
        return em.value(combine(lhs, rhs))
    return em.value(llvm.FCmpOp(a[0], a[1], pred))


def _select(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    return em.value(llvm.SelectOp(a[0], a[1], a[2]))


def _floordiv(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    """q = a / b rounded toward -inf: sdiv, minus one when the remainder is
    nonzero and its sign differs from b's."""
    n, d = a
    ty = _result_type(op)
    q = em.value(llvm.SDivOp(n, d))
    r = em.value(llvm.SRemOp(n, d))
    zero = em.int_const(0, ty)
    adjust = em.value(
        llvm.AndOp(
            em.icmp("ne", r, zero),
            em.value(llvm.XOrOp(em.icmp("slt", r, zero), em.icmp("slt", d, zero))),
        )
    )
    return em.value(llvm.SubOp(q, em.value(llvm.ZExtOp(adjust, ty))))


def _ceildiv(signed: bool) -> Lowering:
    """q = a / b rounded toward +inf: division plus one when the remainder is
    nonzero (and, signed, has the sign of b)."""

    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
        n, d = a
        ty = _result_type(op)
        zero = em.int_const(0, ty)
        if signed:
            q = em.value(llvm.SDivOp(n, d))
            r = em.value(llvm.SRemOp(n, d))
            same_sign = em.icmp("eq", em.icmp("slt", r, zero), em.icmp("slt", d, zero))
            adjust = em.value(llvm.AndOp(em.icmp("ne", r, zero), same_sign))
        else:
            q = em.value(llvm.UDivOp(n, d))
            adjust = em.icmp("ne", em.value(llvm.URemOp(n, d)), zero)
        return em.value(llvm.AddOp(q, em.value(llvm.ZExtOp(adjust, ty))))

    return lower


def _int_resize(signed: bool) -> Lowering:
    """Integer width change (extsi/extui/trunci/index_cast): ext, trunc or nothing."""

    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
        src, dst = _width(op.operands[0].type), _width(op.results[0].type)
        ty = _result_type(op)
        if dst > src:
            return em.value(llvm.SExtOp(a[0], ty) if signed else llvm.ZExtOp(a[0], ty))
        if dst < src:
            return em.value(llvm.TruncOp(a[0], ty))
        return a[0]

    return lower


def _fp_to_int(signed: bool) -> Lowering:
    """float → int through the saturating intrinsics (the llvm dialect has no
    fptosi/fptoui): NaN gives 0, out-of-range values clamp."""

    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
        ty = _result_type(op)
        name = "fptosi" if signed else "fptoui"
        src = intrinsic_suffix(op.operands[0].type)
        intrin = f"llvm.{name}.sat.{intrinsic_suffix(ty)}.{src}"
        return em.value(llvm.CallIntrinsicOp(intrin, [a[0]], [ty]))

    return lower


def _sitofp(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    return em.value(llvm.SIToFPOp(a[0], _result_type(op)))


def _uitofp(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    """The llvm dialect has no uitofp: zero-extend narrow integers to i64 and use
    sitofp; for i64, halve values with the top bit set (keeping the low bit for
    rounding), convert, and double."""
    ty = _result_type(op)
    width = _width(op.operands[0].type)
    if width < 64:
        return em.value(llvm.SIToFPOp(em.value(llvm.ZExtOp(a[0], i64)), ty))
    if width > 64:
        raise LoweringError(f"convert-tir-to-llvm: uitofp from i{width} is not supported")
    x = a[0]
    one = em.int_const(1)
    half = em.value(llvm.OrOp(em.value(llvm.LShrOp(x, one)), em.value(llvm.AndOp(x, one))))
    halved = em.value(llvm.SIToFPOp(half, ty))
    doubled = em.value(llvm.FAddOp(halved, halved))
    direct = em.value(llvm.SIToFPOp(x, ty))
    negative = em.icmp("slt", x, em.int_const(0))
    return em.value(llvm.SelectOp(negative, doubled, direct))


def _cast(cls: type[Operation]) -> Lowering:
    def lower(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
        return em.value(cls(a[0], _result_type(op)))  # type: ignore[call-arg]

    return lower


def _bitcast(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    """A reinterpretation; between signless and unsigned integers of one width
    (both the same llvm type) it is nothing."""
    ty = _result_type(op)
    if llvm_type(op.operands[0].type) == ty:
        return a[0]
    return em.value(llvm.BitcastOp(a[0], ty))


def _truncf(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    """fptrunc, except f64 → f16, for which LLVM calls `__truncdfhf2`, a
    compiler-rt function the JIT cannot resolve. That one rounds to f32 *to
    odd* (truncate, then set the last bit if inexact), then to f16: with the
    13 spare bits of f32 the double rounding is exact."""
    ty = _result_type(op)
    if not (isinstance(ty, Float16Type) and isinstance(op.operands[0].type, Float64Type)):
        return em.value(llvm.FPTruncOp(a[0], ty))
    x = a[0]
    near = em.value(llvm.FPTruncOp(x, f32))
    back = em.value(llvm.FPExtOp(near, f64))
    exact = em.value(llvm.FCmpOp(back, x, "oeq"))
    magnitude = [em.value(llvm.CallIntrinsicOp("llvm.fabs.f64", [v], [f64])) for v in (back, x)]
    away = em.value(llvm.FCmpOp(magnitude[0], magnitude[1], "ogt"))  # rounded away from 0
    bits = em.value(llvm.BitcastOp(near, i32))
    lower = em.value(llvm.SubOp(bits, em.int_const(1, i32)))
    toward_zero = em.value(llvm.SelectOp(away, lower, bits))
    odd = em.value(llvm.OrOp(toward_zero, em.int_const(1, i32)))
    chosen = em.value(llvm.SelectOp(exact, bits, odd))
    return em.value(llvm.FPTruncOp(em.value(llvm.BitcastOp(chosen, f32)), ty))


def _negf(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    return em.value(llvm.FNegOp(a[0]))


def _rsqrt(op: Operation, a: Sequence[SSAValue], em: Emitter, ext: Externs) -> SSAValue:
    ty = _result_type(op)
    root = em.value(llvm.CallIntrinsicOp(f"llvm.sqrt.{intrinsic_suffix(ty)}", [a[0]], [ty]))
    return em.value(llvm.FDivOp(em.float_const(1.0, ty), root))


def _fpowi(op: Operation, a: Sequence[SSAValue], em: Emitter, _: Externs) -> SSAValue:
    ty = _result_type(op)
    name = f"llvm.powi.{intrinsic_suffix(ty)}.{intrinsic_suffix(op.operands[1].type)}"
    return em.value(llvm.CallIntrinsicOp(name, list(a), [ty]))


_FALSE = [(0, i1)]
"""The `is_zero_poison = false` / `is_int_min_poison = false` flag operand."""

LOWERINGS: dict[type[Operation], Lowering] = {
    arith.ConstantOp: _constant,
    # integer arithmetic
    arith.AddiOp: _int_binary(llvm.AddOp, with_flags=True),
    arith.SubiOp: _int_binary(llvm.SubOp, with_flags=True),
    arith.MuliOp: _int_binary(llvm.MulOp, with_flags=True),
    arith.ShLIOp: _int_binary(llvm.ShlOp, with_flags=True),
    arith.DivSIOp: _int_binary(llvm.SDivOp),
    arith.DivUIOp: _int_binary(llvm.UDivOp),
    arith.RemSIOp: _int_binary(llvm.SRemOp),
    arith.RemUIOp: _int_binary(llvm.URemOp),
    arith.AndIOp: _int_binary(llvm.AndOp),
    arith.OrIOp: _int_binary(llvm.OrOp),
    arith.XOrIOp: _int_binary(llvm.XOrOp),
    arith.ShRSIOp: _int_binary(llvm.AShrOp),
    arith.ShRUIOp: _int_binary(llvm.LShrOp),
    arith.FloorDivSIOp: _floordiv,
    arith.CeilDivSIOp: _ceildiv(signed=True),
    arith.CeilDivUIOp: _ceildiv(signed=False),
    arith.MinSIOp: _intrinsic("smin"),
    arith.MaxSIOp: _intrinsic("smax"),
    arith.MinUIOp: _intrinsic("umin"),
    arith.MaxUIOp: _intrinsic("umax"),
    arith.CmpiOp: _cmpi,
    arith.SelectOp: _select,
    # floating point arithmetic
    arith.AddfOp: _float_binary(llvm.FAddOp),
    arith.SubfOp: _float_binary(llvm.FSubOp),
    arith.MulfOp: _float_binary(llvm.FMulOp),
    arith.DivfOp: _float_binary(llvm.FDivOp),
    arith.NegfOp: _negf,
    arith.CmpfOp: _cmpf,
    arith.MaximumfOp: _intrinsic("maximum"),
    arith.MinimumfOp: _intrinsic("minimum"),
    arith.MaxnumfOp: _intrinsic("maxnum"),
    arith.MinnumfOp: _intrinsic("minnum"),
    # casts
    arith.IndexCastOp: _int_resize(signed=True),
    arith.ExtSIOp: _int_resize(signed=True),
    arith.ExtUIOp: _int_resize(signed=False),
    arith.TruncIOp: _int_resize(signed=True),
    arith.FPToSIOp: _fp_to_int(signed=True),
    arith.FPToUIOp: _fp_to_int(signed=False),
    arith.SIToFPOp: _sitofp,
    arith.UIToFPOp: _uitofp,
    arith.ExtFOp: _cast(llvm.FPExtOp),
    arith.TruncFOp: _truncf,
    arith.BitcastOp: _bitcast,
    # math: LLVM intrinsics (the backend calls libm where it has no instruction)
    math.AbsFOp: _intrinsic("fabs"),
    math.CeilOp: _intrinsic("ceil"),
    math.FloorOp: _intrinsic("floor"),
    math.TruncOp: _intrinsic("trunc"),
    math.RoundOp: _intrinsic("round"),
    math.RoundEvenOp: _intrinsic("roundeven"),
    math.SqrtOp: _intrinsic("sqrt"),
    math.ExpOp: _intrinsic("exp"),
    math.Exp2Op: _intrinsic("exp2"),
    math.LogOp: _intrinsic("log"),
    math.Log2Op: _intrinsic("log2"),
    math.Log10Op: _intrinsic("log10"),
    math.SinOp: _intrinsic("sin"),
    math.CosOp: _intrinsic("cos"),
    math.TanOp: _intrinsic("tan"),
    math.TanhOp: _intrinsic("tanh"),
    math.SinhOp: _intrinsic("sinh"),
    math.CoshOp: _intrinsic("cosh"),
    math.AsinOp: _intrinsic("asin"),
    math.AcosOp: _intrinsic("acos"),
    math.AtanOp: _intrinsic("atan"),
    math.Atan2Op: _intrinsic("atan2"),
    math.PowFOp: _intrinsic("pow"),
    math.CopySignOp: _intrinsic("copysign"),
    math.FmaOp: _intrinsic("fma"),
    math.FPowIOp: _fpowi,
    math.RsqrtOp: _rsqrt,
    math.AbsIOp: _intrinsic("abs", _FALSE),
    math.CountLeadingZerosOp: _intrinsic("ctlz", _FALSE),
    math.CountTrailingZerosOp: _intrinsic("cttz", _FALSE),
    math.CtPopOp: _intrinsic("ctpop"),
    # math: libm functions without an LLVM intrinsic
    math.ErfOp: _libm("erf"),
    math.CbrtOp: _libm("cbrt"),
    math.ExpM1Op: _libm("expm1"),
    math.Log1pOp: _libm("log1p"),
    math.AsinhOp: _libm("asinh"),
    math.AcoshOp: _libm("acosh"),
    math.AtanhOp: _libm("atanh"),
}
"""How each supported `arith`/`math` op becomes llvm; anything else is an error."""
