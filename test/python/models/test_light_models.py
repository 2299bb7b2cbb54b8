"""The onnx package's nine real-architecture models
(``xtvm.bench.models.LIGHT_MODELS``, what ``python -m xtvm.bench`` times),
compiled by xtvm.

Each model is checked twice: as shipped (every weight 0.02) against its
shipped output on the ONNX runner's input (``arange(n) / n``), and with
seeded random weights against onnxruntime on a random input, both the
probabilities and the logits before the final softmax (random weights
saturate the softmax, so the logits are the stronger check; DenseNet-121
ends in its logits). Models whose compile takes more than ~20 s are marked
``slow``; CI's slow run has them.
"""

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import xtvm
from xtvm.bench.models import LIGHT_MODELS
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import expose_logits, light_model_path, randomize_weights

MODELS = [
    "squeezenet",
    "resnet50",
    "bvlc_alexnet",
    pytest.param("vgg19", marks=pytest.mark.slow),
    pytest.param("densenet121", marks=pytest.mark.slow),
    "inception_v1",
    pytest.param("inception_v2", marks=pytest.mark.slow),
    "shufflenet",
    pytest.param("zfnet512", marks=pytest.mark.slow),
]

AT_SCALE = {"shufflenet"}
"""Models whose absolute tolerance scales with the output's largest
magnitude: ShuffleNet's random-weight logits reach 1e5, where float32 sums
in another order differ by ~1e-2 in a logit near 0."""


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


def assert_close(out: np.ndarray, ref: np.ndarray, at_scale: bool = False) -> None:
    """rtol 1e-3, atol 1e-4 (times the output's largest magnitude ``at_scale``)."""
    assert out.shape == ref.shape
    scale = max(1.0, float(np.max(np.abs(ref)))) if at_scale else 1.0
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4 * scale)


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
    model = randomize_weights(onnx.load(light_model_path(name)), seed=0)
    if model.graph.node[-1].op_type == "Softmax":  # DenseNet-121 ends in its logits
        model = expose_logits(model)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    x = np.random.default_rng(1).standard_normal(inp.shape).astype(np.float32)
    refs = sess.run(None, {inp.name: x})
    assert np.std(refs[-1]) > 1e-2, "random weights should give varied logits"
    outs = run_xtvm(model, x)
    assert len(outs) == len(refs)
    for out, ref in zip(outs, refs):  # the logits are before the softmax, which may saturate
        assert_close(out, ref, at_scale=name in AT_SCALE)


def test_the_nine_architectures_are_tested():
    names = [p if isinstance(p, str) else p.values[0] for p in MODELS]
    assert sorted(names) == sorted(LIGHT_MODELS)
