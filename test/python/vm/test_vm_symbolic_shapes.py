"""Reshape targets computed at run time from ``Shape`` of a tensor with a
``?`` size (``xtvm/frontend/onnx/symbolic_shape.py``), as exported
transformers compute them: ``Shape → Slice → Concat → Reshape`` (the example
encoder with ``shapes_at_run_time``) and PyTorch's ``x.view(B, T, H, D)``
(``Shape → Gather → Cast → Unsqueeze → Concat → Reshape``). The model
imports with static reshapes of ``?`` types, compiles once, and runs at
several lengths equal to onnxruntime."""

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from vm_models import onnxruntime_outputs

import xtvm
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.common import OnnxImportError
from xtvm.runtime.vm import VirtualMachine

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from make_transformer import make_transformer


def compile_once(model: onnx.ModelProto, shape: dict) -> VirtualMachine:
    mod, params = from_onnx(model, shape=shape)
    text = str(mod)
    assert "relay.dyn" not in text  # static reshapes of ? types, no run-time reshape
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(mod, params=params)
    assert not [k for k in exe.kernels if "shape_of" in k]  # the shape_of ops were dead
    return VirtualMachine(exe, xtvm.cpu(0))


def check(vm: VirtualMachine, model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    out = vm.invoke("main", *feeds.values()).numpy()
    (ref,) = onnxruntime_outputs(model, feeds)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def ids(batch: int, length: int) -> np.ndarray:
    return np.random.default_rng(length).integers(0, 1000, (batch, length)).astype(np.int64)


def test_transformer_with_run_time_reshape_shapes():
    model = make_transformer(shapes_at_run_time=True)
    vm = compile_once(model, {"ids": (1, None)})
    for length in (7, 64, 128, 1):
        check(vm, model, {"ids": ids(1, length)})


def test_transformer_with_run_time_shapes_and_a_dynamic_batch():
    model = make_transformer(shapes_at_run_time=True)
    for value in (model.graph.input[0], model.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "B"
    vm = compile_once(model, {"ids": (None, None)})
    for batch, length in ((1, 7), (3, 64), (2, 5)):
        check(vm, model, {"ids": ids(batch, length)})


def view_model() -> onnx.ModelProto:
    """``y = (x · W).view(B, T, 4, 16).transpose(1, 2)``, with ``B`` and ``T``
    gathered from ``Shape(x)`` (not of the reshaped tensor), as PyTorch
    exports ``view`` with sizes read from the input."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), "w")
    consts = {
        "i0": np.array(0, np.int64), "i1": np.array(1, np.int64),
        "axes": np.array([0], np.int64), "rest": np.array([4, 16], np.int64),
    }
    inits = [w, *(numpy_helper.from_array(v, k) for k, v in consts.items())]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["y"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "i0"], ["b"], axis=0),
        helper.make_node("Gather", ["shape", "i1"], ["t64"], axis=0),
        helper.make_node("Cast", ["t64"], ["t"], to=TensorProto.INT64),
        helper.make_node("Unsqueeze", ["b", "axes"], ["b1"]),
        helper.make_node("Unsqueeze", ["t", "axes"], ["t1"]),
        helper.make_node("Concat", ["b1", "t1", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["y", "target"], ["heads"], name="heads"),
        helper.make_node("Transpose", ["heads"], ["out"], perm=[0, 2, 1, 3]),
    ]
    graph = helper.make_graph(
        nodes, "view", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "T", 64])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["B", 4, "T", 16])], inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_view_with_sizes_gathered_from_another_tensor():
    """One run-time size of another tensor becomes -1 (the batch is static)."""
    model = view_model()
    vm = compile_once(model, {"x": (1, None, 64)})
    for length in (3, 16, 50):
        x = np.random.default_rng(length).standard_normal((1, length, 64)).astype(np.float32)
        check(vm, model, {"x": x})


def test_two_run_time_sizes_of_another_tensor_are_a_clear_error():
    with pytest.raises(OnnxImportError, match=r"node 'heads' \(Reshape, opset 17\): the target shape's "
                       r"entries 0 \(x\.shape\[0\]\), 1 \(x\.shape\[1\]\) are sizes of other tensors"):
        from_onnx(view_model(), shape={"x": (None, None, 64)})


def positions_model() -> onnx.ModelProto:
    """Token plus position embeddings with the positions ``Range(0,
    Gather(Shape(ids), 1))``, a mask ``ConstantOfShape(Shape(ids))`` of
    ones, and the bias ``Expand``-ed to ``Shape(embeddings)``: run-time
    shapes computed from a ``?`` size feed the run-time ops."""
    rng = np.random.default_rng(0)
    inits = {
        "tok": rng.standard_normal((100, 8)).astype(np.float32),
        "pos": rng.standard_normal((64, 8)).astype(np.float32),
        "bias": rng.standard_normal(8).astype(np.float32),
        "one": np.array(1, np.int64), "zero": np.array(0, np.int64), "step": np.array(1, np.int64),
    }
    nodes = [
        helper.make_node("Gather", ["tok", "ids"], ["emb"]),
        helper.make_node("Shape", ["ids"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["length"], axis=0),
        helper.make_node("Range", ["zero", "length", "step"], ["positions"]),
        helper.make_node("Gather", ["pos", "positions"], ["pemb"]),
        helper.make_node("Add", ["emb", "pemb"], ["x"]),
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Expand", ["bias", "xs"], ["b"]),
        helper.make_node("Add", ["x", "b"], ["y"]),
        helper.make_node("ConstantOfShape", ["s"], ["mask"],
                         value=numpy_helper.from_array(np.array([1.0], np.float32))),
    ]
    graph = helper.make_graph(
        nodes, "positions", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "S"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "S", 8]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, [1, "S"])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_run_time_ops_on_shapes_of_dynamic_sizes():
    model = positions_model()
    mod, params = from_onnx(model, shape={"ids": (1, None)})
    with xtvm.transform.PassContext(opt_level=3):
        vm = VirtualMachine(xtvm.build(mod, params=params), xtvm.cpu(0))
    for length in (1, 5, 40):
        ids = np.random.default_rng(length).integers(0, 100, (1, length)).astype(np.int64)
        got = vm.invoke("main", ids)
        for g, want in zip(got, onnxruntime_outputs(model, {"ids": ids}), strict=True):
            assert g.shape == want.shape
            np.testing.assert_allclose(g.numpy(), want, rtol=1e-6)
