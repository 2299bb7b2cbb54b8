"""Import-time folding: nodes whose inputs are all compile-time constants
become constants, so shape subgraphs leave no trace in the IR — but weights
(float initializers) stay parameters unless ``freeze_params``."""

from __future__ import annotations

import numpy as np
import pytest
from node_testing import randn
from onnx import TensorProto, helper
from onnx_testing import (
    arg_names,
    import_and_compare,
    init,
    make_model,
    op_names,
    run_ort,
    run_relay,
    tensor,
)

from xtvm.frontend import OnnxImportError, from_onnx


def const(name: str, array: np.ndarray):
    return helper.make_node(
        "Constant",
        [],
        [name],
        value=helper.make_tensor(
            name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape, array.flatten()
        ),
    )


def unsqueeze(src: str, dst: str, axes: list[int], opset: int):
    if opset < 13:
        return [helper.make_node("Unsqueeze", [src], [dst], axes=axes)]
    return [
        const(f"{dst}_axes", np.array(axes, np.int64)),
        helper.make_node("Unsqueeze", [src, f"{dst}_axes"], [dst]),
    ]


@pytest.mark.parametrize("opset", [9, 11, 13, 18])
def test_flatten_idiom_imports_as_one_static_reshape(opset):
    # PyTorch's x.view(x.size(0), -1):
    # Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1]))
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        const("zero", np.array(0, np.int64)),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        *unsqueeze("batch", "batch1", [0], opset),
        const("minus1", np.array([-1], np.int64)),
        helper.make_node("Concat", ["batch1", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    model = make_model(nodes, [tensor("x", [2, 3, 4, 5])], [tensor("y", [2, 60])], opset=opset)
    module = import_and_compare(model, {"x": randn(2, 3, 4, 5)}, ["relay.reshape"])
    text = str(module)
    assert "relay.shape_of" not in text and "relay.const" not in text
    assert "relay.reshape %x {newshape = array<i64: 2, -1>}" in text


def test_shape_arithmetic_folds():
    # Reshape x [N, C, H, W] to [N, C * H, W] through Slice, Gather, Mul,
    # Cast (to float and back) and Concat of shape values.
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Slice", ["s", "b0", "e1"], ["n"]),
        helper.make_node("Gather", ["s", "i1"], ["c"]),
        helper.make_node("Gather", ["s", "i2"], ["h"]),
        helper.make_node("Mul", ["c", "h"], ["ch"]),
        helper.make_node("Cast", ["ch"], ["ch_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["ch_f"], ["ch_i"], to=TensorProto.INT64),
        helper.make_node("Unsqueeze", ["ch_i", "b0"], ["ch1"]),
        helper.make_node("Slice", ["s", "b3", "e4"], ["w"]),
        helper.make_node("Concat", ["n", "ch1", "w"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = [
        init(name, np.array(v, np.int64))
        for name, v in [("b0", [0]), ("e1", [1]), ("i1", 1), ("i2", 2), ("b3", [3]), ("e4", [4])]
    ]
    model = make_model(nodes, [tensor("x", [2, 3, 4, 5])], [tensor("y", [2, 12, 5])], inits)
    module = import_and_compare(model, {"x": randn(2, 3, 4, 5)}, ["relay.reshape"])
    assert arg_names(module) == ["x"]


def test_multi_output_split_folds():
    # Split(Shape(x)) = [2], [3, 4]; reshape x to Concat([3, 4], [2]).
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Split", ["s", "sizes"], ["a", "b"], axis=0),
        helper.make_node("Concat", ["b", "a"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    model = make_model(
        nodes,
        [tensor("x", [2, 3, 4])],
        [tensor("y", [3, 4, 2])],
        [init("sizes", np.array([1, 2], np.int64))],
    )
    import_and_compare(model, {"x": randn(2, 3, 4)}, ["relay.reshape"])


def test_constant_of_shape_of_shape_is_a_constant():
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node(
            "ConstantOfShape",
            ["s"],
            ["ones"],
            value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]),
        ),
        helper.make_node("Add", ["x", "ones"], ["y"]),
    ]
    model = make_model(nodes, [tensor("x", [2, 3])], [tensor("y", [2, 3])])
    import_and_compare(model, {"x": randn(2, 3)}, ["relay.const", "relay.add"])


def _weight_times_two_model():
    nodes = [
        const("two", np.array(2.0, np.float32)),
        helper.make_node("Mul", ["w", "two"], ["w2"]),
        helper.make_node("Add", ["x", "w2"], ["y"]),
    ]
    w = randn(3)
    return make_model(nodes, [tensor("x", [3])], [tensor("y", [3])], [init("w", w)]), w


def test_weights_stay_parameters():
    model, w = _weight_times_two_model()
    module, params = from_onnx(model)
    assert op_names(module) == ["relay.const", "relay.multiply", "relay.add"]
    assert list(params) == ["w"]
    x = randn(3)
    np.testing.assert_allclose(run_relay(module, {"x": x, "w": w})[0], x + 2 * w, rtol=1e-6)


def test_frozen_weights_fold():
    model, _w = _weight_times_two_model()
    module, params = from_onnx(model, freeze_params=True)
    assert op_names(module) == ["relay.const", "relay.add"]
    assert params == {}
    x = randn(3)
    np.testing.assert_allclose(run_relay(module, {"x": x})[0], run_ort(model, {"x": x})[0])


def test_a_reference_failing_to_fold_is_an_error_naming_the_node(monkeypatch):
    from xtvm.reference import relay as reference

    def broken(ins, attrs):
        raise ValueError("zero-size array to reduction operation maximum which has no identity")

    monkeypatch.setitem(reference.REFERENCES, "relay.nn.relu", broken)
    model = make_model(
        [
            const("c", np.ones((2, 3), np.float32)),
            helper.make_node("Relu", ["c"], ["y"], name="relu0"),
        ],
        [],
        [tensor("y", [2, 3])],
    )
    with pytest.raises(OnnxImportError) as info:
        from_onnx(model)
    assert str(info.value) == (
        "node 'relu0' (Relu, opset 13): folding 'relay.nn.relu' on constant inputs failed: "
        "zero-size array to reduction operation maximum which has no identity"
    )
