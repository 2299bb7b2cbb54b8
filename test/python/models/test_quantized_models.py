"""The quantized light ResNet-50 and SqueezeNet (onnxruntime's quantizer,
``examples/make_quantized_models.py``), compiled by xtvm and compared with
onnxruntime on a random input.

Three formats per model: QDQ (float ops between DequantizeLinear and
QuantizeLinear, which ``qnn-fake-quantization-to-integer`` turns into qnn
ops), QOperator (QLinearConv and the ``com.microsoft`` QLinear ops) and
dynamic (DynamicQuantizeLinear + ConvInteger/MatMulInteger). The static
models end in a DequantizeLinear: their float outputs may differ from
onnxruntime's by at most one step of its scale. The dynamic models end in a
float softmax (see the README's "Quantized models" for what differs).
ResNet-50 (minutes to compile) is marked ``slow``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import xtvm
from xtvm.frontend import from_onnx

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnxruntime.quantization")

ROOT = Path(__file__).resolve().parents[3]


def _script():
    spec = importlib.util.spec_from_file_location(
        "make_quantized_models", ROOT / "examples" / "make_quantized_models.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Make the models of one architecture once per module, on demand."""
    out = tmp_path_factory.mktemp("quantized")
    made: dict[str, dict[str, Path]] = {}

    def get(name: str) -> dict[str, Path]:
        if name not in made:
            made[name] = _script().make(name, out)
        return made[name]

    return get


def output_scale(model: onnx.ModelProto) -> float | None:
    """The scale of the DequantizeLinear producing the graph output, if any."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    out = model.graph.output[0].name
    producer = {o: n for n in model.graph.node for o in n.output}
    node = producer.get(out)
    if node is None or node.op_type != "DequantizeLinear":
        return None
    return float(inits[node.input[1]].reshape(()))


def run_both(path: Path) -> tuple[np.ndarray, np.ndarray, onnx.ModelProto]:
    model = onnx.load(path)
    inits = {t.name for t in model.graph.initializer}
    (inp,) = [i for i in model.graph.input if i.name not in inits]
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    mod, params = from_onnx(model)
    gmod = xtvm.build(mod, params=params)["default"](xtvm.cpu(0))
    gmod.set_input(0, x)
    gmod.run()
    ours = gmod.get_output(0).numpy()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {inp.name: x})[0]
    return ours, theirs, model


CASES = [
    pytest.param(name, fmt, marks=[pytest.mark.slow] if name == "resnet50" else [])
    for name in ("squeezenet", "resnet50")
    for fmt in ("qdq", "qop", "dynamic")
]


@pytest.mark.parametrize("name,fmt", CASES)
def test_quantized_model_matches_onnxruntime(models, name, fmt):
    ours, theirs, model = run_both(models(name)[fmt])
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    scale = output_scale(model)
    diff = np.abs(ours.astype(np.float64) - theirs.astype(np.float64)).max()
    if scale is not None:
        assert diff <= scale * 1.0001, f"max |Δ| {diff} > one output step {scale}"
    else:  # dynamic: a float softmax after run-time quantized layers; a float
        # rounding difference before a DynamicQuantizeLinear can move one
        # activation by one step (SqueezeNet: 1.2e-3 with the int8 kernels)
        assert diff <= 5e-3, f"max |Δ| {diff}"


def test_emit_relay_shows_qnn_ops(models, tmp_path):
    """``xtvm-compile --emit relay`` shows the qnn ops the frontend made;
    ``--emit relay-opt`` shows them canonicalized into integer relay ops."""
    import subprocess
    import sys

    path = models("squeezenet")["qop"]
    texts = {}
    for stage in ("relay", "relay-opt"):
        out = tmp_path / f"{stage}.mlir"
        cmd = [sys.executable, "-m", "xtvm.tools.compile", str(path), "--emit", stage]
        subprocess.run(cmd + ["--elide-large-constants", "-o", str(out)], check=True)
        texts[stage] = out.read_text()
    assert "qnn.conv2d" in texts["relay"] and "qnn.concatenate" in texts["relay"]
    assert "qnn." not in texts["relay-opt"].split("{-#")[0].replace("qnn-", "")
    assert "xui8>" in texts["relay-opt"]  # the activations stay uint8
