"""The compiled float32 ↔ bfloat16/float8 conversions of
:mod:`xtvm.te.reduced_float` against ``ml_dtypes`` (and ONNX's own
``to_float8e8m0`` for the exponent-only format, whose rounding ONNX defines):
every bit pattern of each 8-bit format, and a sweep of float32 values with
the midpoints between neighbouring values (ties), subnormals, overflow,
infinities and NaN."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from onnx.numpy_helper import to_float8e8m0

from xtvm import te

sys.path.insert(0, str(Path(__file__).parent.parent / "topi"))
from topi_testing import run_te

FLOAT8 = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz"]


def _decode(dtype: str, data: np.ndarray) -> np.ndarray:
    A = te.placeholder(data.shape, dtype, name="A")
    B = te.compute(data.shape, lambda i: A[i].astype("float32"), name="B")
    return run_te([A, B], [data])[0]


def _encode(dtype: str, x: np.ndarray, **options: object) -> np.ndarray:
    from xtvm.te.reduced_float import convert_float

    A = te.placeholder(x.shape, "float32", name="A")
    B = te.compute(x.shape, lambda i: convert_float(A[i], dtype, **options), name="B")
    return run_te([A, B], [x])[0]


def _same_values(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-equal, except that any NaN matches any NaN."""
    g, w = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    keep = ~np.isnan(w)
    np.testing.assert_array_equal(g[keep].view(np.uint32), w[keep].view(np.uint32))


def _sweep(dtype: str) -> np.ndarray:
    """float32 values that exercise rounding: every value of the format and
    the midpoints between neighbours (ties both ways), their nearest float32
    neighbours, subnormals of float32, huge values, infinities and NaN."""
    if dtype == "bfloat16":
        values = np.arange(1 << 16, dtype=np.uint16).view(ml_dtypes.bfloat16)
    else:
        values = np.arange(256, dtype=np.uint8).view(dtype)
    grid = np.unique(values.astype(np.float32)[np.isfinite(values.astype(np.float32))])
    mids = ((grid[:-1].astype(np.float64) + grid[1:]) / 2).astype(np.float32)
    rng = np.random.default_rng(18)
    random_bits = rng.integers(0, 1 << 32, 4096, dtype=np.uint64).astype(np.uint32).view(np.float32)
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, 3.4e38, -3.4e38],
        np.float32,
    )
    return np.concatenate(
        [
            grid,
            mids,
            np.nextafter(mids, np.float32(np.inf)),
            np.nextafter(mids, np.float32(-np.inf)),
            grid * np.float32(1.0001),
            random_bits,
            special,
        ]
    ).astype(np.float32)


@pytest.mark.parametrize("dtype", [*FLOAT8, "float8_e8m0fnu"])
def test_every_float8_bit_pattern_decodes_as_ml_dtypes(dtype: str) -> None:
    bits = np.arange(256, dtype=np.uint8).view(dtype)
    _same_values(_decode(dtype, bits), bits.astype(np.float32))


def test_bfloat16_decodes_as_ml_dtypes() -> None:
    bits = np.arange(1 << 16, dtype=np.uint16).view(ml_dtypes.bfloat16)
    _same_values(_decode("bfloat16", bits), bits.astype(np.float32))


@pytest.mark.parametrize("dtype", [*FLOAT8, "bfloat16"])
def test_float32_rounds_to_nearest_even_as_ml_dtypes(dtype: str) -> None:
    x = _sweep(dtype)
    got = _encode(dtype, x)
    with np.errstate(invalid="ignore"):  # NumPy warns on NaN to bfloat16
        want = x.astype(dtype)
    _same_values(got, want)
    # and the sign of zero: fnuz formats have none, the others keep it
    zero = want.astype(np.float32) == 0
    np.testing.assert_array_equal(
        np.signbit(got.astype(np.float32))[zero], np.signbit(want.astype(np.float32))[zero]
    )


@pytest.mark.parametrize("dtype", FLOAT8)
def test_saturate_clamps_to_the_largest_finite_value_as_onnx(dtype: str) -> None:
    x = _sweep(dtype)
    info = ml_dtypes.finfo(dtype)
    want = np.clip(x, info.min, info.max).astype(dtype)  # onnx.numpy_helper.saturate_cast
    _same_values(_encode(dtype, x, saturate=True), want)


@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_float8_e8m0_rounds_as_onnx(round_mode: str, saturate: bool) -> None:
    x = _sweep("float8_e8m0fnu")
    x = np.concatenate([x, np.ldexp(np.float32(1.5), np.arange(-149, 128)).astype(np.float32)])
    got = _encode("float8_e8m0fnu", x, saturate=saturate, round_mode=round_mode)
    want = to_float8e8m0(x, saturate, round_mode)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_float4_e2m1_bits_round_as_ml_dtypes() -> None:
    """float4 conversion math on its bits, widened to a uint8 here (its buffers
    pack two a byte; relay.cast goes through the same functions)."""
    from xtvm.te.reduced_float import decode, encode

    x = _sweep("float4_e2m1fn")
    A = te.placeholder(x.shape, "float32", name="A")
    B = te.compute(x.shape, lambda i: encode(A[i], "float4_e2m1fn").astype("uint8"), name="B")
    got = run_te([A, B], [x])[0]
    want = x.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
    np.testing.assert_array_equal(got, want)
    nibbles = np.arange(16, dtype=np.uint8)
    C = te.placeholder((16,), "uint8", name="C")
    D = te.compute((16,), lambda i: decode(C[i], "float4_e2m1fn"), name="D")
    values = run_te([C, D], [nibbles])[0]
    _same_values(values, nibbles.view(ml_dtypes.float4_e2m1fn).astype(np.float32))


def test_arithmetic_on_a_storage_float_is_refused() -> None:
    A = te.placeholder((4,), "bfloat16", name="A")
    B = te.compute((4,), lambda i: A[i] + A[i], name="B")
    with pytest.raises(ValueError, match="does not compute on bfloat16"):
        te.create_prim_func([A, B], "f")


@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("dtype", [*FLOAT8, "float8_e8m0fnu", "bfloat16"])
def test_relay_cast_reference_agrees_with_the_compiled_conversion(dtype: str, saturate: bool) -> None:
    """The NumPy reference of relay.cast (constant folding uses it) and the
    generated code give the same bits, both ways."""
    from xtvm.reference.relay.tensor import cast

    x = _sweep(dtype)
    got = _encode(dtype, x, saturate=saturate, round_mode="nearest")
    want = cast(x, dtype, saturate, "nearest")
    _same_values(got, want)
    _same_values(cast(want, "float32"), _decode(dtype, want))
