"""NumPy semantics of elementwise arithmetic, ``relay.clip``, ``relay.cast``
and ``relay.shape_of``.

The references say what compiled code computes where C leaves it open:
integer division by zero gives the dividend (``x / 0 == x``, ``x % 0 ==
0``), ``INT_MIN / -1`` wraps, and a float converted to an integer saturates
to the integer's range (NaN gives 0).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np


def _int_quotient(lhs: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The truncated quotient and remainder of two integer arrays, exactly
    (no float round trip), with a zero divisor read as 1."""
    divisor = np.where(rhs == 0, np.ones_like(rhs), rhs)
    with np.errstate(over="ignore"):  # INT_MIN // -1 wraps, as in the generated code
        q = np.floor_divide(lhs, divisor)
        r = lhs - q * divisor
    fix = (r != 0) & ((lhs < 0) != (divisor < 0))  # floor → trunc below zero
    with np.errstate(over="ignore"):
        return (q + fix).astype(lhs.dtype), np.where(fix, r - divisor, r).astype(lhs.dtype)


def divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """True division for floats; truncation toward zero for integers (as C,
    TVM and ONNX), ``x / 0 == x``."""
    lhs, rhs = np.broadcast_arrays(lhs, rhs)
    if np.issubdtype(lhs.dtype, np.integer):
        q, _ = _int_quotient(lhs, rhs)
        return np.where(rhs == 0, lhs, q)
    return np.divide(lhs, rhs).astype(lhs.dtype)


def floor_mod(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Remainder with the sign of ``rhs`` (NumPy's ``mod``); ``x mod 0`` is 0
    for integers."""
    if np.issubdtype(lhs.dtype, np.integer):
        lhs, rhs = np.broadcast_arrays(lhs, rhs)
        divisor = np.where(rhs == 0, np.ones_like(rhs), rhs)
        return np.mod(lhs, divisor).astype(lhs.dtype)
    return np.mod(lhs, rhs).astype(lhs.dtype)


def trunc_mod(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Remainder with the sign of ``lhs`` (C's ``%`` and ``fmod``); ``x mod
    0`` is 0 for integers."""
    if np.issubdtype(lhs.dtype, np.integer):
        lhs, rhs = np.broadcast_arrays(lhs, rhs)
        _, r = _int_quotient(lhs, rhs)
        return np.where(rhs == 0, np.zeros_like(r), r)
    return np.fmod(lhs, rhs).astype(lhs.dtype)


def saturating_cast(x: np.ndarray, dtype: str | np.dtype) -> np.ndarray:
    """``x`` converted to ``dtype``; a float → integer conversion truncates
    toward zero and saturates to the integer's range, NaN giving 0 (LLVM's
    ``fptosi.sat``/``fptoui.sat``, which the generated code uses)."""
    dtype = np.dtype(dtype)
    if dtype.name in SUB_BYTE_INTS and np.issubdtype(x.dtype, np.floating):
        return sub_byte_int_cast(x, dtype)
    if not (np.issubdtype(x.dtype, np.floating) and np.issubdtype(dtype, np.integer)):
        return x.astype(dtype)
    info = np.iinfo(dtype)
    wide = np.trunc(x.astype(np.float64))
    out = np.where(np.isnan(wide), 0, np.clip(wide, info.min, info.max))
    # float64 rounds int64/uint64 limits up: the clip may give 2**63 or 2**64
    high = wide >= float(info.max)
    return np.where(high, info.max, out.astype(dtype, casting="unsafe")).astype(dtype)


SUB_BYTE_INTS = ("int4", "uint4", "int2", "uint2")
"""The packed integer dtypes (``ml_dtypes``'), whose float conversion
:func:`sub_byte_int_cast` defines."""


def sub_byte_int_cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float → ``int4``/``uint4``/``int2``/``uint2`` conversion as the
    generated code does it: truncated toward zero, 0 where the result is
    out of range, NaN or infinite (ONNX leaves out-of-range undefined;
    ``ml_dtypes`` 0.7 gives 0, 0.6 wraps, so the reference does not defer
    to it; docs/sub-byte-types.md)."""
    info = ml_dtypes.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        wide = np.trunc(x.astype(np.float64))
        inside = (wide >= info.min) & (wide <= info.max)
    return np.where(inside, wide, 0).astype(np.int8).astype(dtype)


REDUCED_FLOATS = (
    "bfloat16",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn",
)
"""The storage-only floats (``ml_dtypes`` dtypes), converted through float32."""


def cast(x: np.ndarray, dtype: str, saturate: bool = False, round_mode: str = "up") -> np.ndarray:
    """``relay.cast``: :func:`saturating_cast`, and to or from a storage-only
    float through float32 (``ml_dtypes``; ``saturate`` clips to the largest
    finite value first; ``float8_e8m0fnu`` as :func:`to_float8_e8m0`)."""
    if np.dtype(dtype).name not in REDUCED_FLOATS and x.dtype.name not in REDUCED_FLOATS:
        return saturating_cast(x, dtype)
    if x.dtype.name in REDUCED_FLOATS:
        x = x.astype(np.float32)
        return x if np.dtype(dtype) == np.float32 else cast(x, dtype, saturate, round_mode)
    x = x.astype(np.float32)
    if np.dtype(dtype).name == "float8_e8m0fnu":
        return to_float8_e8m0(x, saturate, round_mode)
    if saturate:
        info = ml_dtypes.finfo(dtype)
        x = np.clip(x, np.float32(info.min), np.float32(info.max))
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(dtype)


def to_float8_e8m0(x: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    """float32 → ``float8_e8m0fnu`` as ONNX defines it: the exponent field,
    incremented when the mantissa rounds up (``up``: any fraction;
    ``nearest``: the guard bit with a round/sticky bit or a nonzero exponent;
    ``down``: never), not past ``0xFE`` when saturating; NaN/inf → ``0xFF``."""
    bits = x.astype(np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    mantissa = bits & 0x7FFFFF
    if round_mode == "up":
        up = mantissa > 0
    elif round_mode == "nearest":
        up = ((bits & 0x400000) > 0) & (((bits & 0x3FFFFF) > 0) | (exponent > 0))
    elif round_mode == "down":
        up = np.zeros(bits.shape, bool)
    else:
        raise ValueError(f"round_mode must be up, down or nearest, got {round_mode!r}")
    special = exponent == 0xFF
    up &= ~special
    if saturate:
        up &= exponent != 0xFE
    out = np.where(special, 0xFF, exponent + up).astype(np.uint8)
    return out.view(ml_dtypes.float8_e8m0fnu)


def power(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``lhs ** rhs``; integers are raised in float64 and converted back
    (saturating), as onnxruntime and the generated code do."""
    if np.issubdtype(lhs.dtype, np.integer):
        with np.errstate(all="ignore"):
            wide = np.power(lhs.astype(np.float64), rhs.astype(np.float64))
        return saturating_cast(wide, lhs.dtype)
    return np.power(lhs, rhs).astype(lhs.dtype)


def _same(fn):
    """An elementwise NumPy function applied to ``ins``, cast back to the first
    input's dtype (NumPy would promote, relay ops keep their dtype)."""
    return lambda ins, attrs: fn(*ins).astype(ins[0].dtype)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))``, written to avoid overflow for large ``|x|``."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


