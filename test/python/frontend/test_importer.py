"""``from_onnx`` itself: the signature of ``@main``, parameters, shape and
dtype options, and the errors for models it cannot import."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from xdsl.ir import SSAValue
from onnx_testing import (
    arg_names,
    import_error,
    init,
    main_func,
    make_model,
    op_names,
    reparse,
    run_ort,
    run_relay,
    tensor,
)

from xtvm.dialects.relay import ReluOp
from xtvm.frontend import OnnxImportError, from_onnx
from xtvm.frontend.onnx.common import SUPPORTED_DTYPES
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.importer import CONVERTERS

RNG = np.random.default_rng(0)


def relu_model(input_info: onnx.ValueInfoProto | None = None) -> onnx.ModelProto:
    x = input_info or tensor("x", [2, 3])
    return make_model([helper.make_node("Relu", ["x"], ["y"])], [x], [tensor("y", [2, 3])])


def two_layer_model() -> onnx.ModelProto:
    """Inputs x, z; initializers w1, w2 (used in the order w2, w1), an unused
    one, and a shape used only at import time."""
    initializers = [
        init("w1", RNG.standard_normal((3, 3)).astype(np.float32)),
        init("unused", np.zeros(5, np.float32)),
        init("w2", RNG.standard_normal(3).astype(np.float32)),
        init("shape", np.array([-1], np.int64)),
    ]
    nodes = [
        helper.make_node("Add", ["x", "w2"], ["h"], name="add"),
        helper.make_node("MatMul", ["h", "w1"], ["m"], name="matmul"),
        helper.make_node("Mul", ["m", "z"], ["p"], name="mul"),
        helper.make_node("Reshape", ["p", "shape"], ["flat"], name="reshape"),
    ]
    return make_model(
        nodes,
        [tensor("x", [2, 3]), tensor("z", [2, 3])],
        [tensor("flat", [6]), tensor("m", [2, 3])],
        initializers,
    )


def test_signature_inputs_then_params_in_onnx_order():
    module, params = from_onnx(two_layer_model())
    module.verify()
    main = main_func(module)
    # Unused initializers and import-time constants are no arguments.
    assert arg_names(module) == ["x", "z", "w1", "w2"]
    assert list(params) == ["w1", "w2"]
    assert [str(t) for t in main.function_type.inputs] == [
        "tensor<2x3xf32>", "tensor<2x3xf32>", "tensor<3x3xf32>", "tensor<3xf32>"
    ]
    assert [d.data["relay.name"].data for d in main.res_attrs.data] == ["flat", "m"]
    assert [str(t) for t in main.function_type.outputs] == ["tensor<6xf32>", "tensor<2x3xf32>"]
    text = str(module)
    assert '%x: tensor<2x3xf32> {relay.name = "x"}' in text
    assert '-> (tensor<6xf32> {relay.name = "flat"}, tensor<2x3xf32> {relay.name = "m"})' in text
    reparse(module)


def test_params_evaluate_like_onnxruntime():
    model = two_layer_model()
    feeds = {"x": RNG.standard_normal((2, 3)).astype(np.float32), "z": np.ones((2, 3), np.float32)}
    module, params = from_onnx(model)
    for got, want in zip(run_relay(module, {**feeds, **params}), run_ort(model, feeds)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_freeze_params():
    module, params = from_onnx(two_layer_model(), freeze_params=True)
    module.verify()
    assert params == {}
    assert arg_names(module) == ["x", "z"]
    assert op_names(module) == [
        "relay.const",
        "relay.add",
        "relay.const",
        "relay.nn.matmul",
        "relay.multiply",
        "relay.reshape",
    ]


def test_initializers_listed_as_graph_inputs_are_params():
    # Models from IR version < 4 list initializers among the graph inputs too.
    model = two_layer_model()
    model.graph.input.append(tensor("w1", [3, 3]))
    assert arg_names(from_onnx(model)[0]) == ["x", "z", "w1", "w2"]


def test_value_names_become_ssa_names():
    model = make_model(
        [
            helper.make_node("Relu", ["input:0"], ["onnx::Relu_1"]),
            helper.make_node("Relu", ["onnx::Relu_1"], ["7"]),
        ],
        [tensor("input:0", [2])],
        [tensor("7", [2])],
    )
    module = from_onnx(model)[0]
    text = str(module)
    # xDSL drops a trailing _<digits> from name hints; the printer renumbers.
    assert "%input: tensor<2xf32>" in text
    assert "%onnx__Relu = relay.nn.relu %input" in text
    assert "%v7 = relay.nn.relu %onnx__Relu" in text
    assert 'relay.name = "input:0"' in text
    reparse(module)


def test_load_from_path(tmp_path: Path):
    path = tmp_path / "relu.onnx"
    onnx.save(relu_model(), path)
    for model in (path, str(path)):
        assert op_names(from_onnx(model)[0]) == ["relay.nn.relu"]


def test_load_errors(tmp_path: Path):
    with pytest.raises(OnnxImportError, match=r"^cannot load ONNX model from '.*missing.onnx': "):
        from_onnx(tmp_path / "missing.onnx")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\xff\xff not a protobuf")
    with pytest.raises(OnnxImportError, match=r"^cannot load ONNX model from '.*garbage.onnx': "):
        from_onnx(garbage)
    with pytest.raises(TypeError, match="from_onnx expects a ModelProto or a path, got int"):
        from_onnx(3)  # type: ignore[arg-type]


def external_data_model(directory: Path) -> Path:
    """y = x @ w, with w saved in the external file ``w.bin`` next to the model."""
    model = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [tensor("x", [1, 8])],
        [tensor("y", [1, 8])],
        [init("w", np.eye(8, dtype=np.float32))],
    )
    path = directory / "ext.onnx"
    onnx.save_model(
        model, path, save_as_external_data=True, location="w.bin", size_threshold=0
    )
    assert (directory / "w.bin").is_file()
    return path


def test_external_data(tmp_path: Path):
    path = external_data_model(tmp_path)
    _, params = from_onnx(path)
    np.testing.assert_array_equal(params["w"], np.eye(8, dtype=np.float32))


def test_missing_external_data_file_names_tensor_and_file(tmp_path: Path):
    path = external_data_model(tmp_path)
    (tmp_path / "w.bin").unlink()
    with pytest.raises(OnnxImportError) as info:
        from_onnx(path)
    assert str(info.value) == (
        f"tensor 'w' of '{path}' keeps its data in external file '{tmp_path / 'w.bin'}', "
        "which does not exist"
    )
    (tmp_path / "w.bin").write_bytes(b"\0" * 10)  # shorter than the 256 bytes of w
    with pytest.raises(OnnxImportError, match=r"^tensor 'w' of .* which cannot be read: "):
        from_onnx(path)
    unloaded = onnx.load(path, load_external_data=False)
    with pytest.raises(OnnxImportError) as info:
        from_onnx(unloaded)
    assert str(info.value) == (
        "tensor 'w' keeps its data in external file 'w.bin', which was not loaded: "
        "pass the model's path, or load it with onnx.load(path)"
    )


def test_checker_failure_is_wrapped():
    model = make_model(
        [helper.make_node("Add", ["x"], ["y"], name="add0")], [tensor("x", [2])], [tensor("y", [2])]
    )
    assert import_error(model).startswith(
        "invalid ONNX model: node 'add0' (Add, opset 13): "
        "Node(add0) with schema(::Add:13) has input size 1 not in range [min=2, max=2]"
    )


@pytest.mark.parametrize(
    ("node", "message"),
    [
        (
            helper.make_node("Softmax", ["x"], ["y"], name="sm", axis="a"),
            "node 'sm' (Softmax, opset 13): Mismatched attribute type in 'sm : axis'. "
            "Expected: 'INT', actual: 'STRING'",
        ),
        (
            helper.make_node("Relu", ["x"], ["y"], foo=1),
            "node #0 (Relu, opset 13): Unrecognized attribute: foo for operator Relu",
        ),
        (
            helper.make_node("Concat", ["x", "x"], ["y"], name="cat"),
            "node 'cat' (Concat, opset 13): Required attribute 'axis' is missing.",
        ),
        (
            helper.make_node("Frobnicate", ["x"], ["y"], name="f"),
            "node 'f' (Frobnicate, opset 13): No Op registered for Frobnicate "
            "with domain_version of 13",
        ),
        (
            helper.make_node("Foo", ["x"], ["y"], name="f", domain="com.example"),
            "node 'f' (com.example.Foo, opset 0): No opset import for domain 'com.example'",
        ),
    ],
)
def test_invalid_node_named_in_one_line(node: onnx.NodeProto, message: str):
    model = make_model([node], [tensor("x", [2])], [tensor("y", [2])])
    assert import_error(model) == f"invalid ONNX model: {message}"


def undefined_input_model() -> onnx.ModelProto:
    return make_model(
        [helper.make_node("Add", ["x", "nope"], ["y"], name="add0")],
        [tensor("x", [2])],
        [tensor("y", [2])],
    )


def test_undefined_input_caught_by_checker():
    error = import_error(undefined_input_model())
    assert error.startswith("invalid ONNX model: ")
    assert "input 'nope' of node" in error and "name: add0" in error


@pytest.fixture
def no_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Models the checker would reject, to reach the importer's own checks."""
    monkeypatch.setattr(onnx.checker, "check_model", lambda model: None)


