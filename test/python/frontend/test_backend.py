"""The ONNX backend (``xtvm.frontend.onnx.backend``): the ``onnx.backend``
API, specialization on input shapes and on values needed at compile time,
the module cache, output dtypes and shapes, and its errors."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx_testing import init, make_model, tensor

from xtvm.frontend import OnnxImportError
from xtvm.frontend.onnx import backend
from xtvm.frontend.onnx.backend import XtvmBackend
from xtvm.frontend.onnx.common import OnnxConstantInputRequired

RNG = np.random.default_rng(0)


def reshape_model() -> onnx.ModelProto:
    """y = relu(reshape(x, max(s, s))): the shape is computed from a graph
    input, so the backend specializes the model for its value (a graph input
    used directly as the shape is read at run time instead)."""
    nodes = [
        helper.make_node("Max", ["s", "s"], ["m"]),
        helper.make_node("Reshape", ["x", "m"], ["r"], name="reshape"),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    return make_model(
        nodes,
        [tensor("x", [2, 6]), tensor("s", [2], TensorProto.INT64)],
        [tensor("y", ["a", "b"])],
    )


def test_prepare_and_run_outputs_in_graph_order():
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["x"], ["b"])]
    model = make_model(nodes, [tensor("x", [2, 3])], [tensor("b", [2, 3]), tensor("a", [2, 3])])
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    rep = XtvmBackend.prepare(model, "CPU")
    b, a = rep.run([x])
    np.testing.assert_array_equal(a, np.maximum(x, 0))
    np.testing.assert_array_equal(b, -x)
    (b2, _) = rep.run({"x": 2 * x})
    np.testing.assert_array_equal(b2, -2 * x)
    assert XtvmBackend.run_model(model, x)[0].dtype == np.float32


def test_initializers_are_frozen_or_params():
    model = make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [tensor("x", [3])],
        [tensor("y", [3])],
        [init("w", np.array([1, 2, 3], np.float32))],
    )
    x = np.ones(3, np.float32)
    for freeze in (True, False):
        (y,) = XtvmBackend.prepare(model, freeze_params=freeze).run([x])
        np.testing.assert_array_equal(y, [2, 3, 4])


def test_run_node_default_opset_and_outputs_info():
    x = np.array([[-1.0, 2.0]], np.float32)
    (y,) = XtvmBackend.run_node(helper.make_node("Relu", ["x"], ["y"]), [x])
    np.testing.assert_array_equal(y, [[0.0, 2.0]])
    node = helper.make_node("Add", ["p", "q"], ["y"])
    (y,) = XtvmBackend.run_node(node, [x, x], outputs_info=[(np.float32, (1, 2))])
    np.testing.assert_array_equal(y, 2 * x)
    (y,) = XtvmBackend.run_node(helper.make_node("Add", ["p", "p"], ["y"]), [x, x])
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64", "uint8", "bool"])
def test_inputs_keep_their_dtype(dtype: str):
    x = np.arange(4).astype(dtype)
    (y,) = XtvmBackend.run_node(helper.make_node("Identity", ["x"], ["y"]), [x])
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(y, x)


def test_scalar_and_empty_tensors():
    (y,) = XtvmBackend.run_node(helper.make_node("Relu", ["x"], ["y"]), [np.float32(-3.0)])
    assert y.shape == () and y.dtype == np.float32 and y == 0
    (y,) = XtvmBackend.run_node(helper.make_node("Relu", ["x"], ["y"]), [np.zeros((0, 3), "f")])
    assert y.shape == (0, 3) and y.dtype == np.float32


@pytest.mark.parametrize(
    ("attr", "value", "expected"),
    [
        ("value", helper.make_tensor("v", TensorProto.INT32, [2], [4, 5]), np.array([4, 5], "i4")),
        ("value_float", 2.5, np.float32(2.5)),
        ("value_floats", [1.0, 2.0], np.array([1, 2], "f")),
        ("value_int", 7, np.int64(7)),
        ("value_ints", [1, 2], np.array([1, 2], "i8")),
    ],
)
def test_constant_attribute_forms(attr: str, value: object, expected: np.ndarray):
    (y,) = XtvmBackend.run_node(helper.make_node("Constant", [], ["y"], **{attr: value}), [])
    assert y.dtype == expected.dtype and y.shape == expected.shape
    np.testing.assert_array_equal(y, expected)


def test_symbolic_dims_compile_per_shape():
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", ["N", 2])], [tensor("y", ["N", 2])]
    )
    rep = XtvmBackend.prepare(model)
    for n in (1, 3):
        (y,) = rep.run([-np.ones((n, 2), np.float32)])
        assert y.shape == (n, 2)


def test_constant_input_is_specialized_per_value():
    backend.clear_cache()
    rep = XtvmBackend.prepare(reshape_model())
    assert backend.cache_size() == 0  # the shape's value is needed: compile at run
    x = RNG.standard_normal((2, 6)).astype(np.float32)
    (y,) = rep.run([x, np.array([3, 4], np.int64)])
    np.testing.assert_array_equal(y, np.maximum(x, 0).reshape(3, 4))
    assert rep.specialized == ["s"]
    assert backend.cache_size() == 1
    (y,) = rep.run([x, np.array([4, -1], np.int64)])
    assert y.shape == (4, 3)
    assert backend.cache_size() == 2
    (y,) = rep.run([2 * x, np.array([3, 4], np.int64)])  # same value: cached module
    np.testing.assert_array_equal(y, np.maximum(2 * x, 0).reshape(3, 4))
    assert backend.cache_size() == 2
    XtvmBackend.prepare(reshape_model()).run([x, np.array([3, 4], np.int64)])
    assert backend.cache_size() == 2  # the same model again: the same module


def test_static_model_compiles_at_prepare():
    backend.clear_cache()
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("y", [2])]
    )
    rep = XtvmBackend.prepare(model)
    assert backend.cache_size() == 1
    rep.run([np.ones(2, np.float32)])
    assert backend.cache_size() == 1


def test_computed_constant_input_needs_foldable_nodes():
    # The shape is computed from `s` and a float weight, which stays a
    # parameter without freeze_params: the shape cannot be folded, and the
    # folded part of its computation would be a tensor computed at import.
    model = make_model(
        [
            helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
            helper.make_node("Add", ["f", "w"], ["g"]),
            helper.make_node("Cast", ["g"], ["t"], to=TensorProto.INT64),
            helper.make_node("Reshape", ["x", "t"], ["y"], name="reshape"),
        ],
        [tensor("x", [2, 6]), tensor("s", [2], TensorProto.INT64)],
        [tensor("y", [3, 4])],
        [init("w", np.zeros(2, np.float32))],
    )
    inputs = [np.ones((2, 6), "f"), np.array([3, 4], np.int64)]
    (y,) = XtvmBackend.prepare(model).run(inputs)  # frozen weight: the shape folds
    assert y.shape == (3, 4)
    with pytest.raises(OnnxImportError, match="^'f' is used as a tensor, but it would be computed"):
        XtvmBackend.prepare(model, freeze_params=False).run(inputs)


def test_constant_input_computed_from_a_parameter_is_an_error():
    model = make_model(
        [
            helper.make_node("Cast", ["w"], ["t"], to=TensorProto.INT64),
            helper.make_node("Reshape", ["x", "t"], ["y"], name="reshape"),
        ],
        [tensor("x", [2, 6])],
        [tensor("y", [3, 4])],
        [init("w", np.array([3, 4], np.float32))],
    )
    with pytest.raises(OnnxConstantInputRequired) as info:
        XtvmBackend.prepare(model, freeze_params=False)
    assert info.value.value_name == "t"
    assert str(info.value) == (
        "node 'reshape' (Reshape, opset 13): input 'shape' ('t') must be known at compile time "
        "(an initializer, a Constant node's output or a specialized graph input); "
        "computed values are not supported here"
    )


def test_input_values_must_fit_the_input():
    from xtvm.frontend import from_onnx

    with pytest.raises(OnnxImportError) as info:
        from_onnx(reshape_model(), input_values={"s": np.array([3, 4], np.int32)})
    assert str(info.value) == (
        "input_values['s'] is int32[2], but input 's' has type tensor<2xi64>"
    )
    with pytest.raises(OnnxImportError, match="input_values names 'q', which is not a graph input"):
        from_onnx(reshape_model(), input_values={"q": np.array(1)})
    with pytest.raises(OnnxImportError, match="fold_inputs names 's', which has no input_values"):
        from_onnx(reshape_model(), fold_inputs=["s"])


def test_bad_calls():
    model = reshape_model()
    rep = XtvmBackend.prepare(model)
    with pytest.raises(OnnxImportError, match=r"has 2 graph input\(s\) \(x, s\), got 1 value"):
        rep.run([np.ones((2, 6), "f")])
    with pytest.raises(OnnxImportError, match=r"no value given for graph input\(s\) s"):
        rep.run({"x": np.ones((2, 6), "f")})
    with pytest.raises(OnnxImportError, match="graph input 's' must be a tensor, got list"):
        rep.run([np.ones((2, 6), "f"), [np.ones(2)]])
    with pytest.raises(OnnxImportError, match="xtvm runs on CPU only, got device 'CUDA'"):
        XtvmBackend.prepare(model, "CUDA")
    assert XtvmBackend.supports_device("CPU") and not XtvmBackend.supports_device("CUDA")


def test_invalid_and_unsupported_models():
    bad = make_model(
        [helper.make_node("Add", ["x"], ["y"], name="add0")], [tensor("x", [2])], [tensor("y", [2])]
    )
    with pytest.raises(OnnxImportError, match=r"invalid ONNX model: node 'add0' \(Add, opset 13\)"):
        XtvmBackend.prepare(bad)
    custom = make_model(
        [helper.make_node("Foo", ["x"], ["y"], domain="com.example")],
        [tensor("x", [2])],
        [tensor("y", [2])],
    )
    custom.opset_import.append(helper.make_opsetid("com.example", 1))
    with pytest.raises(OnnxImportError, match=r"unsupported op\(s\): com.example.Foo \(opset 1\)"):
        XtvmBackend.prepare(custom)


def test_constant_input_computed_from_graph_inputs_folds():
    # starts = size - 2 (run time), then Slice: the backend folds `size`.
    nodes = [
        helper.make_node("Sub", ["size", "two"], ["starts"]),
        helper.make_node("Slice", ["x", "starts", "ends"], ["y"], name="slice"),
    ]
    model = make_model(
        nodes,
        [tensor("x", [6]), tensor("size", [1], TensorProto.INT64)],
        [tensor("y", ["n"])],
        [init("two", np.array([2], np.int64)), init("ends", np.array([6], np.int64))],
    )
    x = np.arange(6, dtype=np.float32)
    rep = XtvmBackend.prepare(model)
    (y,) = rep.run([x, np.array([5], np.int64)])
    np.testing.assert_array_equal(y, x[3:])
    assert rep.specialized == ["size"] and rep.folded == {"size"}
    (y,) = rep.run([x, np.array([3], np.int64)])
    np.testing.assert_array_equal(y, x[1:])


def test_data_computed_from_folded_inputs_is_refused():
    # The output itself would be folded from the run-time `size`.
    nodes = [
        helper.make_node("Sub", ["size", "two"], ["starts"]),
        helper.make_node("Slice", ["x", "starts", "ends"], ["y"]),
    ]
    model = make_model(
        nodes,
        [tensor("x", [6]), tensor("size", [1], TensorProto.INT64)],
        [tensor("y", ["n"]), tensor("starts", [1], TensorProto.INT64)],
        [init("two", np.array([2], np.int64)), init("ends", np.array([6], np.int64))],
    )
    with pytest.raises(OnnxImportError) as info:
        XtvmBackend.prepare(model).run([np.zeros(6, "f"), np.array([5], np.int64)])
    assert str(info.value) == (
        "'starts' is used as a tensor, but it would be computed at import time from the "
        "run-time value of a graph input; xtvm computes only compile-time values "
        "(shapes, axes, pads) that way"
    )


def test_inputs_of_another_dtype_or_shape_are_refused():
    """A float32 model run on int32 arrays must not compile an int32 model
    (a float Div would compute integers): the input's dtype and declared
    dims are checked, naming the input."""
    div = helper.make_node("Div", ["a", "b"], ["y"])
    model = make_model(
        [div], [tensor("a", [2, "n"]), tensor("b", [2, "n"])], [tensor("y", [2, "n"])]
    )
    rep = XtvmBackend.prepare(model)
    ints = np.array([[7, 8], [9, 10]], np.int32)
    with pytest.raises(OnnxImportError, match="graph input 'a' is float32 in the model, got a int32"):
        rep.run([ints, ints])
    with pytest.raises(OnnxImportError, match=r"graph input 'a' has shape 2x\? in the model, got \(3, 2\)"):
        rep.run([np.ones((3, 2), np.float32), np.ones((3, 2), np.float32)])
    (y,) = rep.run([ints.astype(np.float32), np.full((2, 2), 2, np.float32)])
    np.testing.assert_allclose(y, ints / 2)


def test_isolated_run_turns_a_crash_into_an_error():
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2, 3])], [tensor("y", [2, 3])]
    )
    model.graph.name = "relu_graph"
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    rep = XtvmBackend.prepare(model, isolate=True)
    (y,) = rep.run([x])
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    rep._test_hook = "null-deref"  # the child reads address 0 before the run
    with pytest.raises(backend.IsolatedCrash) as info:
        rep.run([x])
    assert str(info.value) == (
        "model 'relu_graph' crashed in generated code: the child process running it was "
        "killed by signal SIGSEGV (Segmentation fault)"
    )
    assert info.value.signal_number == 11
    rep._test_hook = None
    (y,) = rep.run([2 * x])  # a new child
    np.testing.assert_array_equal(y, np.maximum(2 * x, 0))
    rep.close()
    (y,) = XtvmBackend.run_node(helper.make_node("Neg", ["x"], ["y"]), [x], isolate=True)
    np.testing.assert_array_equal(y, -x)


def test_isolated_runner_raises_the_childs_errors(tmp_path):
    from xtvm.runtime import XTVMError
    from xtvm.runtime.isolated import IsolatedRunner

    model = make_model(
        [helper.make_node("Neg", ["x"], ["y"])], [tensor("x", [4])], [tensor("y", [4])]
    )
    rep = XtvmBackend.prepare(model)
    path = tmp_path / "neg.so"
    rep._compiled([np.zeros(4, np.float32)]).library.export_library(str(path))
    with IsolatedRunner() as runner:
        (y,) = runner.run(path, [(0, np.arange(4, dtype=np.float32))])
        np.testing.assert_array_equal(y, -np.arange(4, dtype=np.float32))
        with pytest.raises(XTVMError, match=r"^set_input: input 'x' expects \(4,\) float32"):
            runner.run(path, [(0, np.zeros(5, np.float32))])
        (y,) = runner.run(path, [(0, np.ones(4, np.float32))])  # the same child goes on
        np.testing.assert_array_equal(y, -np.ones(4, np.float32))