def _int_bound(bound: float, info: np.iinfo, rounding) -> int:
    """A float bound as an integer of ``info``'s dtype: rounded inward, saturated."""
    if math.isinf(bound):
        return info.max if bound > 0 else info.min
    return min(max(rounding(bound), info.min), info.max)


def clip(x: np.ndarray, a_min: float, a_max: float) -> np.ndarray:
    """``min(max(x, a_min), a_max)`` with the bounds converted to ``x``'s dtype
    (for integers: rounded inward and saturated to the dtype's range)."""
    if np.issubdtype(x.dtype, np.integer):
        info = np.iinfo(x.dtype)
        a_min, a_max = _int_bound(a_min, info, math.ceil), _int_bound(a_max, info, math.floor)
    lo, hi = np.asarray(a_min).astype(x.dtype), np.asarray(a_max).astype(x.dtype)
    return np.minimum(np.maximum(x, lo), hi)


def _wrapping(fn):
    """An integer-wrapping binary NumPy function keeping the first input's dtype."""

    def reference(ins, attrs):
        with np.errstate(over="ignore"):
            return fn(*ins).astype(ins[0].dtype)

    return reference


REFERENCES = {
    "relay.add": _wrapping(np.add),
    "relay.subtract": _wrapping(np.subtract),
    "relay.multiply": _wrapping(np.multiply),
    "relay.divide": lambda ins, attrs: divide(*ins),
    "relay.floor_mod": lambda ins, attrs: floor_mod(*ins),
    "relay.trunc_mod": lambda ins, attrs: trunc_mod(*ins),
    "relay.maximum": _same(np.maximum),
    "relay.minimum": _same(np.minimum),
    "relay.power": lambda ins, attrs: power(*ins),
    "relay.sigmoid": lambda ins, attrs: sigmoid(ins[0]),
    "relay.tanh": _same(np.tanh),
    "relay.exp": _same(np.exp),
    "relay.sqrt": _same(np.sqrt),
    "relay.log": _same(np.log),
    "relay.negative": _wrapping(np.negative),
    "relay.abs": _wrapping(np.abs),
    "relay.clip": lambda ins, attrs: clip(ins[0], attrs["a_min"], attrs["a_max"]),
    "relay.cast": lambda ins, attrs: cast(
        ins[0], attrs["dtype"], attrs.get("saturate", False), attrs.get("round_mode", "up")
    ),
    "relay.shape_of": lambda ins, attrs: np.array(ins[0].shape, attrs["dtype"]),
}