@pytest.mark.usefixtures("no_checker")
def test_undefined_input_names_node_and_input():
    assert import_error(undefined_input_model()) == (
        "node 'add0' (Add, opset 13): input 'B' ('nope') is not a graph input, "
        "an initializer or the output of an earlier node"
    )


@pytest.mark.usefixtures("no_checker")
def test_missing_input_names_node_and_input():
    model = make_model(
        [helper.make_node("Gemm", ["x", ""], ["y"], name="gemm")],
        [tensor("x", [2, 2])],
        [tensor("y", [2, 2])],
    )
    assert import_error(model) == "node 'gemm' (Gemm, opset 13): missing input 'B'"


@pytest.mark.usefixtures("no_checker")
def test_undefined_graph_output():
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("z", [2])]
    )
    assert import_error(model) == "graph output 'z' is not produced by any node"


def test_all_unsupported_ops_in_one_error():
    # An op xtvm does not import, an op from an unknown domain, and a
    # supported op at an opset older than its converters.
    model = make_model(
        [
            helper.make_node("GlobalLpPool", ["x"], ["a"], name="pool"),
            helper.make_node("Relu", ["a"], ["b"], name="relu"),
            helper.make_node("GlobalLpPool", ["b"], ["c"]),
            helper.make_node("Foo", ["c"], ["y"], name="custom", domain="com.example"),
        ],
        [tensor("x", [1, 2, 3])],
        [tensor("y", [1, 2, 1])],
    )
    model.opset_import.append(helper.make_opsetid("com.example", 2))
    assert import_error(model) == (
        "unsupported op(s): GlobalLpPool (opset 13), com.example.Foo (opset 2)\n"
        "  node 'pool' (GlobalLpPool, opset 13)\n"
        "  node #2 (GlobalLpPool, opset 13)\n"
        "  node 'custom' (com.example.Foo, opset 2)"
    )


