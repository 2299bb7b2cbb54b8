"""Conversions between float32 and the reduced-precision floats (bfloat16,
the float8 family, float4_e2m1fn) as tensor expressions on their bits.

LLVM has no float8 or float4 type, so these formats are *storage* types:
a value is held as its bit pattern (``uint16`` for bfloat16, ``uint8`` for
the float8 types, ``uint4`` for float4) and every arithmetic happens in
float32. :func:`encode` and :func:`decode` are written once, with integer
operations only, and parameterized by the format's
:class:`xdsl.dialects.builtin.FloatSemantics` (exponent and mantissa bits,
bias, and how infinities and NaN are encoded), so each format is one row of
:data:`xtvm.dtypes.REDUCED_FLOATS`:

* float32 → format rounds to nearest, ties to even (as ``ml_dtypes``), with
  subnormals; an overflow becomes infinity (IEEE formats: ``bfloat16``,
  ``float8_e5m2``), NaN (``fn``/``fnuz`` formats) or the largest value
  (``float4_e2m1fn``, which has neither). ``saturate=True`` clamps to the
  largest finite magnitude first (infinities included, NaN kept), as ONNX's
  ``Cast`` with ``saturate=1``.
* ``fnuz`` formats have no negative zero: a result of zero is ``+0`` and NaN
  is the pattern ``0x80``.
* ``float8_e8m0fnu`` is an exponent alone (no sign, no zero): its
  conversion is ONNX's (``onnx.numpy_helper.to_float8e8m0``): the sign is
  dropped, zero and values below ``2**-127`` become ``2**-127``, and
  ``round_mode`` is ``"up"`` (ONNX's default), ``"down"`` or ``"nearest"``.

The bit-level functions take and return ``uint`` expressions, so a packed
layout (two float4 values a byte) calls them on each element.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import FloatNanEncoding, FloatNonfiniteBehavior, FloatSemantics

from xtvm import dtypes
from xtvm.te.expr import PrimExpr, convert
from xtvm.te.intrin import (
    bitwise_and,
    bitwise_or,
    const,
    eager_select,
    reinterpret,
    shift_left,
    shift_right,
)

ROUND_MODES = ("up", "down", "nearest")
"""The rounding modes of a conversion to ``float8_e8m0fnu`` (ONNX ``Cast``'s
``round_mode``); the other formats always round to nearest even."""

_F32_MANTISSA = 23


def bits_dtype(dtype: str) -> str:
    """The unsigned dtype holding one value of ``dtype``'s bits (``uint16``
    for bfloat16, ``uint8`` for the float8 types, ``uint4`` for float4: a
    reinterpret keeps the width, and float4 is 4 bits in llvm and packed in
    buffers, docs/sub-byte-types.md)."""
    width = dtypes.float_semantics(dtype).bitwidth
    return "uint16" if width > 8 else "uint8" if width == 8 else "uint4"


def _u32(value: int) -> PrimExpr:
    return const(value, "uint32")


def _max_magnitude(s: FloatSemantics) -> int:
    """The bits of the largest finite value, without the sign."""
    if s.nonfinite == FloatNonfiniteBehavior.IEEE:
        return ((s.max_exponent - 1) << s.mantissa_bits) | s.max_mantissa
    if s.nan_encoding == FloatNanEncoding.ALL_ONES:
        return (1 << (s.exponent_bits + s.mantissa_bits)) - 2
    return (1 << (s.exponent_bits + s.mantissa_bits)) - 1


def max_value(dtype: str) -> float:
    """The largest finite value of a reduced-precision float dtype."""
    s = dtypes.float_semantics(dtype)
    bits = _max_magnitude(s)
    exponent, mantissa = bits >> s.mantissa_bits, bits & s.max_mantissa
    return (1 + mantissa / (1 << s.mantissa_bits)) * 2.0 ** (exponent - s.exponent_bias)


def _round_shift(value: PrimExpr, shift: PrimExpr) -> PrimExpr:
    """``value >> shift`` rounded to nearest, ties to even (``uint32``, ``1 <=
    shift <= 31``)."""
    kept = shift_right(value, shift)
    dropped = bitwise_and(value, shift_left(_u32(1), shift) - _u32(1))
    half = shift_left(_u32(1), shift - _u32(1))
    odd = bitwise_and(kept, _u32(1)) == _u32(1)
    up = (dropped > half) | ((dropped == half) & odd)
    return kept + eager_select(up, _u32(1), _u32(0))


def encode(x: Any, dtype: str, saturate: bool = False, round_mode: str = "up") -> PrimExpr:
    """The bits (:func:`bits_dtype`) of the float32 expression ``x``
    converted to the reduced-precision float ``dtype``."""
    s = dtypes.float_semantics(dtype)
    x = convert(x)
    if x.dtype != "float32":
        raise TypeError(f"encode to {dtype} takes a float32 expression, got {x.dtype}")
    if round_mode not in ROUND_MODES:
        raise ValueError(f"round_mode must be one of {', '.join(ROUND_MODES)}, got {round_mode!r}")
    if not s.has_sign:
        return _encode_exponent_only(x, s, saturate, round_mode)
    if saturate:  # clamp to ±max (infinities too); NaN compares false and stays
        top = const(max_value(dtype), "float32")
        bottom = const(-max_value(dtype), "float32")
        x = eager_select(x > top, top, eager_select(x < bottom, bottom, x))
    m = s.mantissa_bits
    u = reinterpret("uint32", x)
    sign = shift_right(u, _u32(31))
    a = bitwise_and(u, _u32(0x7FFFFFFF))
    f32_exponent = shift_right(a, _u32(_F32_MANTISSA))
    # a normal result keeps the f32 bits shifted by the mantissa difference,
    # less the rebiasing; a subnormal one shifts the significand further
    first_normal = 128 - s.exponent_bias  # f32 exponent field of the smallest normal
    normal = f32_exponent >= _u32(first_normal)
    significand = bitwise_or(
        bitwise_and(a, _u32(0x7FFFFF)),
        eager_select(f32_exponent > _u32(0), _u32(0x800000), _u32(0)),
    )
    exponent = eager_select(f32_exponent > _u32(0), f32_exponent, _u32(1))
    extra = eager_select(
        exponent < _u32(first_normal), _u32(first_normal) - exponent, _u32(0)
    )
    extra = eager_select(extra > _u32(31 - (_F32_MANTISSA - m)), _u32(31 - (_F32_MANTISSA - m)), extra)
    shift = _u32(_F32_MANTISSA - m) + extra
    rebias = (127 - s.exponent_bias) << m
    source = eager_select(normal, a, significand)
    magnitude = _round_shift(source, shift) - eager_select(normal, _u32(rebias), _u32(0))
    # specials: NaN, infinity and overflow, per the format's encoding
    is_nan = a > _u32(0x7F800000)
    top_bits = _max_magnitude(s)
    overflow = (magnitude > _u32(top_bits)) | (a == _u32(0x7F800000))
    sign_bit = 1 << (s.exponent_bits + m)
    if s.nonfinite == FloatNonfiniteBehavior.IEEE:
        infinity = s.max_exponent << m
        magnitude = eager_select(overflow, _u32(infinity), magnitude)
        magnitude = eager_select(is_nan, _u32(infinity | (1 << (m - 1))), magnitude)
    elif s.nonfinite == FloatNonfiniteBehavior.FINITE_ONLY:
        # no NaN: ml_dtypes gives a zero of the opposite sign
        magnitude = eager_select(overflow, _u32(top_bits), magnitude)
        magnitude = eager_select(is_nan, _u32(0), magnitude)
        sign = eager_select(is_nan, _u32(1) - sign, sign)
    elif s.nan_encoding == FloatNanEncoding.ALL_ONES:
        magnitude = eager_select(overflow | is_nan, _u32(sign_bit - 1), magnitude)
    else:  # NEGATIVE_ZERO: NaN is the sign bit alone, and there is no -0
        nan = overflow | is_nan
        sign = eager_select(nan, _u32(1), eager_select(magnitude == _u32(0), _u32(0), sign))
        magnitude = eager_select(nan, _u32(0), magnitude)
    result = bitwise_or(shift_left(sign, _u32(s.exponent_bits + m)), magnitude)
    return result.astype(bits_dtype(dtype))


def _encode_exponent_only(
    x: PrimExpr, s: FloatSemantics, saturate: bool, round_mode: str
) -> PrimExpr:
    """``float8_e8m0fnu``: the f32 exponent field, rounded by the mantissa
    (ONNX's ``to_float8e8m0``); NaN and infinities are ``0xFF``."""
    u = reinterpret("uint32", x)
    exponent = bitwise_and(shift_right(u, _u32(_F32_MANTISSA)), _u32(0xFF))
    mantissa = bitwise_and(u, _u32(0x7FFFFF))
    special = exponent == _u32(0xFF)
    if round_mode == "up":
        up = mantissa > _u32(0)
    elif round_mode == "nearest":  # guard bit, and round or sticky bit or an odd... exponent > 0
        guard = bitwise_and(u, _u32(0x400000)) > _u32(0)
        rest = bitwise_and(u, _u32(0x3FFFFF)) > _u32(0)
        up = guard & (rest | (exponent > _u32(0)))
    else:
        up = None
    if up is not None:
        if saturate:
            up = up & (exponent != _u32(0xFE))
        exponent = exponent + eager_select(up, _u32(1), _u32(0))
    return eager_select(special, _u32(0xFF), exponent).astype("uint8")


def decode(bits: Any, dtype: str) -> PrimExpr:
    """The float32 value of the bits (:func:`bits_dtype`, or any unsigned
    expression holding them) of a reduced-precision float ``dtype``; exact."""
    s = dtypes.float_semantics(dtype)
    b = convert(bits).astype("uint32")
    m = s.mantissa_bits
    if dtype == "bfloat16":
        return reinterpret("float32", shift_left(b, _u32(16)))
    exponent = bitwise_and(shift_right(b, _u32(m)), _u32(s.max_exponent))
    mantissa = bitwise_and(b, _u32(s.max_mantissa))
    if not s.has_sign:  # float8_e8m0fnu: 2**(e - 127), 0 is the f32 subnormal 2**-127
        value = eager_select(
            exponent == _u32(0), _u32(0x400000), shift_left(exponent, _u32(_F32_MANTISSA))
        )
        value = eager_select(exponent == _u32(0xFF), _u32(0x7FC00000), value)
        return reinterpret("float32", value)
    sign = shift_left(shift_right(b, _u32(s.exponent_bits + m)), _u32(31))
    normal = bitwise_or(
        shift_left(exponent + _u32(127 - s.exponent_bias), _u32(_F32_MANTISSA)),
        shift_left(mantissa, _u32(_F32_MANTISSA - m)),
    )
    # a subnormal is mantissa * 2**(1 - bias - m): exact in float32
    subnormal = reinterpret(
        "uint32", mantissa.astype("float32") * const(2.0 ** (1 - s.exponent_bias - m), "float32")
    )
    magnitude = eager_select(exponent == _u32(0), subnormal, normal)
    if s.nonfinite == FloatNonfiniteBehavior.IEEE:
        special = bitwise_or(_u32(0x7F800000), shift_left(mantissa, _u32(_F32_MANTISSA - m)))
        magnitude = eager_select(exponent == _u32(s.max_exponent), special, magnitude)
    elif s.nonfinite == FloatNonfiniteBehavior.NAN_ONLY:
        if s.nan_encoding == FloatNanEncoding.ALL_ONES:
            nan = bitwise_and(b, _u32((1 << (s.exponent_bits + m)) - 1)) == _u32(
                (1 << (s.exponent_bits + m)) - 1
            )
        else:
            nan = b == _u32(1 << (s.exponent_bits + m))
        magnitude = eager_select(nan, _u32(0x7FC00000), magnitude)
    return reinterpret("float32", bitwise_or(sign, magnitude))


def convert_float(
    value: Any, dtype: str, saturate: bool = False, round_mode: str = "up"
) -> PrimExpr:
    """``value`` converted to ``dtype`` where either side is a reduced-precision
    float: through float32 (a float64 source rounds twice, a documented
    deviation), as a reinterpretation of :func:`encode`'s or
    :func:`decode`'s bits."""
    e = convert(value)
    src = e.dtype
    if src == dtype:
        return e
    if dtypes.is_reduced_float(src):
        e = decode(reinterpret(bits_dtype(src), e), src)
        return e if dtype == "float32" else convert_float(e, dtype, saturate, round_mode)
    if not dtypes.is_reduced_float(dtype):
        return e.astype(dtype)
    if src != "float32":
        e = e.astype("float32")
    return reinterpret(dtype, encode(e, dtype, saturate, round_mode))

