"""Runs the lit + FileCheck suite under pytest: one pytest case per lit file,
so a failure names the golden file and shows lit's output."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

LIT_ROOT = Path(__file__).parent / "lit"
LIT_FILES = sorted(p for p in LIT_ROOT.rglob("*.mlir") if "inputs" not in p.parts)


@pytest.mark.parametrize("path", LIT_FILES, ids=lambda p: str(p.relative_to(LIT_ROOT)))
def test_lit(path: Path) -> None:
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")])}
    result = subprocess.run(
        [os.path.join(bin_dir, "lit"), "-v", str(path)],
        capture_output=True, text=True, env=env,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_lit_suite_is_not_empty() -> None:
    assert len(LIT_FILES) >= 10
