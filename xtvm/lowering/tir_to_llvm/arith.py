"""`arith` → llvm: one `ScalarPattern` per op family (see `scalar_pattern.py`).

Adding an op: a row in its family's table, or a new family class listed in
`ARITH_PATTERNS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    Float16Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue

from xtvm.lowering.tir_to_llvm.emitter import Emitter, Externs
from xtvm.lowering.tir_to_llvm.scalar_pattern import (
    ScalarPattern,
    call_intrinsic,
    int_width,
    result_type,
)
from xtvm.lowering.tir_to_llvm.types import LoweringError, intrinsic_suffix, llvm_type


class Constant(ScalarPattern):
    """`arith.constant` → `llvm.mlir.constant` (integers and floats)."""

    ops = frozenset({arith.ConstantOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        assert isinstance(op, arith.ConstantOp)
        ty = result_type(op)
        value = op.value
        if isinstance(value, IntegerAttr):
            return em.int_const(value.value.data, ty)
        if isinstance(value, FloatAttr):
            return em.float_const(value.value.data, ty)
        raise LoweringError(f"convert-tir-to-llvm: unsupported constant {value}")


_OVERFLOW_OPS = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.ShLIOp)


def _int_flags(op: Operation) -> IntegerAttr:
    """nsw/nuw from the arith op; index arithmetic is nsw (TVM assumes no
    overflow). As the i32 attribute the llvm op stores (made once per set)."""
    flags = {f.value for f in op.overflow_flags.data} if isinstance(op, _OVERFLOW_OPS) else set()
    if op.results[0].type == arith.IndexType():
        flags.add("nsw")
    return _overflow_attr(tuple(sorted(flags)))


@lru_cache(maxsize=None)
def _overflow_attr(flags: tuple[str, ...]) -> IntegerAttr:
    attr = llvm.OverflowAttr([llvm.OverflowFlag(f) for f in flags] or "none")
    return IntegerAttr(attr.to_int(), 32)


@lru_cache(maxsize=None)
def _fastmath_attr(flags: object) -> llvm.FastMathAttr:
    return llvm.FastMathAttr(flags)  # type: ignore[arg-type]


def _binary(
    llvm_op: type[Operation], a: Sequence[SSAValue], em: Emitter, properties: dict
) -> SSAValue:
    """``llvm_op(a[0], a[1])`` of the operands' type, made with ``Op.create``:
    the operands are well typed by construction, and the IRDL constructor's
    constraint checks were a third of the lowering of arithmetic."""
    return em.value(
        llvm_op.create(operands=[a[0], a[1]], result_types=[a[0].type], properties=properties)
    )


class IntegerArithmetic(ScalarPattern):
    """Integer binary ops → the llvm instruction of the same name; `addi`,
    `subi`, `muli`, `shli` keep their overflow flags (index ones are nsw)."""

    LLVM: ClassVar[dict[type[Operation], tuple[type[Operation], bool]]] = {
        # op: (llvm op, takes overflow flags)
        arith.AddiOp: (llvm.AddOp, True),
        arith.SubiOp: (llvm.SubOp, True),
        arith.MuliOp: (llvm.MulOp, True),
        arith.ShLIOp: (llvm.ShlOp, True),
        arith.DivSIOp: (llvm.SDivOp, False),
        arith.DivUIOp: (llvm.UDivOp, False),
        arith.RemSIOp: (llvm.SRemOp, False),
        arith.RemUIOp: (llvm.URemOp, False),
        arith.AndIOp: (llvm.AndOp, False),
        arith.OrIOp: (llvm.OrOp, False),
        arith.XOrIOp: (llvm.XOrOp, False),
        arith.ShRSIOp: (llvm.AShrOp, False),
        arith.ShRUIOp: (llvm.LShrOp, False),
    }
    ops = frozenset(LLVM)

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        llvm_op, with_flags = cls.LLVM[type(op)]
        return _binary(llvm_op, a, em, {"overflowFlags": _int_flags(op)} if with_flags else {})


class RoundingDivision(ScalarPattern):
    """`floordivsi`, `ceildivsi`, `ceildivui`: a division and a remainder, then
    the quotient adjusted by one where it was rounded the wrong way."""

    ops = frozenset({arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        if isinstance(op, arith.FloorDivSIOp):
            return _floordiv(op, a, em)
        return _ceildiv(op, a, em, signed=isinstance(op, arith.CeilDivSIOp))


def _floordiv(op: Operation, a: Sequence[SSAValue], em: Emitter) -> SSAValue:
    """q = a / b rounded toward -inf: sdiv, minus one when the remainder is
    nonzero and its sign differs from b's."""
    n, d = a
    ty = result_type(op)
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


