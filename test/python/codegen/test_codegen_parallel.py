"""Parallel loops on OpenMP threads: results, thread setting, asserts, export."""

import ctypes.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tir_kernels import build, lower

from xtvm import codegen
from xtvm.runtime import XTVMError, set_num_threads

pytestmark = pytest.mark.skipif(ctypes.util.find_library("gomp") is None, reason="needs libgomp")

PARALLEL = """
tir.prim_func @scale_rows(%A: memref<64x32xf32>, %B: memref<64x32xf32>, %s: f32, %limit: index)
    attributes {arg_names = ["A", "B", "s", "limit"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tir.for %i = %c0 to %c64 kind "parallel" {
    %ok = arith.cmpi slt, %i, %limit : index
    tir.assert %ok, "row index reached the limit"
    %row = tir.allocate "local" : memref<32xf32>
    tir.for %j = %c0 to %c32 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<64x32xf32>
      %w = arith.mulf %v, %s : f32
      tir.store %w, %row[%j] : memref<32xf32>
    }
    tir.for %j = %c0 to %c32 kind "parallel" {
      %t = tir.load %row[%j] : memref<32xf32>
      tir.store %t, %B[%i, %j] : memref<64x32xf32>
    }
  }
  tir.return
}
"""


@pytest.fixture(scope="module")
def module():
    return build(PARALLEL)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_parallel_rows(module, threads: int) -> None:
    set_num_threads(threads)
    a = np.random.default_rng(threads).standard_normal((64, 32)).astype(np.float32)
    b = np.zeros_like(a)
    module["scale_rows"](a, b, np.array(1.5, np.float32), np.array(64, np.int64))
    np.testing.assert_allclose(b, a * 1.5, rtol=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
def test_assert_in_parallel_loop(module, threads: int) -> None:
    """A failed assert's code comes back from the team's threads and, at one
    thread, from the chunk function the kernel calls itself."""
    set_num_threads(threads)
    a = np.zeros((64, 32), np.float32)
    with pytest.raises(XTVMError, match="row index reached the limit"):
        module["scale_rows"](a, a.copy(), np.array(1.0, np.float32), np.array(10, np.int64))


def test_setter_is_exported() -> None:
    module, _ = lower(PARALLEL)
    ir = codegen.emit_llvm_ir(module)
    assert "define void @xtvm_set_num_threads(i32" in ir.replace('"', "")


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")
def test_export_links_openmp(module, tmp_path: Path) -> None:
    path = tmp_path / "parallel.so"
    module.export_library(path)
    script = (
        "import sys, numpy as np\n"
        "from xtvm.runtime import load_module, set_num_threads\n"
        "mod = load_module(sys.argv[1]); set_num_threads(2)\n"
        "a = np.ones((64, 32), np.float32); b = np.zeros_like(a)\n"
        "mod['scale_rows'](a, b, np.array(2, np.float32), np.array(64, np.int64))\n"
        "print(float(b.sum()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(64 * 32 * 2.0)
