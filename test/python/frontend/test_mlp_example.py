"""``examples/make_mlp.py`` builds a model that imports and runs like onnxruntime."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx_testing import arg_names, op_names, reparse, run_ort, run_relay

from xtvm.frontend import OnnxImportError, from_onnx

SCRIPT = Path(__file__).resolve().parents[3] / "examples" / "make_mlp.py"


@pytest.fixture(scope="module")
def mlp_path() -> Path:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=True)
    path = Path(done.stdout.strip())
    assert path == SCRIPT.parent / "mlp.onnx"
    assert path.is_file()
    return path


@pytest.mark.parametrize("batch", [1, 4])
def test_mlp_imports_and_matches_onnxruntime(mlp_path: Path, batch: int):
    module, params = from_onnx(mlp_path, shape={"data": (batch, 784)})
    module.verify()
    reparse(module)
    assert op_names(module) == [
        "relay.nn.dense", "relay.add", "relay.nn.relu",
        "relay.nn.matmul", "relay.add", "relay.nn.relu",
        "relay.nn.matmul", "relay.add", "relay.nn.softmax",
    ]
    assert arg_names(module) == ["data", *params]
    assert {k: v.shape for k, v in params.items()} == {
        "fc1.weight": (256, 784), "fc1.bias": (256,),
        "fc2.weight": (256, 128), "fc2.bias": (128,),
        "fc3.weight": (128, 10), "fc3.bias": (10,),
    }
    data = np.random.default_rng(1).standard_normal((batch, 784)).astype(np.float32)
    (got,) = run_relay(module, {"data": data, **params})
    (want,) = run_ort(onnx.load(mlp_path), {"data": data})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-5)


def test_mlp_batch_is_symbolic(mlp_path: Path):
    with pytest.raises(OnnxImportError, match="input 'data' has symbolic dimension 'N' at axis 0"):
        from_onnx(mlp_path)
