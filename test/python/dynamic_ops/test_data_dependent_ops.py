"""Ops whose output shape depends on input values, compiled once for the VM
and run on inputs that give different result sizes (zero included),
against NumPy (``np.nonzero``, ``np.compress``, ``np.unique``) and onnx's
reference evaluator (NonMaxSuppression). Each model goes through the ONNX
frontend, the shape-function kernels and ``vm-manifest-value-shapes``."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import xtvm
from xtvm.driver.pipeline import mlir_context
from xtvm.frontend.onnx import from_onnx
from xtvm.ir.parse import parse_module
from xtvm.runtime import XTVMError
from xtvm.runtime.vm import VirtualMachine


def _model(node: onnx.NodeProto, inputs: list, outputs: list) -> onnx.ModelProto:
    graph = helper.make_graph([node], "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _out(name: str, elem: int, rank: int) -> onnx.ValueInfoProto:
    """An output of symbolic sizes (they depend on the input values)."""
    return helper.make_tensor_value_info(name, elem, [f"{name}{k}" for k in range(rank)])


def _vm(model: onnx.ModelProto) -> VirtualMachine:
    """The model compiled once (its static input shapes) for the VM."""
    module, params = from_onnx(model)
    exe = xtvm.build(module, params=params)
    return VirtualMachine(exe, xtvm.cpu(0))


def _outputs(vm: VirtualMachine, *args: np.ndarray) -> list[np.ndarray]:
    out = vm.invoke("main", *args)
    return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]


def _sparse(rng: np.random.Generator, shape: tuple[int, ...], density: float) -> np.ndarray:
    values = rng.standard_normal(shape).astype(np.float32)
    return np.where(rng.random(shape) < density, values, 0).astype(np.float32)


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5)], ids=str)
def test_nonzero(shape):
    node = helper.make_node("NonZero", ["x"], ["y"])
    model = _model(
        node,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [_out("y", TensorProto.INT64, 2)],
    )
    vm = _vm(model)
    rng = np.random.default_rng(1)
    for density in (0.0, 0.3, 0.7, 1.0):  # one executable, counts from 0 to every element
        x = _sparse(rng, shape, density)
        (y,) = _outputs(vm, x)
        expected = np.stack(np.nonzero(x)).astype(np.int64)
        assert y.dtype == np.int64 and y.shape == expected.shape
        np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize(
    "shape, axis, length", [((5,), None, 5), ((3, 4), 1, 3), ((4, 2, 3), 0, 4), ((2, 3), None, 4)]
)
def test_compress(shape, axis, length):
    attrs = {} if axis is None else {"axis": axis}
    node = helper.make_node("Compress", ["x", "c"], ["y"], **attrs)
    model = _model(
        node,
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
            helper.make_tensor_value_info("c", TensorProto.BOOL, (length,)),
        ],
        [_out("y", TensorProto.FLOAT, 1 if axis is None else len(shape))],
    )
    vm = _vm(model)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    for density in (0.0, 0.5, 1.0):
        c = rng.random(length) < density
        (y,) = _outputs(vm, x, c)
        np.testing.assert_array_equal(y, np.compress(c, x, axis=axis))


def _onnx_unique(x: np.ndarray, axis: int | None, is_sorted: bool) -> list[np.ndarray]:
    attrs = {"sorted": int(is_sorted)} | ({} if axis is None else {"axis": axis})
    node = helper.make_node("Unique", ["x"], ["y", "i", "v", "c"], **attrs)
    model = _model(
        node,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [_out("y", TensorProto.FLOAT, 1 if axis is None else x.ndim)]
        + [_out(n, TensorProto.INT64, 1) for n in "ivc"],
    )
    return model, ReferenceEvaluator(model).run(None, {"x": x})


@pytest.mark.parametrize(
    "shape, axis, is_sorted",
    [
        ((8,), None, True),
        ((8,), None, False),
        ((3, 5), None, True),
        ((6, 2), 0, True),
        ((2, 5), 1, True),
    ],
)
def test_unique(shape, axis, is_sorted):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, shape).astype(np.float32)
    model, _ = _onnx_unique(x, axis, is_sorted)
    vm = _vm(model)
    for low, high in ((0, 2), (0, 4), (5, 6)):  # few, many and a single distinct value
        x = rng.integers(low, high, shape).astype(np.float32)
        _, expected = _onnx_unique(x, axis, is_sorted)
        got = _outputs(vm, x)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)
        if is_sorted:  # and NumPy's order
            np.testing.assert_array_equal(got[0], np.unique(x, axis=axis))


def _nms_model(n: int, classes: int, batches: int, center: int) -> onnx.ModelProto:
    node = helper.make_node(
        "NonMaxSuppression", ["b", "s", "m", "i", "t"], ["y"], center_point_box=center
    )
    return _model(
        node,
        [
            helper.make_tensor_value_info("b", TensorProto.FLOAT, (batches, n, 4)),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, (batches, classes, n)),
            helper.make_tensor_value_info("m", TensorProto.INT64, (1,)),
            helper.make_tensor_value_info("i", TensorProto.FLOAT, (1,)),
            helper.make_tensor_value_info("t", TensorProto.FLOAT, (1,)),
        ],
        [_out("y", TensorProto.INT64, 2)],
    )


@pytest.mark.parametrize(
    "n, classes, batches, center",
    [(4, 1, 1, 0), pytest.param(8, 2, 2, 1, marks=pytest.mark.slow)],
)
def test_non_max_suppression(n, classes, batches, center):
    model = _nms_model(n, classes, batches, center)
    vm = _vm(model)
    reference = ReferenceEvaluator(model)
    rng = np.random.default_rng(4)
    for limit, iou, floor in ((n, 0.3, 0.0), (2, 0.5, 0.4), (0, 0.5, 0.0), (n, 0.9, 2.0)):
        corners = rng.random((batches, n, 2)).astype(np.float32) * 4
        boxes = np.concatenate([corners, corners + 1 + rng.random((batches, n, 2))], axis=2)
        boxes = boxes.astype(np.float32)
        scores = rng.random((batches, classes, n)).astype(np.float32)
        feeds = {
            "b": boxes,
            "s": scores,
            "m": np.array([limit], np.int64),
            "i": np.array([iou], np.float32),
            "t": np.array([floor], np.float32),
        }
        (expected,) = reference.run(None, feeds)
        (got,) = _outputs(vm, *feeds.values())
        np.testing.assert_array_equal(got, expected.reshape(-1, 3))


def test_wrong_input_is_a_clear_error():
    node = helper.make_node("NonZero", ["x"], ["y"])
    model = _model(
        node,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (3, 4))],
        [_out("y", TensorProto.INT64, 2)],
    )
    vm = _vm(model)
    with pytest.raises(XTVMError, match=r"input 'x' expects \(3, 4\) float32, got \(4, 3\)"):
        vm.invoke("main", np.ones((4, 3), np.float32))


def test_shape_operand_of_the_wrong_rank_is_refused():
    text = """
    func.func @main(%x: tensor<3x4xf32>, %s: tensor<3xi64>) -> tensor<2x?xi64> {
      %y = relay.nonzero %x, %s : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<2x?xi64>
      func.return %y : tensor<2x?xi64>
    }
    """
    with pytest.raises(Exception, match=r"expects its shape operand to be tensor<2xi64>"):
        parse_module(text, "<test>", mlir_context()).verify()


def test_results_feed_kernels_with_run_time_extents():
    """NonZero's ``?`` result and a run-time Reshape's flow into ordinary
    kernels (transpose, cast, multiply, relu) that take run-time extents."""
    nodes = [
        helper.make_node("NonZero", ["x"], ["nz"]),
        helper.make_node("Transpose", ["nz"], ["t"]),
        helper.make_node("Cast", ["t"], ["tf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["tf", "tf"], ["y"]),
        helper.make_node("Reshape", ["x", "shp"], ["r"]),
        helper.make_node("Relu", ["r"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, (3, 4)),
            helper.make_tensor_value_info("shp", TensorProto.INT64, (2,)),
        ],
        [_out("y", TensorProto.FLOAT, 2), _out("z", TensorProto.FLOAT, 2)],
    )
    vm = _vm(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    rng = np.random.default_rng(5)
    for shape in ((2, 6), (6, 2), (12, 1)):
        x = _sparse(rng, (3, 4), 0.5)
        y, z = _outputs(vm, x, np.array(shape, np.int64))
        expected = np.transpose(np.stack(np.nonzero(x))).astype(np.float32) ** 2
        np.testing.assert_array_equal(y, expected)
        np.testing.assert_array_equal(z, np.maximum(x.reshape(shape), 0))
