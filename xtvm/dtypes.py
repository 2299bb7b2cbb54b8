"""One spelling of each data type: xDSL element types ↔ NumPy/DLPack dtype
names (``"float32"``). NumPy-free, so dialects and tools may import it; the
tensor-expression dtypes (:mod:`xtvm.te.dtype`) map to xDSL types through it.

Besides the IEEE floats, the reduced-precision floats of ML (named as
``ml_dtypes`` names them) are element types: ``bfloat16`` (``bf16``), the
float8 family (``float8_e4m3fn`` is ``f8E4M3FN``, …) and ``float4_e2m1fn``
(``f4E2M1FN``). They are *storage* types: values are computed in float32 and
converted with :func:`float_semantics`' parameters (docs/element-types.md)."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    FloatSemantics,
    IntegerType,
    Signedness,
    f16,
    f32,
    f64,
    i1,
)
from xdsl.ir import Attribute

_IEEE_FLOATS: dict[str, Attribute] = {"float16": f16, "float32": f32, "float64": f64}

REDUCED_FLOATS: dict[str, Attribute] = {
    "bfloat16": BFloat16Type(),
    "float8_e4m3fn": Float8E4M3FNType(),
    "float8_e4m3fnuz": Float8E4M3FNUZType(),
    "float8_e5m2": Float8E5M2Type(),
    "float8_e5m2fnuz": Float8E5M2FNUZType(),
    "float8_e8m0fnu": Float8E8M0FNUType(),
    "float4_e2m1fn": Float4E2M1FNType(),
}
"""The reduced-precision (storage-only) floats by dtype name: computed in
float32, stored as their bit patterns."""

_FLOATS: dict[str, Attribute] = {**_IEEE_FLOATS, **REDUCED_FLOATS}

BFLOAT16_SEMANTICS = FloatSemantics(exponent_bits=8, mantissa_bits=7, exponent_bias=127)
"""bfloat16's format: float32's exponent, 7 mantissa bits (xDSL's ``bf16``
type does not carry a ``FloatSemantics``)."""


def is_reduced_float(dtype: str) -> bool:
    """Whether ``dtype`` is a storage-only float (:data:`REDUCED_FLOATS`)."""
    return dtype in REDUCED_FLOATS


def float_semantics(dtype: str) -> FloatSemantics:
    """The format of a reduced-precision float dtype: exponent and mantissa
    bits, bias, and how it encodes infinities and NaN."""
    if dtype == "bfloat16":
        return BFLOAT16_SEMANTICS
    if dtype not in REDUCED_FLOATS:
        raise ValueError(f"'{dtype}' is not a reduced-precision float dtype")
    return REDUCED_FLOATS[dtype].SEMANTICS  # type: ignore[attr-defined]


def element_type(dtype: str) -> Attribute:
    """The xDSL element type of a dtype name (signless integers for signed
    ints, ``ui8``-style unsigned integers, ``i1`` for bool)."""
    if dtype in _FLOATS:
        return _FLOATS[dtype]
    if dtype == "bool":
        return i1
    for prefix, signedness in (("uint", Signedness.UNSIGNED), ("int", Signedness.SIGNLESS)):
        if dtype.startswith(prefix) and dtype[len(prefix) :].isdigit():
            return IntegerType(int(dtype[len(prefix) :]), signedness)
    raise ValueError(f"unsupported dtype '{dtype}'")
def dtype_name(ty: Attribute) -> str:
    """The dtype name of an xDSL element type (the inverse of :func:`element_type`)."""
    for name, float_type in _FLOATS.items():
        if ty == float_type:
            return name
    if isinstance(ty, IntegerType):
        width = ty.width.data
        if width == 1:
            return "bool"
        unsigned = ty.signedness.data == Signedness.UNSIGNED
        return f"{'uint' if unsigned else 'int'}{width}"
    raise ValueError(f"no dtype for element type {ty}")


SUB_BYTE_DTYPES: dict[str, int] = {
    "int4": 4,
    "uint4": 4,
    "int2": 2,
    "uint2": 2,
    "float4_e2m1fn": 4,
}
"""The element types narrower than a byte, by dtype name, and their widths:
buffers hold them packed as ONNX does (8 // bits elements a byte, low bits
first, the last byte padded; docs/sub-byte-types.md). ``convert-tir-to-llvm``
loads and stores them with shifts and masks; values are computed in a wider
type. (``bool``, ``i1``, takes a whole byte.)"""


def sub_byte_bits(ty: Attribute) -> int | None:
    """The width in bits of a packed sub-byte element type (``i4``, ``ui2``,
    ``f4E2M1FN``, ...), or None for a type stored in whole bytes."""
    try:
        return SUB_BYTE_DTYPES.get(dtype_name(ty))
    except ValueError:
        return None


def storage_nbytes(ty: Attribute, count: int) -> int | None:
    """Bytes that ``count`` packed elements of ``ty`` take, or None when
    ``ty`` is not a sub-byte type (its elements take whole bytes)."""
    bits = sub_byte_bits(ty)
    return None if bits is None else -(-count * bits // 8)
