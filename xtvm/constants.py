"""``relay.const`` <-> NumPy: constants as arrays, arrays as constants (a shared
IR utility, next to :mod:`xtvm.dtypes`).

Used by ``relay-fold-constant``, the declarative rewrites' constant checks,
the ONNX frontend (initializers become constants) and the graph evaluator.
Data moves as raw bytes (``DenseIntOrFPElementsAttr(type, BytesAttr(...))``),
which is instant for millions of elements and prints as hex. Sub-byte
elements (``i4``, ``ui2``, ``f4E2M1FN``, ...) take a byte each in the
attribute, as in MLIR (signed ones sign-extended), and are ``ml_dtypes``
arrays in NumPy; they are packed only in buffers (docs/sub-byte-types.md).

```python
c = const_from_numpy(np.ones((2, 2), np.float32))
# relay.const dense<1.000000e+00> : tensor<2x2xf32>
numpy_from_const(c)   # array([[1., 1.], [1., 1.]], dtype=float32), read-only
```
A constant elided from the text it was parsed from
(``dense_resource<__elided__>``, :mod:`xtvm.ir.resources`) has no values:
reading it raises :class:`~xtvm.ir.resources.ElidedConstantError`.
"""

from __future__ import annotations

import ml_dtypes  # noqa: F401 (gives NumPy the sub-byte dtype names)
import ctypes

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    TensorType,
)
from xdsl.ir import Attribute

from xtvm import dtypes
from xtvm.dialects.relay import ConstOp
from xtvm.ir import describe_op
from xtvm.ir.resources import elided_error, is_elided


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """The NumPy dtype of a tensor element type (``i1`` is ``bool``; signless
    integers are signed)."""
    try:
        return np.dtype(dtypes.dtype_name(element_type))
    except (ValueError, TypeError):
        raise ValueError(f"no NumPy dtype for tensor element type {element_type}") from None


def element_type(dtype: np.dtype) -> Attribute:
    """The tensor element type of a NumPy dtype (``bool`` is ``i1``, ``uint8``
    is ``ui8``, ``int32`` is ``i32``)."""
    dtype = np.dtype(dtype)
    try:
        return dtypes.element_type(dtype.name)
    except ValueError:
        raise ValueError(f"relay.const does not support NumPy dtype {dtype}") from None


def dense_from_numpy(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """A dense elements attribute holding ``array``'s values (copied as bytes)."""
    array = np.asarray(array)
    attr_type = TensorType(element_type(array.dtype), array.shape)
    if array.dtype == np.bool_:
        # MLIR stores `true` as all-ones bytes; keep the parser's representation.
        array = -array.astype(np.int8)
    elif array.dtype.name in dtypes.SUB_BYTE_DTYPES and array.dtype.name.startswith("int"):
        array = array.astype(np.int8)  # sign-extended bytes, as xDSL's parser stores them
    data = _backing_bytes(array)
    if data is None:
        data = _bytes_of(array)
    return DenseIntOrFPElementsAttr(attr_type, BytesAttr(data))


_new_bytes = ctypes.pythonapi.PyBytes_FromStringAndSize
_new_bytes.restype = ctypes.py_object
_new_bytes.argtypes = (ctypes.c_char_p, ctypes.c_ssize_t)


def _bytes_of(array: np.ndarray) -> bytes:
    """``array``'s values as little-endian C-order ``bytes``, written in one
    pass into a new ``bytes`` object. ``tobytes()`` of a strided view (a
    weight ``relay.layout_transform`` packs: a transpose) would first make a
    contiguous copy and then copy that: twice the weight's size at once,
    hundreds of MB for VGG-19's first dense. The object comes from
    ``PyBytes_FromStringAndSize(NULL, n)``, which CPython documents for
    exactly this: uninitialised contents the caller fills before anyone
    else sees the object (its hash is not computed yet)."""
    dtype = array.dtype.newbyteorder("<")
    if array.size == 0:
        return b""
    data = _new_bytes(None, array.nbytes)
    address = np.frombuffer(data, np.uint8).ctypes.data
    target = np.ctypeslib.as_array((ctypes.c_uint8 * array.nbytes).from_address(address))
    np.copyto(target.view(dtype).reshape(array.shape), array, casting="equiv")
    return data


def _backing_bytes(array: np.ndarray) -> bytes | None:
    """The ``bytes`` object ``array`` views whole (as ``np.frombuffer`` of an
    ONNX initializer's raw data gives), if it holds exactly the constant's
    little-endian bytes: shared, not copied (a model's weights are hundreds
    of MB)."""
    if not array.flags.c_contiguous or array.dtype.byteorder == ">" or array.dtype == np.bool_:
        return None
    if array.dtype.byteorder == "=" and np.little_endian is False:
        return None
    base = array.base
    while isinstance(base, np.ndarray):
        base = base.base
    if not isinstance(base, bytes) or len(base) != array.nbytes or not array.nbytes:
        return None
    start = np.frombuffer(base, np.uint8).ctypes.data
    return base if array.ctypes.data == start else None


def numpy_from_dense(
    attr: DenseIntOrFPElementsAttr | DenseResourceAttr, what: str | None = None
) -> np.ndarray:
    """The values of a dense elements attribute as a read-only array of its shape
    (zero copy, except for ``i1``). ``what`` names the constant in errors."""
    if isinstance(attr, DenseResourceAttr):
        what = what or f"the constant {attr}"
        if is_elided(attr):
            raise elided_error(what)
        raise ValueError(
            f"{what} refers to a blob that was not loaded: parse the text with "
            "xtvm.ir.resources.parse_with_resources (the tools do)"
        )
    dtype = numpy_dtype(attr.get_element_type())
    shape = attr.get_shape()
    if dtype == np.bool_:
        return (np.frombuffer(attr.data.data, np.int8) != 0).reshape(shape)
    if dtype.name in dtypes.SUB_BYTE_DTYPES:  # one byte an element; keep the low bits
        bits = np.uint8((1 << dtypes.SUB_BYTE_DTYPES[dtype.name]) - 1)
        return (np.frombuffer(attr.data.data, np.uint8) & bits).view(dtype).reshape(shape)
    return np.frombuffer(attr.data.data, dtype).reshape(shape)


def const_from_numpy(array: np.ndarray) -> ConstOp:
    """A new (not inserted) ``relay.const`` holding ``array``."""
    return ConstOp(dense_from_numpy(array))


def numpy_from_const(op: ConstOp) -> np.ndarray:
    """The value of a ``relay.const`` as a read-only NumPy array."""
    if isinstance(op.value, DenseResourceAttr):  # no values: say which constant
        return numpy_from_dense(op.value, f"constant {describe_op(op)} : {op.result.type}")
    return numpy_from_dense(op.value)
