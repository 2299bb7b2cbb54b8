"""Whole models with a dynamic dimension, compiled once for the VM and run at
several sizes, equal to onnxruntime: SqueezeNet with a ``?`` batch (made from
the light model by ``xtvm.bench.vm.dynamic_batch``), the frontend's
``Flatten`` and ``Softmax`` before opset 13 (a reshape to 2-d and back) with a
``?`` batch, which SqueezeNet's last Softmax needs, and the 2-layer
transformer encoder of ``examples/make_transformer.py`` with a ``?``
sequence length (embedding Gather, LayerNormalization, multi-head attention
by MatMul, Reshape and Transpose of the heads, Softmax, GELU by Erf,
residual adds)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from vm_models import onnxruntime_outputs

import xtvm
from xtvm.bench.timing import light_model
from xtvm.bench.vm import dynamic_batch
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import expose_logits
from xtvm.runtime import XTVMError
from xtvm.runtime.vm import VirtualMachine

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from make_transformer import make_transformer


def compile_once(model: onnx.ModelProto, shape: dict) -> VirtualMachine:
    """``model`` imported with the ``None`` sizes of ``shape`` kept ``?``,
    built (the ``?`` selects the VM), on a VM."""
    mod, params = from_onnx(model, shape=shape)
    with xtvm.transform.PassContext(opt_level=3):
        exe = xtvm.build(mod, params=params)
    return VirtualMachine(exe, xtvm.cpu(0))


def one_node_model(op: str, opset: int, out_shape: list, **attrs) -> onnx.ModelProto:
    """``y = op(x)`` with x of shape ``N x 2 x 3 x 4`` (``N`` symbolic)."""
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        op.lower(),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize(
    "op,opset,out_shape,attrs",
    [
        ("Flatten", 11, ["N", 24], {"axis": 1}),
        ("Softmax", 11, ["N", 2, 3, 4], {"axis": 1}),
        ("Softmax", 11, ["N", 2, 3, 4], {"axis": 3}),
        ("LogSoftmax", 11, ["N", 2, 3, 4], {"axis": 1}),
    ],
)
def test_coercion_to_2d_with_a_dynamic_batch(op, opset, out_shape, attrs):
    model = one_node_model(op, opset, out_shape, **attrs)
    vm = compile_once(model, {"x": (None, 2, 3, 4)})
    rng = np.random.default_rng(0)
    for n in (1, 3, 8):
        x = rng.standard_normal((n, 2, 3, 4)).astype(np.float32)
        out = vm.invoke("main", x).numpy()
        (ref,) = onnxruntime_outputs(model, {"x": x})
        assert out.shape == ref.shape
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_flatten_with_a_dynamic_size_on_both_sides_is_a_clear_error():
    model = one_node_model("Flatten", 11, ["N", "M"], axis=2)
    with pytest.raises(Exception, match=r"Flatten.*both sides have a '\?' size"):
        from_onnx(model, shape={"x": (None, 2, None, 4)})


@pytest.mark.slow
def test_dynamic_batch_squeezenet_compiled_once():
    model, input_name, x = light_model("squeezenet")
    model = dynamic_batch(expose_logits(model), input_name)
    vm = compile_once(model, {input_name: (None, *x.shape[1:])})
    rng = np.random.default_rng(2)
    for n in (1, 3, 8):
        xs = rng.standard_normal((n, *x.shape[1:])).astype(np.float32)
        probs, logits = vm.invoke("main", xs)
        ref_probs, ref_logits = onnxruntime_outputs(model, {input_name: xs})
        assert probs.shape == (n, 1000, 1, 1)
        np.testing.assert_allclose(
            logits.numpy(), ref_logits, rtol=1e-3, atol=1e-3 * np.abs(ref_logits).max()
        )
        np.testing.assert_allclose(probs.numpy(), ref_probs, rtol=1e-3, atol=1e-4)


@pytest.fixture(scope="module")
def transformer():
    """The example encoder and its VM, compiled once with a ``?`` sequence length."""
    model = make_transformer()
    return model, compile_once(model, {"ids": (1, None)})


def run_transformer(transformer, length: int) -> None:
    """The encoder at sequence length ``length`` (seeded random ids) against onnxruntime."""
    model, vm = transformer
    ids = np.random.default_rng(length).integers(0, 1000, (1, length)).astype(np.int64)
    out = vm.invoke("main", ids).numpy()
    (ref,) = onnxruntime_outputs(model, {"ids": ids})
    assert out.shape == (1, length, 64)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


@pytest.mark.parametrize("length", [7, 64, 128, 1])
def test_transformer_dynamic_sequence_compiled_once(transformer, length):
    run_transformer(transformer, length)


def test_transformer_wrong_ids_shape_names_the_input(transformer):
    _, vm = transformer
    with pytest.raises(XTVMError, match=r"input 'ids' expects \(1, \?\) int64"):
        vm.invoke("main", np.zeros((2, 7), np.int64))


@pytest.mark.slow
def test_transformer_from_the_command_line(tmp_path):
    """``xtvm-compile --shape ids=1,?`` then ``xtvm-run`` at length 33."""
    model = tmp_path / "transformer.onnx"
    onnx.save(make_transformer(), model)
    ids = np.random.default_rng(33).integers(0, 1000, (1, 33)).astype(np.int64)
    np.save(tmp_path / "ids.npy", ids)
    bin_dir = Path(sys.executable).parent
    for args in (
        ["xtvm-compile", model, "--shape", "ids=1,?", "-o", tmp_path / "t.so"],
        ["xtvm-run", tmp_path / "t.so", "--input", f"ids={tmp_path / 'ids.npy'}",
         "--output", tmp_path / "out.npz"],
    ):
        subprocess.run([str(bin_dir / args[0]), *map(str, args[1:])], check=True,
                       capture_output=True, timeout=600)
    (ref,) = onnxruntime_outputs(onnx.load(model), {"ids": ids})
    out = np.load(tmp_path / "out.npz")["hidden"]
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_transformer_dynamic_batch_and_sequence():
    """ids ``[?, ?]``: the heads' Reshapes copy two ``?`` axes (``[0, 0, 4, 16]``)."""
    model = make_transformer()
    for value in (model.graph.input[0], model.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "B"
    vm = compile_once(model, {"ids": (None, None)})
    rng = np.random.default_rng(5)
    for batch, length in ((1, 7), (3, 64), (2, 5)):
        ids = rng.integers(0, 1000, (batch, length)).astype(np.int64)
        out = vm.invoke("main", ids).numpy()
        (ref,) = onnxruntime_outputs(model, {"ids": ids})
        assert out.shape == (batch, length, 64)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_gather_along_the_dynamic_sequence_axis():
    """A transformer's first and last tokens (``x[:, 0]``, ``x[:, [-1, 2]]``):
    Gather with constant indices along the ``?`` axis, negative indices from
    the run-time end, vs onnxruntime at lengths 3, 9, 40."""
    nodes = [
        helper.make_node("Gather", ["x", "first"], ["y0"], axis=1),
        helper.make_node("Gather", ["x", "picks"], ["y1"], axis=1),
    ]
    inits = [
        onnx.numpy_helper.from_array(np.array(0, np.int64), "first"),
        onnx.numpy_helper.from_array(np.array([-1, 2], np.int64), "picks"),
    ]
    graph = helper.make_graph(
        nodes, "tokens", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "S", 8])],
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("y1", TensorProto.FLOAT, [1, 2, 8])], inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    vm = compile_once(model, {"x": (1, None, 8)})
    for length in (3, 9, 40):
        x = np.random.default_rng(length).standard_normal((1, length, 8)).astype(np.float32)
        got = vm.invoke("main", x)
        for g, want in zip(got, onnxruntime_outputs(model, {"x": x}), strict=True):
            np.testing.assert_array_equal(g.numpy(), want)
