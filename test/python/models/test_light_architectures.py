"""The other five architectures of the onnx package's light models —
DenseNet-121, Inception v1 and v2, ShuffleNet, ZFNet-512 — compiled by xtvm
and checked as ``test_light_models.py`` checks the first four: as shipped
against the shipped output, and with seeded random weights against
onnxruntime (logits and probabilities), at the same tolerances. Together
the two files cover all nine (``xtvm.bench.models.LIGHT_MODELS``, what
``python -m xtvm.bench`` times). Models whose compile takes more than ~20 s
are marked ``slow``."""

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from test_light_models import MODELS as FIRST_FOUR
from test_light_models import assert_close, input_shape, run_xtvm

from xtvm.bench.models import LIGHT_MODELS
from xtvm.frontend.onnx.testing import expose_logits, light_model_path, randomize_weights

MODELS = [
    pytest.param("densenet121", marks=pytest.mark.slow),
    "inception_v1",
    pytest.param("inception_v2", marks=pytest.mark.slow),
    "shufflenet",
    pytest.param("zfnet512", marks=pytest.mark.slow),
]


def _name(param) -> str:
    return param if isinstance(param, str) else param.values[0]


def test_the_two_files_cover_the_nine_architectures():
    names = [_name(p) for p in [*FIRST_FOUR, *MODELS]]
    assert sorted(names) == sorted(LIGHT_MODELS)
    for name in names:
        assert light_model_path(name).is_file()


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
    shape = [d if isinstance(d, int) else 1 for d in inp.shape]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    refs = sess.run(None, {inp.name: x})
    outs = run_xtvm(model, x)
    assert len(outs) == len(refs)
    assert np.std(refs[-1]) > 1e-2, "random weights should give varied logits"
    for out, ref in zip(outs, refs):
        assert_close_at_scale(out, ref)


def assert_close_at_scale(out: np.ndarray, ref: np.ndarray) -> None:
    """The model tests' tolerances, the absolute one relative to the output's
    largest magnitude: ShuffleNet's random-weight logits reach 1e5, where
    float32 sums in another order differ by ~1e-2 in a logit near 0."""
    assert out.shape == ref.shape
    scale = max(1.0, float(np.max(np.abs(ref))))
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4 * scale)
