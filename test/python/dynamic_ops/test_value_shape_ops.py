"""Ops whose output shape is an input's value (ONNX Range, ConstantOfShape,
Expand, Tile, Reshape, TopK with a graph-input shape or K): compiled once
for the VM and run with several shape values against NumPy; a shape the
data cannot take is a clear run-time error."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import xtvm
from xtvm.frontend.onnx import from_onnx
from xtvm.runtime import XTVMError
from xtvm.runtime.vm import VirtualMachine


def _vm(node: onnx.NodeProto, inputs: list, outputs: list) -> VirtualMachine:
    graph = helper.make_graph([node], "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module, params = from_onnx(model)  # no input values: the shape inputs stay run time
    return VirtualMachine(xtvm.build(module, params=params), xtvm.cpu(0))


def _run(vm: VirtualMachine, *args: np.ndarray) -> list[np.ndarray]:
    out = vm.invoke("main", *args)
    return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]


def _info(name: str, elem: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _out(name: str, elem: int, rank: int) -> onnx.ValueInfoProto:
    return _info(name, elem, [f"{name}{k}" for k in range(rank)])


@pytest.mark.parametrize(
    "dtype, elem", [(np.float32, TensorProto.FLOAT), (np.int64, TensorProto.INT64)]
)
def test_range(dtype, elem):
    node = helper.make_node("Range", ["s", "l", "d"], ["y"])
    vm = _vm(node, [_info(n, elem, ()) for n in "sld"], [_out("y", elem, 1)])
    for s, l, d in ((0, 10, 3), (5, 1, -1), (2, 2, 1), (1, 0, 1), (-3, 7, 2)):
        args = [np.array(v, dtype) for v in (s, l, d)]
        (y,) = _run(vm, *args)
        np.testing.assert_allclose(y, np.arange(*args).astype(dtype), rtol=1e-6)
        assert y.dtype == dtype


def test_constant_of_shape():
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [2.5])
    node = helper.make_node("ConstantOfShape", ["s"], ["y"], value=value)
    vm = _vm(node, [_info("s", TensorProto.INT64, (3,))], [_out("y", TensorProto.FLOAT, 3)])
    for shape in ((1, 2, 3), (4, 0, 2), (2, 5, 1)):
        (y,) = _run(vm, np.array(shape, np.int64))
        np.testing.assert_array_equal(y, np.full(shape, 2.5, np.float32))


def test_expand():
    node = helper.make_node("Expand", ["x", "s"], ["y"])
    vm = _vm(
        node,
        [_info("x", TensorProto.FLOAT, (3, 1)), _info("s", TensorProto.INT64, (3,))],
        [_out("y", TensorProto.FLOAT, 3)],
    )
    x = np.arange(3, dtype=np.float32).reshape(3, 1)
    for shape in ((2, 1, 4), (1, 3, 1), (5, 3, 6), (2, 1, 0)):
        (y,) = _run(vm, x, np.array(shape, np.int64))
        np.testing.assert_array_equal(y, x * np.ones(shape, np.float32))
    with pytest.raises(XTVMError, match=r"broadcast_to: the shape cannot take an axis of 3"):
        _run(vm, x, np.array((1, 4, 2), np.int64))


def test_tile():
    node = helper.make_node("Tile", ["x", "r"], ["y"])
    vm = _vm(
        node,
        [_info("x", TensorProto.FLOAT, (2, 3)), _info("r", TensorProto.INT64, (2,))],
        [_out("y", TensorProto.FLOAT, 2)],
    )
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    for repeats in ((1, 1), (3, 2), (2, 0), (1, 4)):
        (y,) = _run(vm, x, np.array(repeats, np.int64))
        np.testing.assert_array_equal(y, np.tile(x, repeats))


def test_reshape():
    node = helper.make_node("Reshape", ["x", "s"], ["y"])
    vm = _vm(
        node,
        [_info("x", TensorProto.FLOAT, (2, 3, 4)), _info("s", TensorProto.INT64, (3,))],
        [_out("y", TensorProto.FLOAT, 3)],
    )
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for shape, expected in (
        ((4, 3, 2), (4, 3, 2)),
        ((0, -1, 2), (2, 6, 2)),
        ((-1, 1, 1), (24, 1, 1)),
    ):
        (y,) = _run(vm, x, np.array(shape, np.int64))
        np.testing.assert_array_equal(y, x.reshape(expected))
    with pytest.raises(XTVMError, match=r"reshape: the new shape must hold 24 elements"):
        _run(vm, x, np.array((5, 5, 1), np.int64))


def test_topk_run_time_k():
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)
    vm = _vm(
        node,
        [_info("x", TensorProto.FLOAT, (3, 6)), _info("k", TensorProto.INT64, (1,))],
        [_out("v", TensorProto.FLOAT, 2), _out("i", TensorProto.INT64, 2)],
    )
    x = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)
    order = np.argsort(-x, axis=1, kind="stable")
    for k in (1, 3, 6, 0):
        values, indices = _run(vm, x, np.array([k], np.int64))
        np.testing.assert_array_equal(indices, order[:, :k])
        np.testing.assert_array_equal(values, np.take_along_axis(x, order[:, :k], axis=1))
    with pytest.raises(XTVMError, match=r"topk: k must be at most 6"):
        _run(vm, x, np.array([7], np.int64))


@pytest.mark.parametrize(
    "mode, method, sizes",
    [
        ("half_pixel", "linear", False),
        ("align_corners", "cubic", True),
        ("asymmetric", "nearest", False),
    ],
)
def test_resize_run_time_scales_or_sizes(mode, method, sizes):
    from onnx.reference import ReferenceEvaluator

    inputs = ["x", "", "", "v"] if sizes else ["x", "", "v"]
    node = helper.make_node(
        "Resize", inputs, ["y"], mode=method, coordinate_transformation_mode=mode, axes=[2, 3]
    )
    elem = TensorProto.INT64 if sizes else TensorProto.FLOAT
    graph = helper.make_graph(
        [node],
        "g",
        [_info("x", TensorProto.FLOAT, (1, 2, 4, 5)), _info("v", elem, (2,))],
        [_out("y", TensorProto.FLOAT, 4)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    module, params = from_onnx(model)
    vm = VirtualMachine(xtvm.build(module, params=params), xtvm.cpu(0))
    reference = ReferenceEvaluator(model)
    x = np.random.default_rng(2).standard_normal((1, 2, 4, 5)).astype(np.float32)
    values = [(8, 3), (2, 10), (4, 5)] if sizes else [(2.0, 0.5), (1.5, 3.0), (0.75, 1.0)]
    for v in values:
        v = np.array(v, np.int64 if sizes else np.float32)
        (y,) = _run(vm, x, v)
        (expected,) = reference.run(None, {"x": x, "v": v})
        assert y.shape == expected.shape
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
