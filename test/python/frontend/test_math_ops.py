"""The elementwise and reduction converters: unary maths, Clip, the
variadic Max/Min/Sum/Mean, Pow, Cast and ReduceSum/Mean/Max/Min, against
onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from node_testing import RNG, node_model, randn
from onnx import TensorProto
from onnx_testing import import_and_compare, import_error, run_ort

UNARY = [
    ("Sigmoid", "relay.sigmoid"),
    ("Tanh", "relay.tanh"),
    ("Exp", "relay.exp"),
    ("Sqrt", "relay.sqrt"),
    ("Log", "relay.log"),
    ("Neg", "relay.negative"),
    ("Abs", "relay.abs"),
]


@pytest.mark.parametrize(("op_type", "relay_op"), UNARY)
@pytest.mark.parametrize("opset", [6, 13])
def test_unary(op_type, relay_op, opset):
    x = randn(3, 4)
    if op_type in ("Sqrt", "Log"):
        x = np.abs(x) + 0.1
    model = node_model(op_type, ["x"], {"x": x}, opset=opset)
    import_and_compare(model, {"x": x}, [relay_op])


@pytest.mark.parametrize(("op_type", "relay_op"), UNARY)
def test_unary_opset1_like_opset6(op_type, relay_op):
    # onnxruntime has no opset-1 kernels; v1 only adds `consumed_inputs`.
    x = np.abs(randn(2, 3)) + 0.1
    want = run_ort(node_model(op_type, ["x"], {"x": x}, opset=6), {"x": x})
    model = node_model(op_type, ["x"], {"x": x}, opset=1, consumed_inputs=[0])
    import_and_compare(model, {"x": x}, [relay_op], expected=want)


@pytest.mark.parametrize(
    ("op_type", "dtype"), [("Neg", np.int64), ("Abs", np.int32), ("Neg", np.float64)]
)
def test_unary_other_dtypes(op_type, dtype):
    x = RNG.integers(-9, 9, (2, 5)).astype(dtype)
    model = node_model(op_type, ["x"], {"x": x})
    import_and_compare(model, {"x": x}, [f"relay.{'negative' if op_type == 'Neg' else 'abs'}"])


@pytest.mark.parametrize(
    ("opset", "node_inputs", "inits", "attrs"),
    [
        (6, ["x"], {}, {"min": -0.5, "max": 0.5}),
        (6, ["x"], {}, {"max": 0.0}),
        (6, ["x"], {}, {}),
        (11, ["x", "lo", "hi"], {"lo": np.float32(-1), "hi": np.float32(0.25)}, {}),
        (12, ["x", "", "hi"], {"hi": np.float32(0.25)}, {}),
        (13, ["x", "lo"], {"lo": np.float32(0.1)}, {}),
        (13, ["x"], {}, {}),
        # min > max: max wins (ONNX: min(max(x, min), max))
        (13, ["x", "lo", "hi"], {"lo": np.float32(1), "hi": np.float32(0)}, {}),
    ],
)
def test_clip(opset, node_inputs, inits, attrs):
    feeds = {"x": randn(4, 5)}
    model = node_model("Clip", node_inputs, feeds, inits, opset=opset, **attrs)
    import_and_compare(model, feeds, ["relay.clip"])


def test_clip_integers():
    feeds = {"x": RNG.integers(-20, 20, (3, 4)).astype(np.int64)}
    inits = {"lo": np.int64(-5), "hi": np.int64(7)}
    model = node_model("Clip", ["x", "lo", "hi"], feeds, inits)
    import_and_compare(model, feeds, ["relay.clip"])


def test_clip_bounds_computed_at_run_time():
    # bounds that are graph inputs become maximum / minimum with the scalar tensors
    feeds = {"x": randn(2, 3), "lo": np.array(-0.2, np.float32), "hi": np.array([0.3], np.float32)}
    model = node_model("Clip", ["x", "lo", "hi"], feeds)
    ops = ["relay.maximum", "relay.reshape", "relay.minimum"]
    import_and_compare(model, feeds, ops)


VARIADIC = [
    ("Max", "relay.maximum"),
    ("Min", "relay.minimum"),
    ("Sum", "relay.add"),
    ("Mean", "relay.add"),
]


@pytest.mark.parametrize(("op_type", "relay_op"), VARIADIC)
@pytest.mark.parametrize(
    "shapes", [[(3, 4)], [(3, 4), (3, 4)], [(2, 3, 4), (4,), (3, 1)], [(1, 4), (3, 1)]]
)
@pytest.mark.parametrize("opset", [8, 13])
def test_variadic(op_type, relay_op, shapes, opset):
    feeds = {f"x{i}": randn(*s) for i, s in enumerate(shapes)}
    model = node_model(op_type, list(feeds), feeds, opset=opset)
    ops = [relay_op] * (len(shapes) - 1)
    if op_type == "Mean" and len(shapes) > 1:
        ops += ["relay.const", "relay.divide"]
    import_and_compare(model, feeds, ops)


@pytest.mark.parametrize(("op_type", "relay_op"), VARIADIC)
def test_variadic_opset6_equal_shapes(op_type, relay_op):
    feeds = {f"x{i}": randn(2, 3) for i in range(3)}
    model = node_model(op_type, list(feeds), feeds, opset=6)
    ops = [relay_op] * 2 + (["relay.const", "relay.divide"] if op_type == "Mean" else [])
    import_and_compare(model, feeds, ops)


def test_variadic_opset6_needs_equal_shapes():
    feeds = {"a": randn(2, 3), "b": randn(3)}
    model = node_model("Sum", ["a", "b"], feeds, opset=6)
    assert import_error(model) == (
        "node 'n' (Sum, opset 6): inputs must have equal shapes before opset 8, got 2x3, 3"
    )


def test_variadic_integers():
    feeds = {f"x{i}": RNG.integers(-9, 9, (2, 3)).astype(np.int32) for i in range(3)}
    model = node_model("Max", list(feeds), feeds)
    import_and_compare(model, feeds, ["relay.maximum", "relay.maximum"])


@pytest.mark.parametrize("opset", [7, 13, 15])
def test_pow_same_type(opset):
    feeds = {"x": np.abs(randn(3, 4)) + 0.5, "e": randn(4)}
    import_and_compare(node_model("Pow", ["x", "e"], feeds, opset=opset), feeds, ["relay.power"])


def test_pow_constant_integer_exponent_is_converted_at_import():
    feeds = {"x": randn(3, 4)}
    model = node_model("Pow", ["x", "e"], feeds, {"e": np.array(3, np.int64)})
    import_and_compare(model, feeds, ["relay.const", "relay.power"], rtol=1e-5)


def test_pow_computed_integer_exponent_is_cast():
    feeds = {"x": randn(3, 4), "e": RNG.integers(0, 4, (3, 4)).astype(np.int64)}
    model = node_model("Pow", ["x", "e"], feeds)
    import_and_compare(model, feeds, ["relay.cast", "relay.power"], rtol=1e-5)


def test_pow_integer_base_float_exponent():
    feeds = {"x": RNG.integers(1, 9, (2, 3)).astype(np.int64), "e": np.float32([0.5, 1.5, 2])}
    model = node_model("Pow", ["x", "e"], feeds)
    import_and_compare(model, feeds, ["relay.cast", "relay.power", "relay.cast"])


def test_pow_opset1_legacy_broadcast():
    feeds = {"x": np.abs(randn(2, 3, 4)) + 0.5, "e": randn(3)}
    model = node_model("Pow", ["x", "e"], feeds, opset=1, broadcast=1, axis=1)
    want = [np.power(feeds["x"], feeds["e"][:, None])]
    import_and_compare(model, feeds, ["relay.reshape", "relay.power"], expected=want)


@pytest.mark.parametrize(
    ("x_dtype", "to", "expected_ops"),
    [
        (np.float32, TensorProto.INT32, ["relay.cast"]),
        (np.float32, TensorProto.INT64, ["relay.cast"]),
        (np.float32, TensorProto.DOUBLE, ["relay.cast"]),
        (np.int64, TensorProto.FLOAT, ["relay.cast"]),
        (np.int32, TensorProto.INT64, ["relay.cast"]),
        (np.float32, TensorProto.FLOAT, []),
    ],
)
@pytest.mark.parametrize("opset", [6, 13, 21])
def test_cast(x_dtype, to, expected_ops, opset):
    x = (randn(3, 4) * 10).astype(x_dtype)
    model = node_model("Cast", ["x"], {"x": x}, opset=opset, to=to)
    import_and_compare(model, {"x": x}, expected_ops)


def test_cast_opset1_names_the_type():
    x = randn(2, 2) * 10
    model = node_model("Cast", ["x"], {"x": x}, opset=1, to="INT32")
    import_and_compare(model, {"x": x}, ["relay.cast"], expected=[x.astype(np.int32)])


def test_cast_to_unsupported_type():
    model = node_model("Cast", ["x"], {"x": randn(2)}, to=TensorProto.COMPLEX64)
    assert import_error(model).startswith(
        "node 'n' (Cast, opset 13): attribute 'to' has element type COMPLEX64, which is not "
        "supported (supported: float32, float64, float16, int8, "
    )


REDUCE = [
    ("ReduceSum", "relay.sum"),
    ("ReduceMean", "relay.mean"),
    ("ReduceMax", "relay.max"),
    ("ReduceMin", "relay.min"),
]


@pytest.mark.parametrize(("op_type", "relay_op"), REDUCE)
@pytest.mark.parametrize(
    "attrs",
    [{}, {"axes": [1]}, {"axes": [0, -1], "keepdims": 0}, {"axes": [2], "keepdims": 1}],
)
@pytest.mark.parametrize("opset", [1, 11])
def test_reduce_axes_attribute(op_type, relay_op, attrs, opset):
    feeds = {"x": randn(2, 3, 4)}
    model = node_model(op_type, ["x"], feeds, opset=opset, **attrs)
    import_and_compare(model, feeds, [relay_op], rtol=1e-5)


@pytest.mark.parametrize(("op_type", "relay_op"), REDUCE)
@pytest.mark.parametrize(
    ("axes", "attrs", "expected_ops"),
    [
        (None, {}, "reduce"),
        ([1], {}, "reduce"),
        ([-1, 0], {"keepdims": 0}, "reduce"),
        (None, {"noop_with_empty_axes": 1}, []),
        ([], {"noop_with_empty_axes": 1}, []),
        ([], {"noop_with_empty_axes": 0}, "reduce"),
    ],
)
def test_reduce_axes_input(op_type, relay_op, axes, attrs, expected_ops):
    opset = 13 if op_type == "ReduceSum" else 18
    feeds = {"x": randn(2, 3, 4)}
    inits = {} if axes is None else {"axes": np.array(axes, np.int64)}
    names = ["x"] if axes is None else ["x", "axes"]
    model = node_model(op_type, names, feeds, inits, opset=opset, **attrs)
    import_and_compare(model, feeds, [relay_op] if expected_ops == "reduce" else [], rtol=1e-5)


def test_reduce_errors():
    feeds = {"x": randn(2, 3)}
    repeated = node_model("ReduceMax", ["x"], feeds, axes=[1, -1])
    assert import_error(repeated) == (
        "node 'n' (ReduceMax, opset 13): attribute 'axes' = [1, -1] repeats an axis"
    )
    out_of_range = node_model("ReduceSum", ["x", "a"], feeds, {"a": np.array([2])})
    assert import_error(out_of_range) == (
        "node 'n' (ReduceSum, opset 13): input 'axes' ('a') = [2] is out of range for rank 2"
    )
    computed = node_model("ReduceSum", ["x", "a"], {**feeds, "a": np.array([0])})
    assert "input 'axes' ('a') must be known at compile time" in import_error(computed)
