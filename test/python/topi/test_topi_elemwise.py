"""The elementwise relay ops compiled through their topi computes to native
code, against their NumPy references, for every dtype family: signed and
unsigned integers of every width, float16/32/64 and bool, on edge values
(integer limits, zero divisors, shifts out of range, NaN, infinities,
signed zeros)."""

from __future__ import annotations

import numpy as np
import pytest
from topi_testing import relay_op_module, run_relay, tensor_type

from xtvm.dialects import relay
from xtvm.dialects.relay.primitive import kernel_name
from xtvm.reference.relay import evaluate_results

INTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
NUMERIC = INTS + UINTS + FLOATS


def values(dtype: str, n: int = 24) -> np.ndarray:
    """``n`` values of ``dtype``: its limits, -1, 0, 1 and small random ones;
    for floats also NaN, ±inf and -0."""
    rng = np.random.default_rng(len(dtype) * n)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("float"):
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -2.5]
        rest = rng.uniform(-8, 8, n - len(special))
        return np.array([*special, *rest]).astype(dtype)
    info = np.iinfo(dtype)
    special = [info.min, info.max, 0, 1, info.max - 1]
    if info.min < 0:
        special += [-1, info.min + 1]
    rest = rng.integers(max(info.min, -100), min(info.max, 100), n - len(special), endpoint=True)
    return np.array([*special, *(int(r) for r in rest)], dtype=dtype)


def check(
    op_cls: type[relay.RelayOp],
    inputs: list[np.ndarray],
    rtol: float = 1e-6,
    signed_zeros: bool = True,
    **kw,
) -> None:
    """Compile ``op_cls`` on ``inputs``' types, run it and compare with the
    reference (also the sign of zero results, unless ``signed_zeros`` is off)."""
    types = [tensor_type(a.shape, a.dtype.name) for a in inputs]
    module, op = relay_op_module(op_cls, types, **kw)
    (want,) = evaluate_results(op.name, inputs, op.attrs)
    (got,) = run_relay(module, kernel_name(op.name), inputs)
    assert got.dtype == want.dtype and got.shape == want.shape
    if np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        if signed_zeros:
            zeros = want == 0
            np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))
    else:
        np.testing.assert_array_equal(got, want)


def pairs(dtype: str) -> list[np.ndarray]:
    """Every value of :func:`values` against every other (a 2-d broadcast)."""
    v = values(dtype, 12)
    return [v.reshape(-1, 1), v]


ARITHMETIC = [
    relay.AddOp,
    relay.SubtractOp,
    relay.MultiplyOp,
    relay.DivideOp,
    relay.FloorModOp,
    relay.TruncModOp,
    relay.MaximumOp,
    relay.MinimumOp,
]


@pytest.mark.parametrize("op_cls", ARITHMETIC, ids=lambda op: op.name)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_arithmetic(op_cls: type[relay.RelayOp], dtype: str) -> None:
    # integer limits wrap, x / 0 == x and x % 0 == 0, INT_MIN / -1 wraps;
    # float remainders follow C's fmod and NumPy's mod (signed zeros, inf)
    # max(-0, +0) may be either zero
    with np.errstate(all="ignore"):
        check(op_cls, pairs(dtype), signed_zeros=op_cls not in (relay.MaximumOp, relay.MinimumOp))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "uint64", "float16", "float64"])
def test_power(dtype: str) -> None:
    rng = np.random.default_rng(3)
    if dtype.startswith("float"):
        base = rng.uniform(0.1, 4, 16).astype(dtype)
        exponent = rng.uniform(-3, 3, 16).astype(dtype)
    else:
        low = 0 if dtype.startswith("u") else -9
        base = rng.integers(low, 9, 16).astype(dtype)
        exponent = rng.integers(0, 40, 16).astype(dtype)  # overflowing powers saturate
    with np.errstate(all="ignore"):
        check(relay.PowerOp, [base, exponent], rtol=1e-3 if dtype == "float16" else 1e-6)


COMPARISONS = [
    relay.EqualOp,
    relay.NotEqualOp,
    relay.LessOp,
    relay.LessEqualOp,
    relay.GreaterOp,
    relay.GreaterEqualOp,
]


@pytest.mark.parametrize("op_cls", COMPARISONS, ids=lambda op: op.name)
@pytest.mark.parametrize("dtype", [*NUMERIC, "bool"])
def test_comparison(op_cls: type[relay.RelayOp], dtype: str) -> None:
    check(op_cls, pairs(dtype))  # unsigned limits compare unsigned, NaN compares false


