"""The onnx package's real-architecture models, compiled by xtvm.

Each model is checked twice: as shipped (every weight 0.02) against its
shipped output on the ONNX runner's input (``arange(n) / n``), and with
seeded random weights against onnxruntime on a random input, both the
probabilities and the logits before the final softmax (random weights
saturate the softmax, so the logits are the stronger check). VGG-19 is
marked ``slow`` (about 15 s a run with the naive schedules); CI runs it.
"""

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import xtvm
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import expose_logits, light_model_path, randomize_weights

MODELS = [
    "squeezenet",
    "resnet50",
    "bvlc_alexnet",
    pytest.param("vgg19", marks=pytest.mark.slow),
]


def run_xtvm(model: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray]:
    mod, params = from_onnx(model)
    gmod = xtvm.build(mod, params=params)["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    return [gmod.get_output(i).numpy() for i in range(gmod.get_num_outputs())]


def input_shape(model: onnx.ModelProto) -> tuple[int, ...]:
    inits = {i.name for i in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in inits]
    return tuple(d.dim_value for d in inp.type.tensor_type.shape.dim)


def assert_close(out: np.ndarray, ref: np.ndarray) -> None:
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", MODELS)
def test_shipped_model_matches_shipped_output(name):
    path = light_model_path(name)
    model = onnx.load(path)
    shape = input_shape(model)
    n = int(np.prod(shape))
    x = (np.arange(n).reshape(shape) / n).astype(np.float32)
    expected = numpy_helper.to_array(
        onnx.load_tensor(str(path).replace(".onnx", "_output_0.pb"))
    )
    (out,) = run_xtvm(model, x)
    assert_close(out, expected)


@pytest.mark.parametrize("name", MODELS)
def test_random_weights_match_onnxruntime(name):
    ort = pytest.importorskip("onnxruntime")
    model = expose_logits(randomize_weights(onnx.load(light_model_path(name)), seed=0))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    x = np.random.default_rng(1).standard_normal(inp.shape).astype(np.float32)
    probs_ref, logits_ref = sess.run(None, {inp.name: x})
    assert np.std(logits_ref) > 1e-2, "random weights should give varied logits"
    probs, logits = run_xtvm(model, x)
    assert_close(logits, logits_ref)  # before the softmax, which may saturate
    assert_close(probs, probs_ref)
