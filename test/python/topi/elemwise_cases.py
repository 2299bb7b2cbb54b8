"""Numerical cases of the elementwise ops of ``relay.tensor`` (remainders),
``relay.math`` and ``relay.logical`` for ``test_topi_relay_ops`` (same tuple
format as its ``CASES``): one or two per op on its random inputs (floats in
[-2, 2), integers in [-50, 50), wrapped for unsigned dtypes). The dtype
families and edge values are in ``test_topi_elemwise``."""

from __future__ import annotations

from typing import Any

from xtvm.dialects import relay

F16, F32, F64, I8, I32, I64 = "float16", "float32", "float64", "int8", "int32", "int64"
U8, U16, U32, U64, BOOL = "uint8", "uint16", "uint32", "uint64", "bool"

Case = tuple[str, type[relay.RelayOp], list[tuple[tuple[int, ...], str]], dict[str, Any]]

_MATH = [
    relay.FloorOp,
    relay.CeilOp,
    relay.RoundOp,
    relay.TruncOp,
    relay.SinOp,
    relay.CosOp,
    relay.TanOp,
    relay.AsinOp,
    relay.AcosOp,
    relay.AtanOp,
    relay.SinhOp,
    relay.CoshOp,
    relay.AsinhOp,
    relay.AcoshOp,
    relay.AtanhOp,
    relay.ErfOp,
    relay.IsNanOp,
    relay.IsInfOp,
    relay.IsFiniteOp,
]

_COMPARE = [
    relay.EqualOp,
    relay.NotEqualOp,
    relay.LessOp,
    relay.LessEqualOp,
    relay.GreaterOp,
    relay.GreaterEqualOp,
]

_BITWISE = [
    relay.BitwiseAndOp,
    relay.BitwiseOrOp,
    relay.BitwiseXorOp,
    relay.LeftShiftOp,
    relay.RightShiftOp,
]

ELEMWISE_CASES: list[Case] = [
    ("floor_mod", relay.FloorModOp, [((3, 4), F32), ((4,), F32)], {}),
    ("floor_mod-int8", relay.FloorModOp, [((3, 4), I8), ((3, 1), I8)], {}),
    ("trunc_mod", relay.TruncModOp, [((2, 5), F64), ((2, 5), F64)], {}),
    ("trunc_mod-uint16", relay.TruncModOp, [((6,), U16), ((1,), U16)], {}),
    ("power-int32", relay.PowerOp, [((4,), I32), ((4,), I32)], {}),
    ("add-uint8", relay.AddOp, [((2, 3), U8), ((3,), U8)], {}),
    ("divide-uint32", relay.DivideOp, [((5,), U32), ((5,), U32)], {}),
    ("sign", relay.SignOp, [((3, 4), F32)], {}),
    ("sign-int64", relay.SignOp, [((7,), I64)], {}),
    *[(op.name.removeprefix("relay."), op, [((3, 4), F32)], {}) for op in _MATH],
    ("sin-float16", relay.SinOp, [((5,), F16)], {}),
    ("erf-float64", relay.ErfOp, [((5,), F64)], {}),
    *[(op.name.removeprefix("relay."), op, [((3, 4), F32), ((4,), F32)], {}) for op in _COMPARE],
    ("less-uint64", relay.LessOp, [((3,), U64), ((3,), U64)], {}),
    ("equal-bool", relay.EqualOp, [((2, 3), BOOL), ((3,), BOOL)], {}),
    ("logical_and", relay.LogicalAndOp, [((2, 3), BOOL), ((3,), BOOL)], {}),
    ("logical_or", relay.LogicalOrOp, [((2, 1), BOOL), ((1, 3), BOOL)], {}),
    ("logical_xor", relay.LogicalXorOp, [((4,), BOOL), ((4,), BOOL)], {}),
    ("logical_not", relay.LogicalNotOp, [((2, 3), BOOL)], {}),
    *[(op.name.removeprefix("relay."), op, [((3, 4), I32), ((4,), I32)], {}) for op in _BITWISE],
    ("left_shift-uint8", relay.LeftShiftOp, [((6,), U8), ((6,), U8)], {}),
    ("right_shift-int8", relay.RightShiftOp, [((6,), I8), ((6,), I8)], {}),
    ("bitwise_not", relay.BitwiseNotOp, [((3, 4), I64)], {}),
    ("bitwise_not-uint16", relay.BitwiseNotOp, [((5,), U16)], {}),
    ("where", relay.WhereOp, [((2, 1), BOOL), ((3,), F32), ((), F32)], {}),
    ("where-int64", relay.WhereOp, [((4,), BOOL), ((4,), I64), ((4,), I64)], {}),
]
