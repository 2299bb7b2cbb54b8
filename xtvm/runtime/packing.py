"""Sub-byte element types in memory: packed as ONNX packs them.

``int4``, ``uint4`` and ``float4_e2m1fn`` take 4 bits an element, ``int2``
and ``uint2`` 2 bits: a buffer holds 8 // bits elements a byte, element
``k`` in bits ``(k % per_byte) * bits`` upwards of byte ``k // per_byte``
(low bits first), the last byte padded with zero bits. That is ONNX's
``raw_data`` layout (``onnx.numpy_helper._pack_4bitx2``), what generated
kernels read and write (``convert-tir-to-llvm`` loads a byte, shifts and
masks), and what an ``NDArray`` of these dtypes holds.

NumPy sees them as ``ml_dtypes`` arrays, one byte an element, whose byte
is the element's bit pattern (``int4`` -2 is ``0x0e``); :func:`pack` and
:func:`unpack` convert at that boundary::

    >>> import ml_dtypes, numpy as np
    >>> pack(np.array([1, -2, 7], ml_dtypes.int4)).tolist()
    [225, 7]
    >>> unpack(np.array([225, 7], np.uint8), (3,), "int4").tolist()
    [1, -2, 7]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ml_dtypes
import numpy as np

SUB_BYTE_BITS: dict[str, int] = {
    "int4": 4,
    "uint4": 4,
    "int2": 2,
    "uint2": 2,
    "float4_e2m1fn": 4,
}
"""The packed dtypes and their widths in bits (the runtime's copy of
:func:`xtvm.dtypes.storage_bits`, which the compiler uses; the runtime
imports nothing of the compiler)."""

_NUMPY: dict[str, np.dtype] = {name: np.dtype(getattr(ml_dtypes, name)) for name in SUB_BYTE_BITS}


def is_packed(dtype: str) -> bool:
    """Whether arrays of ``dtype`` (a dtype name) are stored packed."""
    return dtype in SUB_BYTE_BITS


def numpy_dtype(dtype: str) -> np.dtype:
    """The ``ml_dtypes`` NumPy dtype of a packed dtype name."""
    return _NUMPY[dtype]


def packed_nbytes(count: int, dtype: str) -> int:
    """Bytes that ``count`` elements of ``dtype`` take in memory (packed
    dtypes round up to whole bytes; others take their item size)."""
    if dtype in SUB_BYTE_BITS:
        return -(-count * SUB_BYTE_BITS[dtype] // 8)
    return count * np.dtype(dtype).itemsize


def nbytes(shape: Sequence[int], dtype: str) -> int:
    """Bytes of a compact tensor of ``shape`` and ``dtype`` (a dtype name)."""
    return packed_nbytes(math.prod(int(d) for d in shape), dtype)


def pack(values: np.ndarray) -> np.ndarray:
    """The packed bytes (a 1-d ``uint8`` array) of an ``ml_dtypes`` array
    of a packed dtype, in C order."""
    bits = SUB_BYTE_BITS[values.dtype.name]
    per_byte = 8 // bits
    codes = np.ascontiguousarray(values).reshape(-1).view(np.uint8) & np.uint8((1 << bits) - 1)
    padded = np.zeros(-(-codes.size // per_byte) * per_byte, np.uint8)
    padded[: codes.size] = codes
    lanes = padded.reshape(-1, per_byte)
    result = np.zeros(lanes.shape[0], np.uint8)
    for k in range(per_byte):
        result |= lanes[:, k] << np.uint8(k * bits)
    return result


def unpack(data: np.ndarray | bytes, shape: Sequence[int], dtype: str) -> np.ndarray:
    """The ``ml_dtypes`` array of ``shape`` held packed in ``data`` (bytes
    or a ``uint8`` array of at least :func:`nbytes` bytes); padding bits
    are ignored."""
    bits = SUB_BYTE_BITS[dtype]
    per_byte = 8 // bits
    count = math.prod(int(d) for d in shape)
    raw = np.frombuffer(data, np.uint8) if isinstance(data, bytes | bytearray) else data
    raw = raw.reshape(-1)[: packed_nbytes(count, dtype)]
    shifts = np.arange(per_byte, dtype=np.uint8) * np.uint8(bits)
    codes = (raw[:, None] >> shifts) & np.uint8((1 << bits) - 1)
    return codes.reshape(-1)[:count].copy().view(_NUMPY[dtype]).reshape(tuple(shape))