BITWISE = [
    relay.BitwiseAndOp,
    relay.BitwiseOrOp,
    relay.BitwiseXorOp,
    relay.LeftShiftOp,
    relay.RightShiftOp,
]


@pytest.mark.parametrize("op_cls", BITWISE, ids=lambda op: op.name)
@pytest.mark.parametrize("dtype", INTS + UINTS)
def test_bitwise(op_cls: type[relay.RelayOp], dtype: str) -> None:
    check(op_cls, pairs(dtype))


@pytest.mark.parametrize("dtype", INTS + UINTS)
def test_shift_amounts_out_of_range(dtype: str) -> None:
    bits = np.dtype(dtype).itemsize * 8
    x = values(dtype, 10)
    amounts = [0, 1, bits - 1, bits, bits + 1, np.iinfo(dtype).max]
    if dtype.startswith("int"):
        amounts += [-1, -bits, np.iinfo(dtype).min]
    shift = np.array(amounts, dtype)
    for op_cls in (relay.LeftShiftOp, relay.RightShiftOp):
        check(op_cls, [x.reshape(-1, 1), shift])


@pytest.mark.parametrize("dtype", INTS + UINTS)
def test_bitwise_not(dtype: str) -> None:
    check(relay.BitwiseNotOp, [values(dtype)])


@pytest.mark.parametrize("op_cls", [relay.LogicalAndOp, relay.LogicalOrOp, relay.LogicalXorOp])
def test_logical(op_cls: type[relay.RelayOp]) -> None:
    a = np.array([[False], [True]])
    b = np.array([False, True, True])
    check(op_cls, [a, b])
    check(relay.LogicalNotOp, [b])


@pytest.mark.parametrize("dtype", NUMERIC)
def test_sign_negative_abs(dtype: str) -> None:
    for op_cls in (relay.SignOp, relay.NegativeOp, relay.AbsOp):
        check(op_cls, [values(dtype)])


UNARY_FLOAT = [
    (relay.FloorOp, None),
    (relay.CeilOp, None),
    (relay.RoundOp, None),
    (relay.TruncOp, None),
    (relay.SinOp, None),
    (relay.CosOp, None),
    (relay.TanOp, None),
    (relay.AsinOp, (-1, 1)),
    (relay.AcosOp, (-1, 1)),
    (relay.AtanOp, None),
    (relay.SinhOp, None),
    (relay.CoshOp, None),
    (relay.AsinhOp, None),
    (relay.AcoshOp, (1, 9)),
    (relay.AtanhOp, (-1, 1)),
    (relay.ErfOp, None),
    (relay.IsNanOp, None),
    (relay.IsInfOp, None),
    (relay.IsFiniteOp, None),
]


@pytest.mark.parametrize(("op_cls", "domain"), UNARY_FLOAT, ids=lambda c: getattr(c, "name", ""))
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_float(op_cls: type[relay.RelayOp], domain, dtype: str) -> None:
    x = values(dtype, 40)
    if domain is not None:  # mostly inside the domain, the specials outside it
        inside = np.random.default_rng(1).uniform(*domain, 30)
        x = np.concatenate([x[:9], inside.astype(dtype), np.array(domain, dtype)])
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.5], dtype)  # round: halves to even
    rtol = 2e-3 if dtype == "float16" else 1e-5 if dtype == "float32" else 1e-12
    with np.errstate(all="ignore"):
        check(op_cls, [np.concatenate([x, halves])], rtol=rtol)


@pytest.mark.parametrize("dtype", [*NUMERIC, "bool"])
def test_where_broadcasts_three_ways(dtype: str) -> None:
    condition = np.array([[True], [False], [True]])
    x, y = values(dtype, 12)[:4], values(dtype, 12)[5].reshape(())
    check(relay.WhereOp, [condition, x, y])


DTYPES = [*NUMERIC, "bool"]


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_cast(src: str, dst: str) -> None:
    # float → integer truncates toward zero and saturates (NaN gives 0);
    # integer → integer wraps; to bool is != 0; float64 → float16 rounds once
    x = values(src, 20)
    with np.errstate(all="ignore"):
        if src.startswith("float") and not dst.startswith("float") and dst != "bool":
            x = np.concatenate([x, np.array([1e30, -1e30, 2.9, -2.9, 255.5, 65535.9], src)])
        check(relay.CastOp, [x], dtype=dst)
