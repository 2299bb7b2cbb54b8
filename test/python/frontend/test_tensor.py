"""Converters of constants and elementwise maths: Constant, Add, Sub, Mul, Div."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_testing import import_and_compare, import_error, init, make_model, op_names, tensor

from xtvm.frontend import from_onnx

RNG = np.random.default_rng(0)
BINARY = {
    "Add": "relay.add",
    "Sub": "relay.subtract",
    "Mul": "relay.multiply",
    "Div": "relay.divide",
}


@pytest.mark.parametrize("op_type", BINARY)
@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [((2, 3), (2, 3)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3))],
)
def test_binary_broadcasts_like_numpy(op_type, shape_a, shape_b):
    model = make_model(
        [helper.make_node(op_type, ["a", "b"], ["y"])],
        [tensor("a", shape_a), tensor("b", shape_b)],
        [tensor("y", np.broadcast_shapes(shape_a, shape_b))],
    )
    feeds = {
        "a": RNG.standard_normal(shape_a).astype(np.float32),
        "b": (RNG.random(shape_b) + 0.5).astype(np.float32),
    }
    import_and_compare(model, feeds, [BINARY[op_type]])


@pytest.mark.parametrize("op_type", BINARY)
@pytest.mark.parametrize(
    ("elem", "dtype"),
    [
        (TensorProto.INT32, np.int32),
        (TensorProto.INT64, np.int64),
        (TensorProto.DOUBLE, np.float64),
    ],
)
def test_binary_dtypes(op_type, elem, dtype):
    # Integer Div truncates toward zero, as onnxruntime does.
    model = make_model(
        [helper.make_node(op_type, ["a", "b"], ["y"])],
        [tensor("a", [2, 3], elem), tensor("b", [3], elem)],
        [tensor("y", [2, 3], elem)],
    )
    feeds = {
        "a": np.array([[7, -7, 9], [-9, 4, 0]], dtype),
        "b": np.array([2, 3, -4], dtype),
    }
    import_and_compare(model, feeds, [BINARY[op_type]])


def test_binary_with_initializer_is_a_param():
    bias = RNG.standard_normal(3).astype(np.float32)
    model = make_model(
        [helper.make_node("Add", ["x", "bias"], ["y"])],
        [tensor("x", [2, 3])],
        [tensor("y", [2, 3])],
        [init("bias", bias)],
    )
    module = import_and_compare(model, {"x": np.ones((2, 3), np.float32)}, ["relay.add"])
    assert '%bias: tensor<3xf32> {relay.name = "bias"}' in str(module)


@pytest.mark.parametrize(
    ("shape_b", "attrs", "expected_ops"),
    [
        ((2, 3, 4), {}, ["relay.multiply"]),
        ((4,), {"broadcast": 1}, ["relay.multiply"]),
        ((3, 4), {"broadcast": 1}, ["relay.multiply"]),
        ((3,), {"broadcast": 1, "axis": 1}, ["relay.reshape", "relay.multiply"]),
        ((2,), {"broadcast": 1, "axis": 0}, ["relay.reshape", "relay.multiply"]),
        ((2, 3), {"broadcast": 1, "axis": -3}, ["relay.reshape", "relay.multiply"]),
    ],
)
def test_legacy_broadcast_opset6(shape_b, attrs, expected_ops):
    # onnxruntime has no kernels for opset < 7: compare with NumPy.
    model = make_model(
        [helper.make_node("Mul", ["a", "b"], ["y"], **attrs)],
        [tensor("a", [2, 3, 4]), tensor("b", shape_b)],
        [tensor("y", [2, 3, 4])],
        opset=6,
    )
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal(shape_b).astype(np.float32)
    axis = attrs.get("axis", 3 - len(shape_b)) % 3
    aligned = b.reshape(shape_b + (1,) * (3 - axis - len(shape_b)))
    import_and_compare(model, {"a": a, "b": b}, expected_ops, expected=[a * aligned])


@pytest.mark.parametrize(
    ("shape_a", "shape_b", "attrs", "message"),
    [
        (
            (2, 3, 4),
            (4,),
            {},
            "inputs must have equal shapes when attribute 'broadcast' is 0, got 2x3x4 and 4",
        ),
        (
            (2, 3, 4),
            (3,),
            {"broadcast": 1, "axis": 3},
            "attribute 'axis' = 3 cannot place B (3) inside A (2x3x4)",
        ),
        (
            (2, 3, 4),
            (3, 5),
            {"broadcast": 1, "axis": 1},
            "'relay.add' cannot broadcast shapes 2x3x4 and 3x5",
        ),
        (
            (2, 1, 4),
            (3,),
            {"broadcast": 1, "axis": 1},
            "legacy broadcast needs B (3) to broadcast to A's shape 2x1x4",
        ),
    ],
)
def test_legacy_broadcast_errors(shape_a, shape_b, attrs, message):
    model = make_model(
        [helper.make_node("Add", ["a", "b"], ["y"], name="add0", **attrs)],
        [tensor("a", shape_a), tensor("b", shape_b)],
        [tensor("y", shape_a)],
        opset=6,
    )
    assert import_error(model) == f"node 'add0' (Add, opset 6): {message}"


def test_binary_type_error_names_the_node():
    model = make_model(
        [helper.make_node("Add", ["a", "b"], ["y"], name="bad_add")],
        [tensor("a", [2, 3]), tensor("b", [4])],
        [tensor("y", [2, 3])],
    )
    assert import_error(model) == (
        "node 'bad_add' (Add, opset 13): 'relay.add' cannot broadcast shapes 2x3 and 4"
    )


def test_binary_dtype_mismatch_names_the_node():
    model = make_model(
        [helper.make_node("Mul", ["a", "b"], ["y"])],
        [tensor("a", [2]), tensor("b", [2], TensorProto.INT64)],
        [tensor("y", [2])],
    )
    assert import_error(model) == (
        "node #0 (Mul, opset 13): 'relay.multiply' operands must have one element type, "
        "got f32 and i64"
    )


@pytest.mark.parametrize(
    ("attrs", "value"),
    [
        (
            {"value": init("c", np.arange(6, dtype=np.float32).reshape(2, 3))},
            np.arange(6, dtype=np.float32).reshape(2, 3),
        ),
        ({"value_float": 2.5}, np.array(2.5, np.float32)),
        ({"value_floats": [1.0, 2.0, 3.0]}, np.array([1, 2, 3], np.float32)),
        ({"value_int": 3}, np.array(3, np.int64)),
        ({"value_ints": [1, 2, 3]}, np.array([1, 2, 3], np.int64)),
    ],
)
def test_constant(attrs, value):
    elem = TensorProto.FLOAT if value.dtype == np.float32 else TensorProto.INT64
    model = make_model(
        [
            helper.make_node("Constant", [], ["c"], **attrs),
            helper.make_node("Mul", ["x", "c"], ["y"]),
        ],
        [tensor("x", value.shape, elem)],
        [tensor("y", value.shape, elem)],
    )
    x = np.full(value.shape, 2, value.dtype)
    import_and_compare(model, {"x": x}, ["relay.const", "relay.multiply"])
    assert from_onnx(model)[1] == {}  # a Constant is never a parameter


def test_constant_as_graph_output():
    model = make_model(
        [helper.make_node("Constant", [], ["c"], value_ints=[4, 5])],
        [],
        [tensor("c", [2], TensorProto.INT64)],
    )
    import_and_compare(model, {}, ["relay.const"])


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"value_strings": ["a"]}, "attribute 'value_strings' is not supported"),
        ({"value_string": "a"}, "attribute 'value_string' is not supported"),
        (
            {"value_float": 1.0, "value_int": 1},
            "needs exactly one value attribute, got value_float, value_int",
        ),
        ({}, "needs exactly one value attribute, got none"),
        (
            {"value": init("c", np.zeros(2, np.complex64))},
            "attribute 'value' has element type complex64, which is not supported",
        ),
    ],
)
def test_constant_errors(attrs, message):
    model = make_model(
        [helper.make_node("Constant", [], ["c"], name="const0", **attrs)], [], [tensor("c", [2])]
    )
    error = import_error(model)
    assert error.startswith(f"node 'const0' (Constant, opset 13): {message}")


def test_unused_constant_emits_nothing():
    model = make_model(
        [
            helper.make_node("Constant", [], ["c"], value_float=1.0),
            helper.make_node("Relu", ["x"], ["y"]),
        ],
        [tensor("x", [2])],
        [tensor("y", [2])],
    )
    assert op_names(from_onnx(model)[0]) == ["relay.nn.relu"]
