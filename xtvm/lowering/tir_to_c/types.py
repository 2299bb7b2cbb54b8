"""C spellings of tir types and constants.

`index` is `int64_t`, a signless `iN` is `intN_t` (arith decides per op
whether it reads the bits as signed or unsigned, `scalar.py` casts where it
does), `uiN` is `uintN_t`, `i1` is `bool` (one byte, as the llvm path stores
it), `f32`/`f64` are `float`/`double`; a buffer is a pointer to its
element type. The storage-only floats `bf16` and `f8…` are their bits,
`uint16_t`/`uint8_t`: kernels only move them and convert them with integer
operations (docs/element-types.md).

The sub-byte integers (`i4`, `ui4`, `i2`, `ui2`; docs/sub-byte-types.md)
are held in `int8_t`/`uint8_t`, sign- or zero-extended from their width
(`sub_byte`), and their buffers are `uint8_t` arrays of packed bytes.

f16 is stored as its bits (`uint16_t`) and its *values* are held in
`float`s (`c_value_type`), rounded to f16 after each operation
(`xtvm_h2f(xtvm_f2h(...))`, the prelude's integer conversions): C's
`_Float16` is no use here, as GCC does its arithmetic and comparisons
through libgcc calls (`__nehf2`, ...) that the JIT cannot resolve.
"""

from __future__ import annotations

import math

import numpy as np

from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
)
from xdsl.ir import Attribute, Operation

from xtvm.dtypes import REDUCED_FLOATS, sub_byte_bits


class CTranslationError(Exception):
    """A construct `convert-tir-to-c` cannot translate; the message names it.

    `op`, once known, is the op being translated (where `xtvm-opt` reports it)."""

    op: Operation | None = None


def int_width(ty: Attribute) -> int:
    """The bit width of an integer or index type."""
    if isinstance(ty, IndexType):
        return 64
    assert isinstance(ty, IntegerType), ty
    return ty.width.data


def is_unsigned(ty: Attribute) -> bool:
    return isinstance(ty, IntegerType) and ty.signedness.data == Signedness.UNSIGNED


def c_type(ty: Attribute) -> str:
    """The C type of a tir scalar or buffer (see the module docstring)."""
    if isinstance(ty, IndexType):
        return "int64_t"
    if isinstance(ty, IntegerType):
        width = ty.width.data
        if width == 1:
            return "bool"
        if width in (2, 4):  # a sub-byte value, extended to a byte
            return "uint8_t" if is_unsigned(ty) else "int8_t"
        if width not in (8, 16, 32, 64):
            raise CTranslationError(f"convert-tir-to-c: no C type for {ty} (widths 1, 8, 16, 32, 64)")
        return f"{'u' if is_unsigned(ty) else ''}int{width}_t"
    if isinstance(ty, Float16Type):
        return "uint16_t"  # the bits; values are floats (see the module docstring)
    if ty in REDUCED_FLOATS.values() and ty.bitwidth in (8, 16):
        return f"uint{ty.bitwidth}_t"  # bf16, f8: the bits (docs/element-types.md)
    if ty in REDUCED_FLOATS.values() and sub_byte_bits(ty):
        return "uint8_t"  # f4E2M1FN: its bits, zero-extended (docs/sub-byte-types.md)
    if isinstance(ty, Float32Type):
        return "float"
    if isinstance(ty, Float64Type):
        return "double"
    if isinstance(ty, MemRefType):
        return f"{buffer_element(ty.element_type)}*"
    raise CTranslationError(f"convert-tir-to-c: no C type for {ty}")


def c_value_type(ty: Attribute) -> str:
    """The C type of a local holding a value of `ty` (f16 values are floats)."""
    return "float" if isinstance(ty, Float16Type) else c_type(ty)


def round_f16(text: str) -> str:
    """An f32 expression rounded to f16, kept as a float."""
    return f"xtvm_h2f(xtvm_f2h({text}))"


def buffer_element(ty: Attribute) -> str:
    """The C element type of a buffer of `ty`: packed bytes for a sub-byte type."""
    return "uint8_t" if sub_byte_bits(ty) else c_type(ty)


def sub_byte(text: str, ty: Attribute) -> str:
    """A value of the sub-byte type `ty` from the low bits of the C integer
    `text`: sign-extended (`i4`: -8..7) or zero-extended (`ui4`, and the
    bits of an `f4E2M1FN`)."""
    width = sub_byte_bits(ty)
    assert width is not None, ty
    if not isinstance(ty, IntegerType) or is_unsigned(ty):
        return f"((uint8_t)(({text}) & {(1 << width) - 1}))"
    return f"((int8_t)((int8_t)((uint8_t)({text}) << {8 - width}) >> {8 - width}))"


def unsigned_type(ty: Attribute) -> str:
    """The unsigned C type of an integer's width (to read its bits as unsigned)."""
    width = int_width(ty)
    return "bool" if width == 1 else f"uint{max(width, 8)}_t"


def signed_type(ty: Attribute) -> str:
    """The signed C type of an integer's width."""
    width = int_width(ty)
    return "bool" if width == 1 else f"int{max(width, 8)}_t"


def int_literal(value: int, ty: Attribute) -> str:
    """An integer constant of type `ty` (its bits wrapped to the width)."""
    width = int_width(ty)
    if width == 1:
        return "true" if value & 1 else "false"
    value &= (1 << width) - 1
    if is_unsigned(ty):
        return f"{value}u" if width <= 32 else f"{value}ull"
    if value >= 1 << (width - 1):
        value -= 1 << width
    if width == 64:
        if value == -(1 << 63):
            return "(-9223372036854775807LL - 1)"
        return str(value) if -(1 << 31) < value < 1 << 31 else f"{value}LL"
    if value == -(1 << 31):
        return "(-2147483647 - 1)"
    return str(value)


def float_literal(value: float, ty: Attribute) -> str:
    """A floating-point constant of type `ty`, exact: the shortest decimal
    that reads back as the same value (an f16 constant is an f32 literal:
    f16 values are held in floats, and every f16 is an f32)."""
    if math.isnan(value):
        text = "NAN"
    elif math.isinf(value):
        text = "INFINITY" if value > 0 else "-INFINITY"
    else:
        # the shortest decimal that reads back as the same value of the type
        text = repr(value) if isinstance(ty, Float64Type) else str(np.float32(value))
        if "e" not in text and "." not in text:
            text += ".0"
        if isinstance(ty, Float32Type | Float16Type):
            text += "f"
    if isinstance(ty, Float64Type) and text.lstrip("-") in ("NAN", "INFINITY"):
        return f"((double){text})"
    return text
