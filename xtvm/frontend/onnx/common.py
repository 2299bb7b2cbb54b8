"""What the ONNX importer and its converters share: the import errors and
the one table of the element types the frontend imports.

Element types are named three ways, all mapped here and nowhere else (the
NumPy ↔ xDSL half is :mod:`xtvm.dtypes`):

| ONNX ``TensorProto`` | NumPy / runtime | xDSL |
|---|---|---|
| ``FLOAT`` | ``float32`` | ``f32`` |
| ``DOUBLE`` | ``float64`` | ``f64`` |
| ``FLOAT16`` | ``float16`` | ``f16`` |
| ``INT8`` … ``INT64`` | ``int8`` … ``int64`` | ``i8`` … ``i64`` (signless) |
| ``UINT8`` … ``UINT64`` | ``uint8`` … ``uint64`` | ``ui8`` … ``ui64`` |
| ``BOOL`` | ``bool`` | ``i1`` |
| ``INT4``, ``UINT4``, ``INT2``, ``UINT2`` | ``int4`` … (``ml_dtypes``) | ``i4``, ``ui4``, ``i2``, ``ui2`` |
| ``FLOAT4E2M1`` | ``float4_e2m1fn`` (``ml_dtypes``) | ``f4E2M1FN`` |
| ``BFLOAT16`` | ``bfloat16`` (``ml_dtypes``) | ``bf16`` |
| ``FLOAT8E4M3FN``, ``FLOAT8E4M3FNUZ`` | ``float8_e4m3fn``, ``float8_e4m3fnuz`` | ``f8E4M3FN``, ``f8E4M3FNUZ`` |
| ``FLOAT8E5M2``, ``FLOAT8E5M2FNUZ`` | ``float8_e5m2``, ``float8_e5m2fnuz`` | ``f8E5M2``, ``f8E5M2FNUZ`` |
| ``FLOAT8E8M0`` | ``float8_e8m0fnu`` | ``f8E8M0FNU`` |

The sub-byte types are packed in buffers (docs/sub-byte-types.md).
bfloat16 and float8 are storage-only: ops compute on them in float32
(docs/element-types.md). Strings and complex numbers are not imported.
"""

from __future__ import annotations

import re
import weakref

import ml_dtypes  # noqa: F401 (gives NumPy the int4, int2, bfloat16 and float8 dtype names)
import numpy as np
from onnx import TensorProto
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, SSAValue

from xtvm import dtypes
from xtvm.constants import dense_from_numpy


class OnnxImportError(ValueError):
    """A model the ONNX frontend cannot import: invalid, unsupported, or
    ill-typed. The message names the node, input or attribute at fault."""


class OnnxStaticShapeRequired(OnnxImportError):
    """A graph input has a dimension of no static size and no shape was given
    for it. ``problem`` says which dimension; ``example`` is the input's
    shape with 1 for each unknown dimension, for a caller's hint (Python:
    ``shape={name: ...}``, ``xtvm-compile``: ``--shape name=1,784``)."""

    def __init__(self, problem: str, input_name: str, example: tuple[int, ...]) -> None:
        super().__init__(f"{problem}: pass its static shape, e.g. shape={{'{input_name}': (...)}}")
        self.problem = problem
        self.input_name = input_name
        self.example = example


class OnnxConstantInputRequired(OnnxImportError):
    """A converter needs the value of a node input at compile time (the
    ``shape`` of ``Reshape``, the ``pads`` of ``Pad``), but the input is
    computed at run time. ``value_name`` is the ONNX name of that input.

    :class:`xtvm.frontend.onnx.backend.XtvmBackend` catches this error when
    ``value_name`` is a graph input: it imports the model again with the
    input's run-time value (``from_onnx(..., input_values=...)``) and
    compiles a module specialized for it."""

    def __init__(self, message: str, value_name: str) -> None:
        super().__init__(message)
        self.value_name = value_name


EMPTY_OPTIONAL = np.array(None, dtype=object)
"""The value of an empty ONNX optional (known at compile time): an object
array, which no converter takes as a tensor (its element type is refused);
``Optional``, ``OptionalHasElement`` and ``OptionalGetElement`` test it
with :func:`is_empty_optional`."""


RUNTIME_OPTIONALS: weakref.WeakSet[SSAValue] = weakref.WeakSet()
"""Optionals whose emptiness is decided at run time (an ``If`` with an empty
branch): a relay tuple ``(present: tensor<i1>, *fields)`` — the tensor it
holds, or the elements of the sequence it holds — whose fields are zeros
when it is empty. A graph output of optional type returns it so; the
backend gives ``None`` for an empty one."""