class _ReluFrom6(OnnxOpConverter):
    @classmethod
    def _impl_v6(cls, node: OnnxNode) -> SSAValue:
        return node.emit(ReluOp(node.input(0)))


def test_op_older_than_its_converters(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(CONVERTERS, "Relu", _ReluFrom6)
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"], name="r")],
        [tensor("x", [2])],
        [tensor("y", [2])],
        opset=5,
    )
    assert import_error(model) == (
        "unsupported op(s): Relu (opset 5; implemented from opset 6)\n  node 'r' (Relu, opset 5)"
    )


def test_symbolic_dim_needs_shape():
    model = relu_model(tensor("x", ["N", 3]))
    assert import_error(model) == (
        "input 'x' has symbolic dimension 'N' at axis 0: pass its static shape, "
        "e.g. shape={'x': (...)}"
    )
    module = from_onnx(model, shape={"x": (2, 3)})[0]
    assert [str(t) for t in main_func(module).function_type.inputs] == ["tensor<2x3xf32>"]


def test_unknown_dim_needs_shape():
    x = tensor("x", [2, 3])
    x.type.tensor_type.shape.dim[1].Clear()
    assert import_error(relu_model(x)).startswith("input 'x' has an unknown dimension at axis 1: ")


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ({"y": (2, 4)}, "shape names 'y', which is not a graph input (inputs: x)"),
        ({"x": (2, 4, 1)}, "shape of input 'x' has rank 3, but the model's has rank 2"),
        ({"x": (4, 3)}, "shape of input 'x' sets axis 1 to 3, but the model fixes it to 4"),
        ({"x": (-2, 4)}, "shape of input 'x' has a negative size: (-2, 4)"),
        ({"x": ("a", 4)}, "shape of input 'x' must be a sequence of ints, got ('a', 4)"),
    ],
)
def test_shape_override_errors(shape, message):
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])], [tensor("x", ["N", 4])], [tensor("y", ["N", 4])]
    )
    assert import_error(model, shape=shape) == message


