"""Element types through convert-tir-to-llvm and the packed entry point:
unsigned buffers are checked as DLPack uint, their constants are bitcasts
that cost nothing, and float64 → float16 rounds once (LLVM would call
compiler-rt's ``__truncdfhf2``, which the JIT cannot resolve)."""

import numpy as np
import pytest
from tir_kernels import build

from xtvm.runtime import XTVMError

UNSIGNED = """
tir.prim_func @halve(%A: memref<4xui16>, %B: memref<4xui16>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %two_i = arith.constant 2 : i16
  %two = arith.bitcast %two_i : i16 to ui16
  tir.for %i = %c0 to %c4 kind "serial" {
    %v = tir.load %A[%i] : memref<4xui16>
    %h = arith.divui %v, %two : ui16
    tir.store %h, %B[%i] : memref<4xui16>
  }
  tir.return
}
"""


def test_unsigned_buffers() -> None:
    mod = build(UNSIGNED)
    a = np.array([0, 7, 40000, 65535], np.uint16)
    b = np.zeros(4, np.uint16)
    mod["halve"](a, b)
    np.testing.assert_array_equal(b, a // 2)  # unsigned division: no sign
    with pytest.raises(XTVMError, match="dtype mismatch"):
        mod["halve"](a.astype(np.int16), b)


TRUNC = """
tir.prim_func @narrow(%A: memref<8xf64>, %B: memref<8xf16>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tir.for %i = %c0 to %c8 kind "serial" {
    %v = tir.load %A[%i] : memref<8xf64>
    %h = arith.truncf %v : f64 to f16
    tir.store %h, %B[%i] : memref<8xf16>
  }
  tir.return
}
"""


def test_float64_to_float16_rounds_once() -> None:
    mod = build(TRUNC)
    # 1 + 2**-11 is halfway between two float16s; a hair above it must round up,
    # which rounding to float32 first (to the halfway point, then to even) loses
    above = 1 + 2**-11 + 2**-40
    a = np.array([above, -above, 1 + 2**-11, 65520.0, 1e-8, np.nan, -np.inf, -0.0])
    b = np.zeros(8, np.float16)
    mod["narrow"](a, b)
    with np.errstate(over="ignore"):
        want = a.astype(np.float16)
    np.testing.assert_array_equal(b, want)
    assert np.signbit(b[-1])