def _ceildiv(op: Operation, a: Sequence[SSAValue], em: Emitter, signed: bool) -> SSAValue:
    """q = a / b rounded toward +inf: division plus one when the remainder is
    nonzero (and, signed, has the sign of b)."""
    n, d = a
    ty = result_type(op)
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


class MinMax(ScalarPattern):
    """Integer and float minimum/maximum → `llvm.smin`, `llvm.maximum`, ...
    (NaN semantics as arith's: `maximumf` propagates NaN, `maxnumf` drops it)."""

    INTRINSICS: ClassVar[dict[type[Operation], str]] = {
        arith.MinSIOp: "smin",
        arith.MaxSIOp: "smax",
        arith.MinUIOp: "umin",
        arith.MaxUIOp: "umax",
        arith.MaximumfOp: "maximum",
        arith.MinimumfOp: "minimum",
        arith.MaxnumfOp: "maxnum",
        arith.MinnumfOp: "minnum",
    }
    ops = frozenset(INTRINSICS)

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        return call_intrinsic(op, cls.INTRINSICS[type(op)], a, em)


class Comparison(ScalarPattern):
    """`cmpi` → `llvm.icmp`; `cmpf` → `llvm.fcmp`, except the predicates
    xDSL's translator mistranslates (false, true, ord, uno), which become
    constants or self-comparisons."""

    ops = frozenset({arith.CmpiOp, arith.CmpfOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        if isinstance(op, arith.CmpiOp):
            return em.icmp(arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data], a[0], a[1])
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


class Select(ScalarPattern):
    """`arith.select` → `llvm.select`."""

    ops = frozenset({arith.SelectOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        return em.value(llvm.SelectOp(a[0], a[1], a[2]))


class FloatArithmetic(ScalarPattern):
    """`addf`, `subf`, `mulf`, `divf` (fastmath flags kept) and `negf`."""

    LLVM: ClassVar[dict[type[Operation], type[Operation]]] = {
        arith.AddfOp: llvm.FAddOp,
        arith.SubfOp: llvm.FSubOp,
        arith.MulfOp: llvm.FMulOp,
        arith.DivfOp: llvm.FDivOp,
    }
    ops = frozenset({*LLVM, arith.NegfOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        if isinstance(op, arith.NegfOp):
            return em.value(llvm.FNegOp(a[0]))
        assert isinstance(op, arith.FloatingPointLikeBinaryOperation)
        fastmath = _fastmath_attr(op.fastmath.data)
        return _binary(cls.LLVM[type(op)], a, em, {"fastmathFlags": fastmath})


class IntegerResize(ScalarPattern):
    """Integer width changes (`index_cast`, `extsi`, `extui`, `trunci`): a
    sign or zero extension, a truncation, or nothing."""

    SIGNED: ClassVar[dict[type[Operation], bool]] = {
        arith.IndexCastOp: True,
        arith.ExtSIOp: True,
        arith.ExtUIOp: False,
        arith.TruncIOp: True,
    }
    ops = frozenset(SIGNED)

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        src, dst = int_width(op.operands[0].type), int_width(op.results[0].type)
        ty = result_type(op)
        if dst > src:
            signed = cls.SIGNED[type(op)]
            return em.value(llvm.SExtOp(a[0], ty) if signed else llvm.ZExtOp(a[0], ty))
        if dst < src:
            return em.value(llvm.TruncOp(a[0], ty))
        return a[0]


class FloatIntConversion(ScalarPattern):
    """float ↔ int: `fptosi`/`fptoui` through the saturating intrinsics (the
    llvm dialect has neither; NaN gives 0, out-of-range values clamp),
    `sitofp`, and `uitofp` through `sitofp` (the dialect lacks it too)."""

    ops = frozenset({arith.FPToSIOp, arith.FPToUIOp, arith.SIToFPOp, arith.UIToFPOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        ty = result_type(op)
        if isinstance(op, arith.FPToSIOp | arith.FPToUIOp):
            name = "fptosi" if isinstance(op, arith.FPToSIOp) else "fptoui"
            src = intrinsic_suffix(op.operands[0].type)
            intrin = f"llvm.{name}.sat.{intrinsic_suffix(ty)}.{src}"
            return em.value(llvm.CallIntrinsicOp(intrin, [a[0]], [ty]))
        if isinstance(op, arith.SIToFPOp):
            return em.value(llvm.SIToFPOp(a[0], ty))
        return cls._uitofp(op, a[0], em)

    @staticmethod
    def _uitofp(op: Operation, x: SSAValue, em: Emitter) -> SSAValue:
        """Zero-extend narrow integers to i64 and use sitofp; for i64, halve
        values with the top bit set (keeping the low bit for rounding),
        convert, and double."""
        ty = result_type(op)
        width = int_width(op.operands[0].type)
        if width < 64:
            return em.value(llvm.SIToFPOp(em.value(llvm.ZExtOp(x, i64)), ty))
        if width > 64:
            raise LoweringError(f"convert-tir-to-llvm: uitofp from i{width} is not supported")
        one = em.int_const(1)
        half = em.value(llvm.OrOp(em.value(llvm.LShrOp(x, one)), em.value(llvm.AndOp(x, one))))
        halved = em.value(llvm.SIToFPOp(half, ty))
        doubled = em.value(llvm.FAddOp(halved, halved))
        direct = em.value(llvm.SIToFPOp(x, ty))
        negative = em.icmp("slt", x, em.int_const(0))
        return em.value(llvm.SelectOp(negative, doubled, direct))


class FloatResize(ScalarPattern):
    """`extf` → `llvm.fpext`; `truncf` → `llvm.fptrunc`, except f64 → f16,
    for which LLVM calls `__truncdfhf2`, a compiler-rt function the JIT
    cannot resolve. That one rounds to f32 *to odd* (truncate, then set the
    last bit if inexact), then to f16: with the 13 spare bits of f32 the
    double rounding is exact."""

    ops = frozenset({arith.ExtFOp, arith.TruncFOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        ty = result_type(op)
        if isinstance(op, arith.ExtFOp):
            return em.value(llvm.FPExtOp(a[0], ty))
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


class Bitcast(ScalarPattern):
    """`arith.bitcast` → `llvm.bitcast`; between signless and unsigned
    integers of one width (the same llvm type) it is nothing."""

    ops = frozenset({arith.BitcastOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        ty = result_type(op)
        if llvm_type(op.operands[0].type) == ty:
            return a[0]
        return em.value(llvm.BitcastOp(a[0], ty))


ARITH_PATTERNS: tuple[type[ScalarPattern], ...] = (
    Constant,
    IntegerArithmetic,
    RoundingDivision,
    MinMax,
    Comparison,
    Select,
    FloatArithmetic,
    IntegerResize,
    FloatIntConversion,
    FloatResize,
    Bitcast,
)
"""Every `arith` family, in the order the conversion tries them."""
