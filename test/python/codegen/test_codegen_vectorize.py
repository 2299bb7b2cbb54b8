"""Vectorized loops lower to LLVM vector code (``vectorize.py``): register-
blocked FMA accumulation, broadcasts, ramps, gathers and scatters, lane-wise
fallbacks, all against NumPy."""

import numpy as np
import pytest
from tir_kernels import DEFAULT_PASSES, build, lower

MICROKERNEL = """
tir.prim_func @micro(%A: memref<4x32xf32>, %B: memref<32x16xf32>, %C: memref<4x16xf32>)
    attributes {arg_names = ["A", "B", "C"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %acc = tir.allocate "local" : memref<4x16xf32>
  tir.for %r = %c0 to %c4 kind "unrolled" {
    tir.for %v = %c0 to %c16 kind "vectorized" {
      tir.store %zero, %acc[%r, %v] : memref<4x16xf32>
    }
  }
  tir.for %k = %c0 to %c32 kind "serial" {
    tir.for %r = %c0 to %c4 kind "unrolled" {
      tir.for %v = %c0 to %c16 kind "vectorized" {
        %a = tir.load %A[%r, %k] : memref<4x32xf32>
        %b = tir.load %B[%k, %v] : memref<32x16xf32>
        %old = tir.load %acc[%r, %v] : memref<4x16xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %old, %p : f32
        tir.store %s, %acc[%r, %v] : memref<4x16xf32>
      }
    }
  }
  tir.for %r = %c0 to %c4 kind "serial" {
    tir.for %v = %c0 to %c16 kind "vectorized" {
      %x = tir.load %acc[%r, %v] : memref<4x16xf32>
      %y = arith.maximumf %x, %zero : f32
      tir.store %y, %C[%r, %v] : memref<4x16xf32>
    }
  }
  tir.return
}
"""

MIXED = """
tir.prim_func @mixed(%X: memref<32xf32>, %T: memref<8x4xf32>, %E: memref<8xf32>, %S: memref<4xf32>, %G: memref<8xf32>)
    attributes {arg_names = ["X", "T", "E", "S", "G"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %half = arith.constant 0.5 : f32
  tir.for %i = %c0 to %c4 kind "serial" {
    tir.for %v = %c0 to %c8 kind "vectorized" {
      %twice = arith.muli %v, %c2 : index
      %odd = arith.addi %twice, %c1 : index
      %x = tir.load %X[%odd] : memref<32xf32>
      %bias = tir.load %X[%i] : memref<32xf32>
      %y = arith.addf %x, %bias : f32
      tir.store %y, %T[%v, %i] : memref<8x4xf32>
    }
  }
  tir.for %v = %c0 to %c8 kind "vectorized" {
    %x = tir.load %X[%v] : memref<32xf32>
    %e = math.exp %x : f32
    %big = arith.cmpf ogt, %x, %half : f32
    %r = arith.select %big, %e, %half : f32
    tir.store %r, %E[%v] : memref<8xf32>
    %fv = arith.index_cast %v : index to i64
    %f = arith.sitofp %fv : i64 to f32
    %g = arith.mulf %f, %x : f32
    tir.store %g, %G[%v] : memref<8xf32>
  }
  tir.for %v = %c0 to %c4 kind "vectorized" {
    %last = arith.subi %c3, %v : index
    %x = tir.load %X[%last] : memref<32xf32>
    tir.store %x, %S[%v] : memref<4xf32>
  }
  tir.return
}
"""


def test_register_blocked_microkernel_is_vector_fma() -> None:
    module, _ = lower(MICROKERNEL, (*DEFAULT_PASSES, "tir-unroll-loop"))
    text = str(module)
    assert "llvm.fmuladd.v16f32" in text
    assert "vector<16xf32>" in text
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 32)).astype(np.float32)
    b = rng.standard_normal((32, 16)).astype(np.float32)
    c = np.zeros((4, 16), np.float32)
    build(MICROKERNEL, (*DEFAULT_PASSES, "tir-unroll-loop"))["micro"](a, b, c)
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)


def test_ramps_gathers_scatters_and_lane_wise_ops() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(32).astype(np.float32)
    t = np.zeros((8, 4), np.float32)
    e = np.zeros(8, np.float32)
    s = np.zeros(4, np.float32)
    g = np.zeros(8, np.float32)
    build(MIXED)["mixed"](x, t, e, s, g)
    expected_t = x[1:17:2][:, None] + x[:4][None, :]
    np.testing.assert_allclose(t, expected_t, rtol=1e-6)
    np.testing.assert_allclose(e, np.where(x[:8] > 0.5, np.exp(x[:8]), 0.5), rtol=1e-6)
    np.testing.assert_allclose(g, np.arange(8) * x[:8], rtol=1e-6)
    np.testing.assert_allclose(s, x[3::-1][:4], rtol=1e-6)


@pytest.mark.parametrize("extent", [1, 65])
def test_loops_outside_the_vector_range_stay_scalar(extent: int) -> None:
    text = f"""
tir.prim_func @scale(%A: memref<{extent}xf32>, %B: memref<{extent}xf32>) attributes {{arg_names = ["A", "B"]}} {{
  %c0 = arith.constant 0 : index
  %n = arith.constant {extent} : index
  %two = arith.constant 2.0 : f32
  tir.for %i = %c0 to %n kind "vectorized" {{
    %a = tir.load %A[%i] : memref<{extent}xf32>
    %b = arith.mulf %a, %two : f32
    tir.store %b, %B[%i] : memref<{extent}xf32>
  }}
  tir.return
}}
"""
    module, _ = lower(text, ())
    assert "vector<" not in str(module)
    a = np.arange(extent, dtype=np.float32)
    b = np.zeros_like(a)
    build(text, ())["scale"](a, b)
    np.testing.assert_allclose(b, 2 * a)


TEMPORARY = """
tir.prim_func @temporary(%X: memref<8xf32>, %Y: memref<8xf32>, %S: memref<1xf32>) attributes {arg_names = ["X", "Y", "S"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %tmp = tir.allocate "local" : memref<1xf32>
  tir.for %v = %c0 to %c8 kind "vectorized" {
    %x = tir.load %X[%v] : memref<8xf32>
    tir.store %x, %tmp[%c0] : memref<1xf32>
    %t = tir.load %tmp[%c0] : memref<1xf32>
    %y = arith.mulf %t, %two : f32
    tir.store %y, %Y[%v] : memref<8xf32>
  }
  tir.for %v = %c0 to %c8 kind "vectorized" {
    %x = tir.load %X[%v] : memref<8xf32>
    %s = tir.load %S[%c0] : memref<1xf32>
    %a = arith.addf %s, %x : f32
    tir.store %a, %S[%c0] : memref<1xf32>
  }
  tir.return
}
"""


def test_values_carried_through_one_address_stay_scalar() -> None:
    """A per-iteration temporary and a sum into one element: as one vector
    iteration each lane would read the last lane's value, so both loops stay
    scalar loops (and compute what the loop means)."""
    module, _ = lower(TEMPORARY)
    assert "vector<" not in str(module)
    x = np.arange(8, dtype=np.float32)
    y = np.zeros(8, np.float32)
    s = np.zeros(1, np.float32)
    build(TEMPORARY)["temporary"](x, y, s)
    np.testing.assert_allclose(y, 2 * x)
    np.testing.assert_allclose(s, [x.sum()])
