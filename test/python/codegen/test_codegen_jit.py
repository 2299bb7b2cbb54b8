"""The packed calling convention end to end: tir text → JIT → calls with NumPy data."""

import ctypes

import numpy as np
import pytest
from tir_kernels import ADDONE, DLTensor, build, call_packed, dltensor, raw_jit

from xtvm.runtime import XTVMError

MATRIX = """
tir.prim_func @scale(%A: memref<2x3xf32>, %B: memref<2x3xf32>) attributes {arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f32
  tir.for %i = %c0 to %c2 kind "serial" {
    tir.for %j = %c0 to %c3 kind "serial" {
      %v = tir.load %A[%i, %j] : memref<2x3xf32>
      %s = arith.mulf %v, %two : f32
      tir.store %s, %B[%i, %j] : memref<2x3xf32>
    }
  }
  tir.return
}
"""


ROW = """
tir.prim_func @row(%A: memref<1x3xf32>, %B: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tir.for %j = %c0 to %c3 kind "serial" {
    %v = tir.load %A[%c0, %j] : memref<1x3xf32>
    tir.store %v, %B[%j] : memref<3xf32>
  }
  tir.return
}
"""


@pytest.fixture(scope="module")
def addone():
    return build(ADDONE)


def test_addone_runs(addone) -> None:
    a = np.array([1.0, 2.5, -3.0], np.float32)
    b = np.zeros(3, np.float32)
    addone["addone"](a, b)
    np.testing.assert_array_equal(b, a + 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.zeros(4, np.float32), np.zeros(3, np.float32)), "shape mismatch"),
        ((np.zeros(3, np.float64), np.zeros(3, np.float32)), "dtype mismatch"),
        ((np.zeros((3, 1), np.float32), np.zeros(3, np.float32)), "ndim mismatch"),
        ((np.zeros(3, np.int32), np.zeros(3, np.float32)), "dtype mismatch"),
        ((np.zeros(3, np.float32), None), "'B'"),
        ((np.zeros(3, np.float32),), "argument"),
    ],
)
def test_wrong_arguments_raise(addone, args, message) -> None:
    with pytest.raises(XTVMError, match=message):
        addone["addone"](*args)


@pytest.fixture(scope="module")
def raw():
    engine, addresses = raw_jit(ADDONE + MATRIX + ROW)
    yield addresses
    del engine


def test_return_codes(raw) -> None:
    """Each failed check returns (kind << 16) | index, as docs/abi.md says."""
    f = raw["addone"]
    good, keep_good = dltensor(np.zeros(3, np.float32))
    out, keep_out = dltensor(np.zeros(3, np.float32))
    assert call_packed(f, [good, out]) == 0
    assert call_packed(f, [good, out], num_args=1) == (1 << 16) | 1
    assert call_packed(f, [good, out, out], num_args=3) == (1 << 16) | 3
    assert call_packed(f, [good, None]) == (2 << 16) | 1
    null_data, keep_null = dltensor(np.zeros(3, np.float32))
    null_data.data = None
    assert call_packed(f, [null_data, out]) == (2 << 16) | 0
    two_d, keep_2d = dltensor(np.zeros((3, 1), np.float32))
    assert call_packed(f, [good, two_d]) == (3 << 16) | 1
    doubles, keep_d = dltensor(np.zeros(3, np.float64))
    assert call_packed(f, [doubles, out]) == (4 << 16) | 0
    vector_lanes, keep_v = dltensor(np.zeros(3, np.float32))
    vector_lanes.lanes = 4
    assert call_packed(f, [good, vector_lanes]) == (4 << 16) | 1
    longer, keep_l = dltensor(np.zeros(4, np.float32))
    assert call_packed(f, [good, longer]) == (5 << 16) | 1


def test_strides_and_byte_offset(raw) -> None:
    f = raw["scale"]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.zeros((2, 3), np.float32)
    out, keep_out = dltensor(b)
    compact, keep_c = dltensor(a, strides=[3, 1])
    assert call_packed(f, [compact, out]) == 0
    np.testing.assert_array_equal(b, a * 2)
    transposed, keep_t = dltensor(a, strides=[1, 2])
    assert call_packed(f, [transposed, out]) == (6 << 16) | 0
    # byte_offset is added to data: start the input one row later
    padded = np.concatenate([np.full((1, 3), 100, np.float32), a])
    shifted, keep_s = dltensor(padded[:2])
    shifted.byte_offset = 3 * 4
    assert call_packed(f, [shifted, out]) == 0
    np.testing.assert_array_equal(b, padded[1:] * 2)


def test_unit_dims_ignore_strides(raw) -> None:
    """A dimension of extent 1 never uses its stride, so any value passes."""
    f = raw["row"]
    a = np.arange(3, dtype=np.float32).reshape(1, 3)
    b = np.zeros(3, np.float32)
    out, keep_out = dltensor(b)
    odd_unit, keep_u = dltensor(a, strides=[999, 1])
    assert call_packed(f, [odd_unit, out]) == 0
    np.testing.assert_array_equal(b, a[0])
    odd_inner, keep_i = dltensor(a, strides=[3, 2])
    assert call_packed(f, [odd_inner, out]) == (6 << 16) | 0


def test_dltensor_layout() -> None:
    assert ctypes.sizeof(DLTensor) == 48
