"""`math` → llvm: one `ScalarPattern` per op family (see `scalar_pattern.py`).

Adding an op: a row in its family's table, or a new family class listed in
`MATH_PATTERNS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import llvm, math
from xdsl.dialects.builtin import f32, i1
from xdsl.ir import Attribute, Operation, SSAValue

from xtvm.lowering.tir_to_llvm.emitter import Emitter, Externs
from xtvm.lowering.tir_to_llvm.scalar_pattern import ScalarPattern, call_intrinsic, result_type
from xtvm.lowering.tir_to_llvm.types import LoweringError, intrinsic_suffix

_FALSE = ((0, i1),)
"""The `is_zero_poison = false` / `is_int_min_poison = false` flag operand."""


class Intrinsic(ScalarPattern):
    """Ops that are one LLVM intrinsic on the result type (`math.exp` →
    `llvm.exp.f32`); the backend calls libm where it has no instruction."""

    INTRINSICS: ClassVar[dict[type[Operation], tuple[str, tuple[tuple[int, Attribute], ...]]]] = {
        # op: (intrinsic, constant operands appended)
        math.AbsFOp: ("fabs", ()),
        math.CeilOp: ("ceil", ()),
        math.FloorOp: ("floor", ()),
        math.TruncOp: ("trunc", ()),
        math.RoundOp: ("round", ()),
        math.RoundEvenOp: ("roundeven", ()),
        math.SqrtOp: ("sqrt", ()),
        math.ExpOp: ("exp", ()),
        math.Exp2Op: ("exp2", ()),
        math.LogOp: ("log", ()),
        math.Log2Op: ("log2", ()),
        math.Log10Op: ("log10", ()),
        math.SinOp: ("sin", ()),
        math.CosOp: ("cos", ()),
        math.TanOp: ("tan", ()),
        math.TanhOp: ("tanh", ()),
        math.SinhOp: ("sinh", ()),
        math.CoshOp: ("cosh", ()),
        math.AsinOp: ("asin", ()),
        math.AcosOp: ("acos", ()),
        math.AtanOp: ("atan", ()),
        math.Atan2Op: ("atan2", ()),
        math.PowFOp: ("pow", ()),
        math.CopySignOp: ("copysign", ()),
        math.FmaOp: ("fma", ()),
        math.AbsIOp: ("abs", _FALSE),
        math.CountLeadingZerosOp: ("ctlz", _FALSE),
        math.CountTrailingZerosOp: ("cttz", _FALSE),
        math.CtPopOp: ("ctpop", ()),
    }
    ops = frozenset(INTRINSICS)

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        name, extra = cls.INTRINSICS[type(op)]
        return call_intrinsic(op, name, a, em, extra)


class LibmCall(ScalarPattern):
    """Ops without an LLVM intrinsic → the C maths function: `namef` for f32,
    `name` for f64, f16 through f32."""

    FUNCTIONS: ClassVar[dict[type[Operation], str]] = {
        math.ErfOp: "erf",
        math.CbrtOp: "cbrt",
        math.ExpM1Op: "expm1",
        math.Log1pOp: "log1p",
        math.AsinhOp: "asinh",
        math.AcoshOp: "acosh",
        math.AtanhOp: "atanh",
    }
    ops = frozenset(FUNCTIONS)

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        name = cls.FUNCTIONS[type(op)]
        ty = result_type(op)
        suffix = intrinsic_suffix(ty)
        if suffix == "f64":
            result = externs.call(em, name, a, ty)
        elif suffix == "f32":
            result = externs.call(em, name + "f", a, ty)
        elif suffix == "f16":
            wide = [em.value(llvm.FPExtOp(x, f32)) for x in a]
            value = externs.call(em, name + "f", wide, f32)
            assert value is not None
            result = em.value(llvm.FPTruncOp(value, ty))
        else:
            raise LoweringError(f"convert-tir-to-llvm: {op.name} on {ty} is not supported")
        assert result is not None
        return result


class Rsqrt(ScalarPattern):
    """`math.rsqrt` → `1 / llvm.sqrt(x)`."""

    ops = frozenset({math.RsqrtOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        ty = result_type(op)
        root = em.value(llvm.CallIntrinsicOp(f"llvm.sqrt.{intrinsic_suffix(ty)}", [a[0]], [ty]))
        return em.value(llvm.FDivOp(em.float_const(1.0, ty), root))


class FPowI(ScalarPattern):
    """`math.fpowi` → `llvm.pow(x, (float) n)`.

    Not `llvm.powi`: LLVM turns it into a call of compiler-rt's `__powisf2`,
    which the JIT does not resolve (calling the kernel crashed the process);
    `llvm.pow` becomes libm's `powf`/`pow`, and an i32 exponent converts
    exactly wherever the power is finite and nonzero.
    """

    ops = frozenset({math.FPowIOp})

    @classmethod
    def lower(
        cls, op: Operation, a: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        ty = result_type(op)
        exponent = em.value(llvm.SIToFPOp(a[1], ty))
        name = f"llvm.pow.{intrinsic_suffix(ty)}"
        return em.value(llvm.CallIntrinsicOp(name, [a[0], exponent], [ty]))


MATH_PATTERNS: tuple[type[ScalarPattern], ...] = (Intrinsic, LibmCall, Rsqrt, FPowI)
"""Every `math` family, in the order the conversion tries them."""