RUNTIME_OPTIONAL_OUTPUTS = "onnx.runtime_optional_outputs"
"""On ``@main``: the indices of its results that are run-time optionals."""


def is_empty_optional(value: object) -> bool:
    """Whether ``value`` is :data:`EMPTY_OPTIONAL` (or a copy)."""
    return (
        isinstance(value, np.ndarray)
        and value.dtype == object
        and value.shape == ()
        and value[()] is None
    )


_ONNX_DTYPES: list[tuple[int, str]] = [
    (TensorProto.FLOAT, "float32"),
    (TensorProto.DOUBLE, "float64"),
    (TensorProto.FLOAT16, "float16"),
    (TensorProto.INT8, "int8"),
    (TensorProto.INT16, "int16"),
    (TensorProto.INT32, "int32"),
    (TensorProto.INT64, "int64"),
    (TensorProto.UINT8, "uint8"),
    (TensorProto.UINT16, "uint16"),
    (TensorProto.UINT32, "uint32"),
    (TensorProto.UINT64, "uint64"),
    (TensorProto.BOOL, "bool"),
    (TensorProto.INT4, "int4"),
    (TensorProto.UINT4, "uint4"),
    (TensorProto.INT2, "int2"),
    (TensorProto.UINT2, "uint2"),
    (TensorProto.FLOAT4E2M1, "float4_e2m1fn"),
    (TensorProto.BFLOAT16, "bfloat16"),
    (TensorProto.FLOAT8E4M3FN, "float8_e4m3fn"),
    (TensorProto.FLOAT8E4M3FNUZ, "float8_e4m3fnuz"),
    (TensorProto.FLOAT8E5M2, "float8_e5m2"),
    (TensorProto.FLOAT8E5M2FNUZ, "float8_e5m2fnuz"),
    (TensorProto.FLOAT8E8M0, "float8_e8m0fnu"),
]
_NAME_BY_ONNX = dict(_ONNX_DTYPES)
_BY_NUMPY = {np.dtype(name): dtypes.element_type(name) for _, name in _ONNX_DTYPES}

SUPPORTED_DTYPES: tuple[str, ...] = tuple(name for _, name in _ONNX_DTYPES)
"""NumPy names of the element types the frontend imports."""


def _unsupported(what: str, dtype_name: str) -> OnnxImportError:
    return OnnxImportError(
        f"{what} has element type {dtype_name}, which is not supported "
        f"(supported: {', '.join(SUPPORTED_DTYPES)})"
    )


def element_type_from_onnx(elem_type: int, what: str) -> Attribute:
    """The xDSL element type of an ONNX ``TensorProto`` data type; ``what``
    names the value in the error when the type is unsupported."""
    return dtypes.element_type(dtype_from_onnx(elem_type, what))


def dtype_from_onnx(elem_type: int, what: str) -> str:
    """The NumPy dtype name of an ONNX ``TensorProto`` data type (``FLOAT``
    → ``"float32"``); ``what`` names the value in the error when the type is
    unsupported."""
    if elem_type not in _NAME_BY_ONNX:
        known = elem_type in TensorProto.DataType.values()
        raise _unsupported(what, TensorProto.DataType.Name(elem_type) if known else str(elem_type))
    return _NAME_BY_ONNX[elem_type]


def element_type_from_numpy(dtype: np.dtype | str, what: str) -> Attribute:
    """The xDSL element type of a NumPy dtype (or dtype name)."""
    try:
        key = np.dtype(dtype)
    except TypeError:
        raise _unsupported(what, str(dtype)) from None
    if key not in _BY_NUMPY:
        raise _unsupported(what, str(key))
    return _BY_NUMPY[key]


def const_attr(array: np.ndarray, what: str) -> DenseIntOrFPElementsAttr:
    """The dense elements attribute of ``array`` (raw bytes: large weights
    convert instantly and print as hex), if its dtype is supported."""
    element_type_from_numpy(array.dtype, what)
    return dense_from_numpy(array)


_INVALID_NAME_CHARS = re.compile(r"[^\w$.-]")


def value_name(onnx_name: str) -> str:
    """An SSA name hint for an ONNX value name (``onnx::MatMul_7`` →
    ``onnx__MatMul_7``), so the IR reads like the model."""
    name = _INVALID_NAME_CHARS.sub("_", onnx_name)
    return name if name and not name[0].isdigit() else f"v{name}"
