"""Shared fixtures: the example MLP (made by examples/make_mlp.py)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def mlp_path(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mlp") / "mlp.onnx"
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_mlp.py"), "--output", str(out)],
        check=True, capture_output=True,
    )
    return out
