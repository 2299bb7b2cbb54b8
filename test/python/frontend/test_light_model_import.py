"""The real-architecture models the onnx package ships (ResNet-50,
SqueezeNet, VGG-19, AlexNet at opset 9) import and verify; SqueezeNet's
imported module, evaluated with the NumPy references, matches onnxruntime
with the shipped weights and with random ones."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx_testing import arg_names, op_names, reparse, run_ort, run_relay

from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import LIGHT_MODELS, light_model_path, randomize_weights

# The relay ops each model imports to (beyond relay.const).
EXPECTED_OPS = {
    "resnet50": {
        "relay.nn.conv2d",
        "relay.nn.batch_norm",
        "relay.nn.relu",
        "relay.add",
        "relay.nn.max_pool2d",
        "relay.nn.avg_pool2d",
        "relay.reshape",
        "relay.nn.dense",
        "relay.nn.softmax",
    },
    "squeezenet": {
        "relay.nn.conv2d",
        "relay.nn.bias_add",
        "relay.nn.relu",
        "relay.nn.max_pool2d",
        "relay.concatenate",
        "relay.nn.dropout",
        "relay.nn.global_avg_pool2d",
        "relay.reshape",
        "relay.nn.softmax",
    },
    "vgg19": {
        "relay.nn.conv2d",
        "relay.nn.bias_add",
        "relay.nn.relu",
        "relay.nn.max_pool2d",
        "relay.reshape",
        "relay.nn.dense",
        "relay.add",
        "relay.nn.dropout",
        "relay.nn.softmax",
    },
    "bvlc_alexnet": {
        "relay.nn.conv2d",
        "relay.nn.bias_add",
        "relay.nn.relu",
        "relay.nn.lrn",
        "relay.nn.max_pool2d",
        "relay.reshape",
        "relay.nn.dense",
        "relay.add",
        "relay.nn.dropout",
        "relay.nn.softmax",
    },
}


def data_input(model: onnx.ModelProto) -> tuple[str, tuple[int, ...]]:
    inits = {t.name for t in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in inits]
    return inp.name, tuple(d.dim_value for d in inp.type.tensor_type.shape.dim)


@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_model_imports(name):
    model = onnx.load(light_model_path(name))
    module, params = from_onnx(model)
    module.verify()
    ops = set(op_names(module))
    assert ops - {"relay.const"} == EXPECTED_OPS[name]
    # The weights made by ConstantOfShape are constants; the float
    # initializers the model uses are parameters, after the data input.
    data, _ = data_input(model)
    assert arg_names(module) == [data, *params]
    assert all(p.dtype == np.float32 for p in params.values())


def test_squeezenet_module_round_trips():
    module, _ = from_onnx(onnx.load(light_model_path("squeezenet")))
    reparse(module)


def _compare_with_onnxruntime(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    name, _ = data_input(model)
    module, params = from_onnx(model)
    (got,) = run_relay(module, {name: x, **params})
    (want,) = run_ort(model, {name: x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    return want


def test_squeezenet_shipped_weights_match_onnxruntime_and_shipped_output():
    path = light_model_path("squeezenet")
    model = onnx.load(path)
    _, shape = data_input(model)
    n = int(np.prod(shape))
    x = (np.arange(n).reshape(shape) / n).astype(np.float32)  # the ONNX runner's input
    want = _compare_with_onnxruntime(model, x)
    shipped = numpy_helper.to_array(onnx.load_tensor(str(path).replace(".onnx", "_output_0.pb")))
    np.testing.assert_allclose(want, shipped, rtol=1e-4, atol=1e-6)


def test_squeezenet_random_weights_match_onnxruntime():
    model = randomize_weights(onnx.load(light_model_path("squeezenet")), seed=0)
    _, shape = data_input(model)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    want = _compare_with_onnxruntime(model, x)
    assert np.std(want) > 1e-4  # random weights give a non-flat softmax


def test_randomize_weights():
    original = onnx.load(light_model_path("resnet50"))
    model = randomize_weights(original, seed=0)
    onnx.checker.check_model(model)
    assert "ConstantOfShape" not in {n.op_type for n in model.graph.node}
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert {str(w.dtype) for w in weights.values()} == {"float32", "int64"}  # + Reshape's shape
    # Every initializer is used; below IR 4 each is also a graph input.
    used = {i for n in model.graph.node for i in n.input}
    assert set(weights) <= used
    assert set(weights) <= {i.name for i in model.graph.input}
    # He-scaled convolution weights, positive BN scales and variances.
    conv1 = weights["gpu_0/conv1_w_0"]
    assert conv1.shape == (64, 3, 7, 7)
    assert abs(conv1.std() / np.sqrt(2 / (3 * 7 * 7)) - 1) < 0.05
    for node in model.graph.node:
        if node.op_type == "BatchNormalization":
            assert (weights[node.input[1]] > 0).all() and (weights[node.input[4]] > 0).all()
    # Seeded: the same seed gives the same weights, another seed others.
    again = randomize_weights(original, seed=0)
    other = randomize_weights(original, seed=1)
    assert all(
        np.array_equal(numpy_helper.to_array(a), numpy_helper.to_array(b))
        for a, b in zip(model.graph.initializer, again.graph.initializer)
    )
    assert not np.array_equal(
        numpy_helper.to_array(other.graph.initializer[0]),
        numpy_helper.to_array(model.graph.initializer[0]),
    )
