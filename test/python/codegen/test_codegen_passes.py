"""tir passes seen from code generation: unrolling under a PassContext,
vectorisation of simple loops, and the kernel signature."""

import re

import numpy as np
import pytest
from tir_kernels import ADDONE, DEFAULT_PASSES, build, lower, parse, run_passes

from xtvm import codegen
from xtvm.dialects.tir import ForOp, PrimFuncOp
from xtvm.lowering.tir_to_llvm import tir_signature
from xtvm.passes.tir.unroll_loop import TirUnrollLoopPass, UnrollConfig
from xtvm.transform import PassContext

TRANSPOSE = """
tir.prim_func @transpose(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %j = %c0 to %c4 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<4x4xf32>
      tir.store %v, %B[%j, %i] : memref<4x4xf32>
    }
  }
  tir.return
}
"""

SAXPY_1024 = """
tir.prim_func @saxpy(%X: memref<1024xf32>, %Y: memref<1024xf32>, %Z: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 1024 : index
  %a = arith.constant 3.0 : f32
  tir.for %i = %c0 to %n kind "serial" {
    %x = tir.load %X[%i] : memref<1024xf32>
    %y = tir.load %Y[%i] : memref<1024xf32>
    %ax = arith.mulf %a, %x : f32
    %s = arith.addf %ax, %y : f32
    tir.store %s, %Z[%i] : memref<1024xf32>
  }
  tir.return
}
"""


def _loops(text: str, passes: tuple[str, ...]) -> int:
    module = parse(text)
    run_passes(module, passes)
    return sum(isinstance(op, ForOp) for op in module.walk())


def test_unroll_reads_pass_context() -> None:
    assert _loops(TRANSPOSE, ("tir-unroll-loop",)) == 2
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16}}):
        assert TirUnrollLoopPass().config() == UnrollConfig(auto_max_step=16)
        assert _loops(TRANSPOSE, ("tir-unroll-loop",)) == 0
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 4}}):
        assert _loops(TRANSPOSE, ("tir-unroll-loop",)) == 1  # only the inner loop
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16, "explicit_unroll": False}}):
        module = parse(TRANSPOSE)
        run_passes(module, ("tir-unroll-loop",))
        kinds = [op.kind.data for op in module.walk() if isinstance(op, ForOp)]
        assert kinds == ["unrolled", "unrolled"]


def test_pass_options_override_context() -> None:
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16}}):
        config = TirUnrollLoopPass(auto_max_step=0).config()
    assert config.auto_max_step == 0


def test_unknown_unroll_option_is_rejected() -> None:
    with PassContext(config={"tir.UnrollLoop": {"max_step": 16}}):
        with pytest.raises(ValueError, match="unknown tir.UnrollLoop option"):
            TirUnrollLoopPass().config()


def test_unrolled_kernel_is_correct() -> None:
    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16}}):
        mod = build(TRANSPOSE, (*DEFAULT_PASSES, "tir-unroll-loop", "tir-simplify"))
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    b = np.zeros((4, 4), np.float32)
    mod["transpose"](a, b)
    np.testing.assert_array_equal(b, a.T)


def test_elementwise_loop_is_vectorised() -> None:
    """noalias buffers + the O3 pipeline: LLVM vectorises the loop."""
    module, _ = lower(SAXPY_1024)
    ir = codegen.emit_llvm_ir(module)
    assert re.search(r"<(8|16) x float>", ir), "the saxpy loop was not vectorised"
    assert "noalias" in ir
    unoptimized = codegen.emit_llvm_ir(lower(SAXPY_1024)[0], optimized=False)
    assert "x float>" not in unoptimized


def test_saxpy_numerics() -> None:
    mod = build(SAXPY_1024)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 1024)).astype(np.float32)
    z = np.zeros(1024, np.float32)
    mod["saxpy"](x, y, z)
    np.testing.assert_allclose(z, 3 * x + y, rtol=1e-6)


def test_signature_uses_logical_shapes() -> None:
    module = parse(TRANSPOSE + ADDONE)
    run_passes(module, DEFAULT_PASSES)
    funcs = {op.sym_name.data: op for op in module.ops if isinstance(op, PrimFuncOp)}
    assert tir_signature(funcs["transpose"]) == {
        "args": [
            {"name": "arg0", "shape": [4, 4], "dtype": "float32"},
            {"name": "arg1", "shape": [4, 4], "dtype": "float32"},
        ],
        "asserts": [],
    }
    assert [a["name"] for a in tir_signature(funcs["addone"])["args"]] == ["A", "B"]


def test_target_cpu_sets_vector_width() -> None:
    """Baseline x86-64 has 128-bit SSE vectors; a Target steers code generation."""
    module, _ = lower(SAXPY_1024)
    ir = codegen.emit_llvm_ir(module, target="llvm -mcpu=x86-64")
    assert "<4 x float>" in ir
    assert not re.search(r"<(8|16) x float>", ir)
