"""Converters of shape and layout ops: Reshape (with allowzero), Flatten,
Transpose, Identity."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx_testing import (
    arg_names,
    import_and_compare,
    import_error,
    init,
    make_model,
    op_names,
    tensor,
)

from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.common import OnnxConstantInputRequired

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)


def reshape_model(shape: list[int], out_shape: list[int], source: str = "initializer", **attrs):
    """``Reshape(x [2, 3, 4], shape)`` with the shape from an initializer or a Constant node."""
    shape_tensor = init("shape", np.array(shape, np.int64))
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape", **attrs)]
    initializers = [shape_tensor]
    if source == "constant":
        nodes.insert(0, helper.make_node("Constant", [], ["shape"], value=shape_tensor))
        initializers = []
    inputs, outputs = [tensor("x", [2, 3, 4])], [tensor("y", out_shape)]
    return make_model(nodes, inputs, outputs, initializers, opset=14)


@pytest.mark.parametrize(
    ("shape", "out_shape"),
    [
        ([6, 4], [6, 4]),
        ([0, -1], [2, 12]),
        ([-1], [24]),
        ([0, 0, 2, 2], [2, 3, 2, 2]),
        ([4, -1, 3], [4, 2, 3]),
    ],
)
@pytest.mark.parametrize("source", ["initializer", "constant"])
def test_reshape(shape, out_shape, source):
    model = reshape_model(shape, out_shape, source)
    module = import_and_compare(model, {"x": X}, ["relay.reshape"])
    # The shape is read at import time: it is neither an argument nor a constant op.
    assert arg_names(module) == ["x"]
    assert from_onnx(model)[1] == {}


def test_reshape_allowzero_without_zero():
    model = reshape_model([4, -1], [4, 6], allowzero=1)
    import_and_compare(model, {"x": X}, ["relay.reshape"])


def test_reshape_allowzero_makes_a_zero_size_axis():
    empty = np.zeros((0, 3), np.float32)
    model = make_model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], allowzero=1)],
        [tensor("x", [0, 3])],
        [tensor("y", [3, 0])],
        [init("shape", np.array([3, 0], np.int64))],
        opset=14,
    )
    module = import_and_compare(model, {"x": empty}, ["relay.reshape"])
    assert "allowzero = true" in str(module)


def test_reshape_opset4_shape_attribute():
    model = make_model(
        [helper.make_node("Reshape", ["x"], ["y"], shape=[0, 12])],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [2, 12])],
        opset=4,
    )
    import_and_compare(model, {"x": X}, ["relay.reshape"], expected=[X.reshape(2, 12)])


def test_reshape_shape_must_be_constant_or_a_graph_input():
    # A computed shape must be known at compile time (the backend specializes
    # the graph inputs it comes from); a graph input is read at run time
    # (docs/data-dependent-ops.md).
    model = make_model(
        [
            helper.make_node("Max", ["s", "s"], ["m"]),
            helper.make_node("Reshape", ["x", "m"], ["y"], name="reshape"),
        ],
        [tensor("x", [2, 3, 4]), tensor("s", [2], TensorProto.INT64)],
        [tensor("y", [6, 4])],
    )
    with pytest.raises(OnnxConstantInputRequired) as info:
        from_onnx(model)
    assert info.value.value_name == "m"
    assert str(info.value).startswith(
        "node 'reshape' (Reshape, opset 13): input 'shape' ('m') must be known at compile time"
    )
    direct = make_model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
        [tensor("x", [2, 3, 4]), tensor("s", [2], TensorProto.INT64)],
        [tensor("y", ["a", "b"])],
    )
    assert "relay.dyn.reshape" in str(from_onnx(direct)[0])


@pytest.mark.parametrize(
    ("shape", "attrs", "message"),
    [
        ([5, -1], {}, "'relay.reshape' cannot reshape 2x3x4 to (5, -1)"),
        ([-1, -1], {}, "'relay.reshape' newshape has more than one -1"),
        ([7, 7], {}, "'relay.reshape' cannot reshape 2x3x4 (24 elements) to 7x7"),
        ([0, 24], {"allowzero": 1}, "'relay.reshape' cannot reshape 2x3x4 (24 elements) to 0x24"),
        ([0, -1], {"allowzero": 1}, "'relay.reshape' newshape with allowzero has both 0 and -1"),
    ],
)
def test_reshape_errors(shape, attrs, message):
    model = reshape_model(shape, [1, 1], **attrs)
    assert import_error(model) == f"node 'reshape' (Reshape, opset 14): {message}"


def test_reshape_shape_must_be_1d_integers():
    model = make_model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [6, 4])],
        [init("shape", np.array([[6, 4]], np.int64))],
    )
    assert import_error(model) == (
        "node 'reshape' (Reshape, opset 13): input 'shape' ('shape') must be a 1-d integer "
        "tensor, got int64 of shape [1, 2]"
    )


@pytest.mark.parametrize(
    ("axis", "out_shape"),
    [(0, [1, 24]), (1, [2, 12]), (2, [6, 4]), (3, [24, 1]), (-1, [6, 4]), (-3, [1, 24])],
)
def test_flatten(axis, out_shape):
    model = make_model(
        [helper.make_node("Flatten", ["x"], ["y"], axis=axis)],
        [tensor("x", [2, 3, 4])],
        [tensor("y", out_shape)],
    )
    import_and_compare(model, {"x": X}, ["relay.reshape"])


def test_flatten_default_axis():
    model = make_model(
        [helper.make_node("Flatten", ["x"], ["y"])],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [2, 12])],
    )
    import_and_compare(model, {"x": X}, ["relay.reshape"])


def test_flatten_axis_out_of_range():
    model = make_model(
        [helper.make_node("Flatten", ["x"], ["y"], name="flat", axis=4)],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [24, 1])],
    )
    assert import_error(model) == (
        "node 'flat' (Flatten, opset 13): attribute 'axis' = 4 is out of range for rank 3"
    )


@pytest.mark.parametrize(
    ("perm", "out_shape"), [(None, [4, 3, 2]), ([0, 2, 1], [2, 4, 3]), ([1, 2, 0], [3, 4, 2])]
)
def test_transpose(perm, out_shape):
    attrs = {} if perm is None else {"perm": perm}
    model = make_model(
        [helper.make_node("Transpose", ["x"], ["y"], **attrs)],
        [tensor("x", [2, 3, 4])],
        [tensor("y", out_shape)],
    )
    import_and_compare(model, {"x": X}, ["relay.transpose"])


def test_transpose_bad_perm_names_node():
    model = make_model(
        [helper.make_node("Transpose", ["x"], ["y"], name="t", perm=[0, 0, 1])],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [2, 2, 3])],
    )
    assert import_error(model) == (
        "node 't' (Transpose, opset 13): 'relay.transpose' axes [0, 0, 1] are not a permutation "
        "of rank 3"
    )


def test_identity_emits_nothing():
    model = make_model(
        [helper.make_node("Identity", ["x"], ["i"]), helper.make_node("Relu", ["i"], ["y"])],
        [tensor("x", [2, 3, 4])],
        [tensor("y", [2, 3, 4])],
    )
    import_and_compare(model, {"x": X}, ["relay.nn.relu"])


def test_identity_of_initializer_as_output():
    w = RNG.standard_normal(3).astype(np.float32)
    model = make_model(
        [helper.make_node("Identity", ["w"], ["y"])], [], [tensor("y", [3])], [init("w", w)]
    )
    module = import_and_compare(model, {}, [])
    assert arg_names(module) == ["w"]
    assert op_names(from_onnx(model, freeze_params=True)[0]) == ["relay.const"]
