"""The elementwise converters (remainders, unary maths, comparisons, logical
and bitwise ops, shifts, Where, Clip with run-time bounds, Cast/CastLike and
the activations) against onnxruntime: the imported relay (its ops, and its
NumPy evaluation) and the model compiled by xtvm and run natively."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import pytest
from node_testing import RNG, node_model, randn
from onnx import TensorProto
from onnx_testing import import_and_compare, import_error, op_names, run_ort

from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.backend import XtvmBackend


def compare(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    expected_ops: Sequence[str],
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """The imported ops, their NumPy evaluation and the compiled model, all
    against onnxruntime."""
    import_and_compare(model, feeds, expected_ops, rtol=rtol, atol=atol)
    want = run_ort(model, feeds)
    got = XtvmBackend.prepare(model).run([feeds[i.name] for i in model.graph.input])
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def ints(shape: tuple[int, ...], dtype, low: int = -50, high: int = 50) -> np.ndarray:
    return RNG.integers(low, high, shape).astype(dtype)


@pytest.mark.parametrize(
    ("dtype", "fmod", "relay_op"),
    [
        (np.int32, 0, "relay.floor_mod"),
        (np.int64, 1, "relay.trunc_mod"),
        (np.uint8, 0, "relay.floor_mod"),
        (np.float32, 1, "relay.trunc_mod"),
        (np.float64, 1, "relay.trunc_mod"),
    ],
)
def test_mod(dtype, fmod, relay_op):
    if np.issubdtype(dtype, np.floating):
        feeds = {"a": randn(3, 4, dtype=dtype) * 5, "b": randn(4, dtype=dtype) + 3}
    else:
        low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -20
        feeds = {"a": ints((3, 4), dtype, low, 20), "b": ints((4,), dtype, 1, 7)}
    compare(node_model("Mod", ["a", "b"], feeds, fmod=fmod), feeds, [relay_op])


def test_mod_rejects_other_fmod_values():
    feeds = {"a": randn(2), "b": randn(2)}
    message = import_error(node_model("Mod", ["a", "b"], feeds, fmod=2))
    assert "attribute 'fmod' = 2 is not supported: it must be 0 or 1" in message


UNARY = [
    ("Floor", "relay.floor", None),
    ("Ceil", "relay.ceil", None),
    ("Round", "relay.round", None),
    ("Sign", "relay.sign", None),
    ("Sin", "relay.sin", None),
    ("Cos", "relay.cos", None),
    ("Tan", "relay.tan", None),
    ("Asin", "relay.asin", (-1, 1)),
    ("Acos", "relay.acos", (-1, 1)),
    ("Atan", "relay.atan", None),
    ("Sinh", "relay.sinh", None),
    ("Cosh", "relay.cosh", None),
    ("Asinh", "relay.asinh", None),
    ("Acosh", "relay.acosh", (1, 5)),
    ("Atanh", "relay.atanh", (-1, 1)),
    ("Erf", "relay.erf", None),
    ("IsNaN", "relay.isnan", None),
]


@pytest.mark.parametrize(("op_type", "relay_op", "domain"), UNARY)
def test_unary_maths(op_type, relay_op, domain):
    x = randn(3, 4) * 2 if domain is None else RNG.uniform(*domain, (3, 4)).astype(np.float32)
    x[0, :2] = [np.nan, 2.5]  # NaN propagates; Round takes halves to even
    compare(node_model(op_type, ["x"], {"x": x}), {"x": x}, [relay_op])


def test_sign_of_integers():
    x = ints((5,), np.int8)
    compare(node_model("Sign", ["x"], {"x": x}), {"x": x}, ["relay.sign"])


def test_reciprocal():
    x = randn(2, 3) + 3
    compare(node_model("Reciprocal", ["x"], {"x": x}), {"x": x}, ["relay.const", "relay.divide"])


@pytest.mark.parametrize(
    ("positive", "negative", "expected_ops"),
    [
        (1, 1, ["relay.isinf"]),
        (1, 0, ["relay.isinf", "relay.const", "relay.greater", "relay.logical_and"]),
        (0, 1, ["relay.isinf", "relay.const", "relay.less", "relay.logical_and"]),
        (0, 0, ["relay.less"]),
    ],
)
def test_isinf(positive, negative, expected_ops):
    x = np.array([np.inf, -np.inf, np.nan, 0, -3.5], np.float32)
    model = node_model("IsInf", ["x"], {"x": x}, detect_positive=positive, detect_negative=negative)
    compare(model, {"x": x}, expected_ops)


COMPARISONS = [
    ("Equal", "relay.equal"),
    ("Less", "relay.less"),
    ("LessOrEqual", "relay.less_equal"),
    ("Greater", "relay.greater"),
    ("GreaterOrEqual", "relay.greater_equal"),
]


@pytest.mark.parametrize(("op_type", "relay_op"), COMPARISONS)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint16])
def test_comparisons(op_type, relay_op, dtype):
    feeds = {"a": ints((3, 4), dtype, 0, 4), "b": ints((4,), dtype, 0, 4)}
    compare(node_model(op_type, ["a", "b"], feeds), feeds, [relay_op])


def test_comparison_opset1_legacy_broadcast():
    feeds = {"a": randn(2, 3, 4), "b": randn(3)}
    model = node_model("Less", ["a", "b"], feeds, opset=1, broadcast=1, axis=1)
    # onnxruntime has no opset-1 kernels; opset 7 broadcasts b reshaped to 3x1
    want = [feeds["a"] < feeds["b"].reshape(3, 1)]
    import_and_compare(model, feeds, ["relay.reshape", "relay.less"], expected=want)


@pytest.mark.parametrize(
    ("op_type", "relay_op"),
    [("And", "relay.logical_and"), ("Or", "relay.logical_or"), ("Xor", "relay.logical_xor")],
)
def test_logical(op_type, relay_op):
    feeds = {"a": ints((2, 3, 4), bool, 0, 2), "b": ints((3, 1), bool, 0, 2)}
    compare(node_model(op_type, ["a", "b"], feeds), feeds, [relay_op])


def test_not():
    x = ints((3, 4), bool, 0, 2)
    compare(node_model("Not", ["x"], {"x": x}), {"x": x}, ["relay.logical_not"])


@pytest.mark.parametrize(
    ("op_type", "relay_op"),
    [
        ("BitwiseAnd", "relay.bitwise_and"),
        ("BitwiseOr", "relay.bitwise_or"),
        ("BitwiseXor", "relay.bitwise_xor"),
    ],
)
@pytest.mark.parametrize("dtype", [np.int16, np.uint64])
def test_bitwise(op_type, relay_op, dtype):
    feeds = {"a": ints((3, 4), dtype, 0, 1000), "b": ints((4,), dtype, 0, 1000)}
    compare(node_model(op_type, ["a", "b"], feeds, opset=18), feeds, [relay_op])


def test_bitwise_not():
    x = ints((3, 4), np.int32)
    compare(node_model("BitwiseNot", ["x"], {"x": x}, opset=18), {"x": x}, ["relay.bitwise_not"])


@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.uint64])
def test_bitshift(direction, dtype):
    bits = np.dtype(dtype).itemsize * 8
    feeds = {"a": ints((2, 4), dtype, 0, 200), "b": ints((4,), dtype, 0, bits)}
    op = "relay.left_shift" if direction == "LEFT" else "relay.right_shift"
    compare(node_model("BitShift", ["a", "b"], feeds, opset=11, direction=direction), feeds, [op])


def test_bitshift_of_signed_integers_opset28():
    # opset 28: arithmetic right shift; amounts out of [0, bits) shift every bit out
    x = np.array([-8, 64, -1, 5, -128, 3], np.int8)
    y = np.array([1, 1, 8, -1, 100, 0], np.int8)
    for direction, want in [
        ("RIGHT", np.array([-4, 32, -1, 0, -1, 3], np.int8)),
        ("LEFT", np.array([-16, -128, 0, 0, 0, 3], np.int8)),
    ]:
        model = node_model("BitShift", ["a", "b"], {"a": x, "b": y}, opset=28, direction=direction)
        (got,) = XtvmBackend.prepare(model).run([x, y])
        np.testing.assert_array_equal(got, want)


def test_where():
    feeds = {"c": ints((2, 1, 4), bool, 0, 2), "a": randn(3, 1), "b": randn(4)}
    compare(node_model("Where", ["c", "a", "b"], feeds), feeds, ["relay.where"])


@pytest.mark.parametrize("dtype", [np.int8, np.uint64, np.float64])
def test_clip_integer_and_double_bounds(dtype):
    feeds = {"x": ints((3, 4), dtype, 0, 100)}
    inits = {"lo": np.array(10, dtype), "hi": np.array(60, dtype)}
    compare(node_model("Clip", ["x", "lo", "hi"], feeds, inits), feeds, ["relay.clip"])


def test_clip_bounds_at_run_time_compile():
    feeds = {"x": ints((3, 4), np.int64), "lo": np.array(-5, np.int64)}
    model = node_model("Clip", ["x", "lo"], feeds)
    compare(model, feeds, ["relay.maximum"])


@pytest.mark.parametrize(
    ("x_dtype", "to"),
    [
        (np.float32, TensorProto.FLOAT16),
        (np.float64, TensorProto.FLOAT16),
        (np.float16, TensorProto.DOUBLE),
        (np.float32, TensorProto.UINT8),
        (np.int64, TensorProto.INT8),
        (np.uint32, TensorProto.FLOAT),
        (np.float32, TensorProto.BOOL),
        (np.bool_, TensorProto.INT16),
    ],
)
def test_cast_between_dtypes(x_dtype, to):
    x = (randn(3, 4) * 40).astype(x_dtype) if x_dtype != np.bool_ else ints((3, 4), bool, 0, 2)
    if to == TensorProto.UINT8:
        x = np.abs(x)  # in range: out-of-range float → int is UB in C
    compare(node_model("Cast", ["x"], {"x": x}, to=to), {"x": x}, ["relay.cast"])


def test_castlike():
    feeds = {"x": randn(2, 3) * 9, "like": np.zeros(1, np.int32)}
    compare(node_model("CastLike", ["x", "like"], feeds, opset=15), feeds, ["relay.cast"])


@pytest.mark.parametrize(
    ("to", "name"),
    [(TensorProto.COMPLEX64, "complex64"), (TensorProto.COMPLEX128, "complex128")],
)
def test_cast_to_unsupported_types_names_them(to, name):
    model = node_model("Cast", ["x"], {"x": randn(2)}, to=to)
    message = import_error(model)
    assert "attribute 'to' has element type" in message and "not supported" in message
    assert name.upper() in message.upper().replace("_", "")


ACTIVATIONS = [
    # op, attributes, opset, the relay op its decomposition hinges on
    ("Elu", {"alpha": 0.7}, 6, "relay.where"),
    ("Elu", {}, 22, "relay.where"),
    ("Selu", {"alpha": 1.5, "gamma": 2.0}, 6, "relay.where"),
    ("Selu", {}, 22, "relay.where"),
    ("Celu", {"alpha": 2.0}, 12, "relay.minimum"),
    ("LeakyRelu", {"alpha": 0.2}, 16, "relay.where"),
    ("ThresholdedRelu", {"alpha": 0.3}, 10, "relay.where"),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, 6, "relay.clip"),
    ("HardSwish", {}, 14, "relay.clip"),
    ("Softplus", {}, 1, "relay.log"),
    ("Softsign", {}, 1, "relay.divide"),
    ("Mish", {}, 18, "relay.tanh"),
    ("Gelu", {}, 20, "relay.erf"),
    ("Gelu", {"approximate": "tanh"}, 20, "relay.tanh"),
    ("Shrink", {"lambd": 0.6, "bias": 0.2}, 9, "relay.where"),
    ("Swish", {"alpha": 0.8}, 24, "relay.sigmoid"),
]


@pytest.mark.parametrize(("op_type", "attrs", "opset", "key_op"), ACTIVATIONS)
def test_activation(op_type, attrs, opset, key_op):
    x = randn(3, 5) * 3
    x[0, :3] = [0.0, 40.0, -40.0]  # zero and saturated tails
    model = node_model(op_type, ["x"], {"x": x}, opset=opset, **attrs)
    names = op_names(from_onnx(model)[0])
    assert key_op in names
    compare(model, {"x": x}, names)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_prelu_broadcasts_the_slope(dtype):
    feeds = {"x": (randn(2, 3, 4) * 9).astype(dtype)}
    inits = {"slope": np.array([[1], [2], [3]], dtype)}
    model = node_model("PRelu", ["x", "slope"], feeds, inits, opset=16)
    ops = ["relay.multiply", "relay.const", "relay.less", "relay.where"]
    compare(model, feeds, ops)


def test_prelu_slope_must_not_grow_x():
    feeds = {"x": randn(3), "slope": randn(2, 3)}
    message = import_error(node_model("PRelu", ["x", "slope"], feeds, opset=16))
    assert "input 'slope' ('slope') of shape 2x3 must broadcast to the shape of X, 3" in message


def test_activation_errors():
    x = randn(2)
    message = import_error(node_model("Gelu", ["x"], {"x": x}, opset=20, approximate="erf"))
    assert "attribute 'approximate' = 'erf' is not supported: it must be 'none' or" in message
    i = ints((2,), np.int32)
    message = import_error(node_model("Elu", ["x"], {"x": i}, opset=6))
    assert "input 'X' ('x') must be a float tensor, got int32" in message
