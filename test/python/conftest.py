"""Fixtures every test folder shares."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def mlp_path(tmp_path_factory) -> Path:
    """The example MLP (examples/make_mlp.py), written once per run to a
    temporary file: examples/mlp.onnx is generated, not tracked, so a clean
    checkout has none, and tests must not depend on another test making it."""
    out = tmp_path_factory.mktemp("mlp") / "mlp.onnx"
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_mlp.py"), "--output", str(out)],
        check=True, capture_output=True,
    )  # fmt: skip
    return out
