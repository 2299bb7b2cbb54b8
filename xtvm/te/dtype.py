"""Data types of tensor expressions: TVM's dtype strings and their xDSL types.

A dtype is a string, as in TVM: ``"float32"``, ``"int64"``, ``"uint8"``,
``"bool"``, and ``"index"``, the type of loop variables and buffer indices
(xDSL's ``index``; TVM uses ``int32`` there). An ``index`` expression used as
a tensor value is stored as ``int32``.

In the IR, signed integers are signless (``i32``), unsigned ones keep their
signedness (``ui8``) so that a buffer says what its elements are and the
packed calling convention checks callers' tensors against it (``uint8``, not
``int8``). ``arith`` accepts unsigned operands everywhere but in
``arith.constant``: the emitter writes an unsigned constant as a signless one
and an ``arith.bitcast`` (see :mod:`xtvm.te.emit`).
"""

from __future__ import annotations

import sys

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute

from xtvm.dtypes import REDUCED_FLOATS, dtype_name, element_type, float_semantics

FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64")
UINT_DTYPES = ("uint8", "uint16", "uint32", "uint64")
SUB_BYTE_INT_DTYPES = ("int4", "uint4", "int2", "uint2")
"""Integers narrower than a byte: packed in buffers (docs/sub-byte-types.md),
values in registers of their width; kernels compute on them in a wider type."""
REDUCED_FLOAT_DTYPES = tuple(REDUCED_FLOATS)
"""Storage-only floats (bfloat16, float8, float4): loaded, stored, selected
and converted (:mod:`xtvm.te.reduced_float`), never computed on; they are
not :func:`is_float`."""
DTYPES = (
    "bool",
    "index",
    *INT_DTYPES,
    *UINT_DTYPES,
    *FLOAT_DTYPES,
    *REDUCED_FLOAT_DTYPES,
    *SUB_BYTE_INT_DTYPES,
)

INDEX_BITS = 64
"""Width of ``index`` in generated code (x86-64)."""


def check_dtype(dtype: str) -> str:
    """``dtype`` itself, or a ``ValueError`` listing the known dtypes."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    return dtype


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_reduced_float(dtype: str) -> bool:
    return dtype in REDUCED_FLOAT_DTYPES


def is_uint(dtype: str) -> bool:
    return dtype in UINT_DTYPES or dtype in ("uint4", "uint2")


def is_int(dtype: str) -> bool:
    """True for signed, unsigned and ``index`` integers (not ``bool``)."""
    return (
        dtype == "index"
        or dtype in INT_DTYPES
        or dtype in UINT_DTYPES
        or dtype in SUB_BYTE_INT_DTYPES
    )


def bits(dtype: str) -> int:
    """Width in bits (``bool`` is 1, ``index`` is 64)."""
    if dtype == "bool":
        return 1
    if dtype == "index":
        return INDEX_BITS
    if is_reduced_float(dtype):
        return float_semantics(dtype).bitwidth
    check_dtype(dtype)
    return int(dtype[len(dtype.rstrip("0123456789")) :])


def max_value(dtype: str) -> int | float:
    """The largest finite value of ``dtype`` (TVM's ``max_value``)."""
    if dtype == "float16":
        return 65504.0
    if dtype == "float32":
        return 3.4028234663852886e38
    if dtype == "float64":
        return sys.float_info.max
    if dtype == "bool":
        return 1
    if is_uint(dtype):
        return (1 << bits(dtype)) - 1
    return (1 << (bits(dtype) - 1)) - 1


def min_value(dtype: str) -> int | float:
    """The smallest finite value of ``dtype`` (TVM's ``min_value``)."""
    if is_float(dtype):
        return -max_value(dtype)
    if dtype == "bool" or is_uint(dtype):
        return 0
    return -(1 << (bits(dtype) - 1))


def to_xdsl(dtype: str) -> Attribute:
    """The xDSL scalar type of ``dtype``: ``index``, or the element type
    :func:`xtvm.dtypes.element_type` gives (signless for signed integers and
    ``bool``, ``ui8``-style for unsigned ones)."""
    if dtype == "index":
        return IndexType()
    return element_type(check_dtype(dtype))


def from_xdsl(ty: Attribute) -> str:
    """The dtype of an xDSL element type (signless integers are signed)."""
    if isinstance(ty, IndexType):
        return "index"
    try:
        dtype = dtype_name(ty)
    except ValueError:
        dtype = None
    if dtype in DTYPES:
        return dtype
    raise ValueError(f"element type {ty} has no tensor-expression dtype")
