"""PackedFuncs: native kernel calls, every error kind, the fast path, the registry."""

import numpy as np
import pytest

from xtvm.runtime import (
    PackedFunc,
    PyFunc,
    XTVMError,
    cpu,
    get_global_func,
    list_global_func_names,
    register_func,
    remove_global_func,
)
from xtvm.runtime.ndarray import array, empty


def f32(values) -> np.ndarray:
    return np.asarray(values, dtype="float32")


def test_kernel_call(kernels):
    a, b = array(f32([1, 2, 3, 4])), empty(4, "float32")
    kernels["addone"](a, b)
    np.testing.assert_array_equal(b.numpy(), [2, 3, 4, 5])
    c = empty(4)
    assert kernels["add"](a, b, c) is None
    np.testing.assert_array_equal(c.numpy(), [3, 5, 7, 9])


def test_kernel_repeated_call_reuses_arguments(kernels):
    addone = kernels["addone"]
    a, b = array(f32([1, 2, 3, 4])), empty(4)
    for _ in range(3):
        addone(a, b)
        a.copyfrom(b)
    np.testing.assert_array_equal(a.numpy(), [4, 5, 6, 7])
    other = empty(4)
    addone(a, other)  # new arguments after a cached call
    np.testing.assert_array_equal(other.numpy(), [5, 6, 7, 8])


def test_numpy_arguments_are_converted_and_written_back(kernels):
    out = np.zeros(4, "float32")
    kernels["addone"](f32([0, 1, 2, 3]), out)
    np.testing.assert_array_equal(out, [1, 2, 3, 4])


def test_bind_fast_path(kernels):
    a, b = array(f32([1, 1, 1, 1])), empty(4)
    run = kernels["addone"].bind([a, b])
    run()
    np.testing.assert_array_equal(b.numpy(), [2, 2, 2, 2])
    bad = kernels["addone"].bind([a, empty(3)])
    with pytest.raises(XTVMError, match=r"argument 'B' \(#1\): expected shape \(4,\) float32"):
        bad()
    with pytest.raises(XTVMError, match="not NumPy arrays"):
        kernels["addone"].bind([np.zeros(4, "float32"), b])


@pytest.mark.parametrize(
    "args, message",
    [
        (
            lambda: (array(f32([1, 2, 3])), empty(4)),
            r"^addone: argument 'A' \(#0\): expected shape \(4,\) float32, got \(3,\) float32 "
            r"\(shape mismatch\)$",
        ),
        (
            lambda: (empty(4), empty(4, "int32")),
            r"^addone: argument 'B' \(#1\): expected shape \(4,\) float32, got \(4,\) int32 "
            r"\(dtype mismatch\)$",
        ),
        (
            lambda: (empty((4, 1)), empty(4)),
            r"^addone: argument 'A' \(#0\): expected shape \(4,\) float32, got \(4, 1\) float32 "
            r"\(ndim mismatch\)$",
        ),
        (
            lambda: (empty(4), empty(4), empty(4)),
            r"^addone: expected 2 arguments \(A, B\), got 3$",
        ),
        (lambda: (empty(4), None), r"^addone: argument 'B' \(#1\): NULL tensor"),
        (
            lambda: ("hello", empty(4)),
            r"^addone: argument 'A' \(#0\): expected an NDArray, got str$",
        ),
        (lambda: (empty(4), 3), r"^addone: argument 'B' \(#1\): expected an NDArray, got int$"),
    ],
    ids=["shape", "dtype", "ndim", "count", "null", "string", "int"],
)
def test_kernel_errors(kernels, args, message):
    with pytest.raises(XTVMError, match=message):
        kernels["addone"](*args())
    # The process survives and the kernel still works afterwards.
    out = empty(4)
    kernels["addone"](array(f32([0, 0, 0, 0])), out)
    assert (out.numpy() == 1).all()


def test_kernel_assert_message(kernels):
    kernels["positive"](array(f32([1, 2, 3, 4])))
    with pytest.raises(XTVMError, match=r"^positive: assertion failed: A must be positive$"):
        kernels["positive"](array(f32([1, -2, 3, 4])))


def test_python_packed_func():
    f = PyFunc(lambda a, b: a + b, "plus")
    assert isinstance(f, PackedFunc) and f(2, 3) == 5 and f("a", "b") == "ab"
    make = PyFunc(lambda: lambda x: x * 2)
    inner = make()
    assert isinstance(inner, PackedFunc) and inner(4) == 8
    nd = PyFunc(lambda x: x)(array(f32([1])))
    assert nd.dtype == "float32"
    with pytest.raises(XTVMError, match=r"plus: argument #1: unsupported type object"):
        f(1, object())
    with pytest.raises(XTVMError, match=r"return value: unsupported type object"):
        PyFunc(lambda: object(), "bad")()
    assert PyFunc(lambda dev: str(dev))(cpu(0)) == "cpu(0)"


def test_registry():
    name = "test.runtime.plus"

    @register_func(name)
    def plus(a, b):
        return a + b

    try:
        assert plus(1, 2) == 3  # the decorator returns the function itself
        assert get_global_func(name)(1, 2) == 3
        assert name in list_global_func_names()
        with pytest.raises(XTVMError, match="already registered"):
            register_func(name, lambda: 0)
        register_func(name, lambda a, b: a * b, override=True)
        assert get_global_func(name)(3, 4) == 12
        with pytest.raises(
            XTVMError,
            match=r"no global function named 'test.runtime.plsu'; "
            r"did you mean test.runtime.plus",
        ):
            get_global_func("test.runtime.plsu")
    finally:
        remove_global_func(name)
    assert get_global_func(name, allow_missing=True) is None
    with pytest.raises(XTVMError, match="no global function"):
        remove_global_func(name)
