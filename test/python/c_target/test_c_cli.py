"""The C target from the command line: ``xtvm-compile --target c`` writes a
library the runtime loads, ``--emit c`` prints the kernels' C (one file
that compiles on its own), ``--emit llvm-dialect`` prints the whole program
with the C carried on declarations, which compiles again to the same model;
misuse is one clear message."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BIN = Path(sys.executable).parent
RELU = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = relay.exp %x : tensor<4xf32>
  %r = relay.nn.relu %e : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""
RUN = r"""
import sys, numpy as np, xtvm
from xtvm.runtime import load_module
g = load_module(sys.argv[1])["default"](xtvm.cpu(0))
g.set_input(0, np.array([-1.0, 0.0, 1.0, 2.0], np.float32)); g.run()
print(g.get_output(0).numpy().tolist())
"""

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")


def tool(name: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / name), *map(str, args)], capture_output=True, text=True)


def run_library(path: Path) -> list[float]:
    out = subprocess.run([sys.executable, "-c", RUN, str(path)], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    return eval(out.strip(), {})  # noqa: S307 - a list of floats we printed


def test_compile_emit_and_recompile(tmp_path: Path) -> None:
    src = tmp_path / "relu.mlir"
    src.write_text(RELU)
    expected = np.maximum(np.exp(np.array([-1.0, 0.0, 1.0, 2.0], np.float32)), 0).tolist()

    lib = tmp_path / "relu.so"
    assert tool("xtvm-compile", src, "--target", "c", "-o", lib).returncode == 0
    np.testing.assert_allclose(run_library(lib), expected, rtol=1e-6)

    c = tool("xtvm-compile", src, "--target", "c", "--emit", "c")
    assert c.returncode == 0, c.stderr
    assert "// kernel @fused_exp_nn_relu" in c.stdout and "expf(" in c.stdout
    c_file = tmp_path / "relu.c"
    c_file.write_text(c.stdout)
    check = subprocess.run(["cc", "-fsyntax-only", "-fopenmp", "-Wall", "-Werror",
                            "-Wno-unused-function", str(c_file)], capture_output=True, text=True)  # fmt: skip
    assert check.returncode == 0, check.stderr

    llvm_dialect = tool("xtvm-compile", src, "--target", "c", "--emit", "llvm-dialect")
    assert llvm_dialect.returncode == 0, llvm_dialect.stderr
    assert "xtvm.c_source" in llvm_dialect.stdout and "tir.prim_func" not in llvm_dialect.stdout
    stage = tmp_path / "relu.llvm.mlir"
    stage.write_text(llvm_dialect.stdout)
    again = tmp_path / "again.so"
    r = tool("xtvm-compile", stage, "--target", "c", "-o", again)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(run_library(again), expected, rtol=1e-6)


def test_emit_c_needs_target_c(tmp_path: Path) -> None:
    src = tmp_path / "relu.mlir"
    src.write_text(RELU)
    r = tool("xtvm-compile", src, "--emit", "c")
    assert r.returncode == 2 and "--emit c prints the C source of the c target: add --target c" in r.stderr
    assert "Traceback" not in r.stderr
