"""Models compiled for the C target equal onnxruntime, at the tolerances of
the llvm model tests (test/python/models/test_light_models.py): the MLP
example, and the onnx package's SqueezeNet and ResNet-50 (slow) with
seeded random weights, logits and probabilities."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

import xtvm
from xtvm.frontend import from_onnx
from xtvm.frontend.onnx.testing import expose_logits, light_model_path, randomize_weights

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")
ort = pytest.importorskip("onnxruntime")

def assert_close(out: np.ndarray, ref: np.ndarray) -> None:
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-4)


def run(model: onnx.ModelProto, x: np.ndarray, shape: dict | None = None) -> list[np.ndarray]:
    mod, params = from_onnx(model, shape=shape)
    gmod = xtvm.build(mod, target="c", params=params)["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    return [gmod.get_output(i).numpy() for i in range(gmod.get_num_outputs())]


def reference(model: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: x})


def test_mlp_matches_onnxruntime(mlp_path: Path) -> None:
    model = onnx.load(mlp_path)
    x = np.random.default_rng(0).standard_normal((2, 784)).astype(np.float32)
    (out,) = run(model, x, shape={"data": (2, 784)})
    assert_close(out, reference(model, x)[0])


@pytest.mark.parametrize("name", ["squeezenet", pytest.param("resnet50", marks=pytest.mark.slow)])
def test_random_weights_match_onnxruntime(name: str) -> None:
    model = expose_logits(randomize_weights(onnx.load(light_model_path(name)), seed=0))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    x = np.random.default_rng(1).standard_normal(inp.shape).astype(np.float32)
    probs_ref, logits_ref = sess.run(None, {inp.name: x})
    probs, logits = run(model, x)
    assert_close(logits, logits_ref)  # before the softmax, which may saturate
    assert_close(probs, probs_ref)