def test_dtype_options():
    untyped = relu_model(tensor("x", [2, 3], TensorProto.UNDEFINED))
    module = from_onnx(untyped, dtype="float64")[0]
    assert str(main_func(module).function_type.inputs.data[0]) == "tensor<2x3xf64>"
    module = from_onnx(relu_model(), dtype={"x": "int32"})[0]
    assert str(main_func(module).function_type.inputs.data[0]) == "tensor<2x3xi32>"
    assert import_error(relu_model(), dtype={"x": "complex64"}) == (
        "input 'x' has element type complex64, which is not supported (supported: "
        f"{', '.join(SUPPORTED_DTYPES)})"
    )
    assert SUPPORTED_DTYPES[:12] == (
        "float32", "float64", "float16", "int8", "int16", "int32", "int64",
        "uint8", "uint16", "uint32", "uint64", "bool",
    )
    assert import_error(relu_model(), dtype={"q": "int32"}) == (
        "dtype names 'q', which is not a graph input (inputs: x)"
    )


@pytest.mark.parametrize(
    ("elem", "expected"),
    [
        (TensorProto.FLOAT16, "f16"),
        (TensorProto.INT8, "i8"),
        (TensorProto.UINT8, "ui8"),
        (TensorProto.UINT64, "ui64"),
        (TensorProto.BOOL, "i1"),
    ],
)
def test_numeric_input_element_types(elem: int, expected: str):
    model = make_model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [tensor("x", [2], elem)],
        [tensor("y", [2], elem)],
    )
    main = main_func(from_onnx(model)[0])
    assert str(main.function_type.inputs.data[0]) == f"tensor<2x{expected}>"


def test_unsupported_input_element_type():
    error = import_error(relu_model(tensor("x", [2, 3], TensorProto.COMPLEX64)))
    assert error.startswith("input 'x' has element type COMPLEX64, which is not supported")
    # A string input is a byte tensor whose width comes with its values.
    error = import_error(relu_model(tensor("x", [2, 3], TensorProto.STRING)))
    assert error.startswith("input 'x' is a string tensor: pass its byte shape")
    error = import_error(
        relu_model(tensor("x", [2, 3], TensorProto.STRING)), shape={"x": (2, 3, 4)}
    )
    assert error.startswith("node #0 (Relu, opset 13): input 'X' ('x') is a string tensor, which")


def test_unsupported_initializer_element_type():
    model = make_model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [tensor("x", [2])],
        [tensor("y", [2])],
        [init("w", np.ones(2, np.complex64))],
    )
    for freeze in (False, True):
        error = import_error(model, freeze_params=freeze)
        assert error.startswith(
            "initializer 'w' has element type complex64, which is not supported"
        )


def test_non_tensor_input():
    seq = helper.make_tensor_sequence_value_info("x", TensorProto.FLOAT, [2])
    model = make_model([helper.make_node("Identity", ["x"], ["y"])], [seq], [tensor("y", [2])])
    assert import_error(model) == (
        "input 'x' is a sequence: pass the shapes of its elements, "
        "e.g. shape={'x': [(2, 3), (2, 3)]}"
    )
    sparse = helper.make_sparse_tensor_value_info("x", TensorProto.FLOAT, [2])
    model = make_model([helper.make_node("Identity", ["x"], ["y"])], [sparse], [tensor("y", [2])])
    assert import_error(model) == "input 'x' is not a tensor"


def test_sparse_initializer():
    model = relu_model()
    values, indices = init("sp", np.ones(1, np.float32)), init("idx", np.zeros(1, np.int64))
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [2]))
    assert import_error(model) == "sparse initializers are not supported: 'sp'"
