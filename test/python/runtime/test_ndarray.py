"""NDArray and Device: round trips, alignment, the DLTensor, copies, aliases."""

import ctypes

import numpy as np
import pytest

import xtvm
from xtvm.runtime import XTVMError, cpu, device
from xtvm.runtime.ndarray import DTYPE_CODES, DLTensor, alias, array, empty

ALL_DTYPES = list(DTYPE_CODES)


def sample(dtype: str, shape=(3, 5)) -> np.ndarray:
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip_alignment_and_dltensor(dtype):
    src = sample(dtype)
    arr = xtvm.nd.array(src)
    assert arr.shape == (3, 5) and arr.dtype == dtype and arr.ndim == 2
    np.testing.assert_array_equal(arr.numpy(), src)
    np.testing.assert_array_equal(arr.asnumpy(), src)
    assert arr.data_ptr % 64 == 0
    tensor: DLTensor = arr.handle.contents
    assert tensor.data == arr.data_ptr
    assert (tensor.device.device_type, tensor.device.device_id) == (1, 0)
    assert tensor.ndim == 2 and [tensor.shape[0], tensor.shape[1]] == [3, 5]
    code, bits = DTYPE_CODES[dtype]
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (code, bits, 1)
    assert not tensor.strides and tensor.byte_offset == 0
    assert ctypes.sizeof(tensor) == 48


def test_bool_is_dlpack_code_6_bits_8():
    t = xtvm.nd.array(np.array([True, False])).handle.contents
    assert (t.dtype.code, t.dtype.bits) == (6, 8)


def test_numpy_returns_a_copy_and_handle_is_stable():
    arr = array(np.zeros(4, "float32"))
    handle = ctypes.addressof(arr.handle.contents)
    arr.numpy()[0] = 5
    assert arr.numpy()[0] == 0
    arr.copyfrom(np.ones(4, "float32"))
    assert ctypes.addressof(arr.handle.contents) == handle


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_scalar_and_empty_shapes(shape):
    arr = empty(shape, "int32")
    assert arr.shape == shape and arr.handle.contents.ndim == len(shape)
    assert arr.handle.contents.data  # never NULL, even without elements


def test_copyfrom_checks_shape_and_dtype():
    arr = empty((2, 2), "float32")
    with pytest.raises(XTVMError, match=r"expected shape \(2, 2\) float32, got \(4,\) float32"):
        arr.copyfrom(np.zeros(4, "float32"))
    with pytest.raises(XTVMError, match=r"expected shape \(2, 2\) float32, got \(2, 2\) float64"):
        arr.copyfrom(np.zeros((2, 2)))
    arr.copyfrom([[1, 2], [3, 4]])  # lists are converted
    np.testing.assert_array_equal(arr.numpy(), [[1, 2], [3, 4]])
    arr[:] = np.full((2, 2), 7, "float32")
    assert (arr.numpy() == 7).all()


def test_copyto_array_and_device():
    src = array(np.arange(4, dtype="int64"))
    dst = empty(4, "int64")
    assert src.copyto(dst) is dst
    np.testing.assert_array_equal(dst.numpy(), np.arange(4))
    copy = src.copyto(cpu(0))
    assert copy.data_ptr != src.data_ptr
    np.testing.assert_array_equal(copy.numpy(), np.arange(4))


def test_unsupported_dtype_and_bad_shape():
    with pytest.raises(XTVMError, match="unsupported dtype 'complex64'"):
        empty(3, "complex64")
    with pytest.raises(XTVMError, match="non-negative"):
        empty((-1,), "float32")


def test_alias_views_shared_memory():
    base = empty(256, "uint8")
    a = alias(base, 64, (4,), "float32")
    b = alias(base, 64, (2, 2), "float32")
    a.copyfrom(np.arange(4, dtype="float32"))
    np.testing.assert_array_equal(b.numpy(), [[0, 1], [2, 3]])
    assert a.data_ptr == base.data_ptr + 64 and a.data_ptr % 64 == 0
    with pytest.raises(XTVMError, match="exceeds the 256-byte buffer"):
        alias(base, 250, (4,), "float32")
    with pytest.raises(XTVMError, match="misaligned"):
        alias(base, 2, (4,), "float32")


def test_device():
    assert str(cpu()) == "cpu(0)" and repr(cpu(1)) == "cpu(1)"
    assert cpu(0) == xtvm.cpu(0) == device("cpu") == xtvm.device("llvm", 0)
    assert (cpu(2).device_type, cpu(2).device_id) == (1, 2)
    with pytest.raises(XTVMError, match="unknown device 'cuda'"):
        device("cuda")
