"""What the ONNX importer and its converters share: the import error and the
one table of the element types the frontend imports.

Element types are named three ways, all mapped here and nowhere else:

| ONNX ``TensorProto`` | NumPy / runtime | xDSL |
|---|---|---|
| ``FLOAT`` | ``float32`` | ``f32`` |
| ``DOUBLE`` | ``float64`` | ``f64`` |
| ``INT32`` | ``int32`` | ``i32`` |
| ``INT64`` | ``int64`` | ``i64`` |
"""

from __future__ import annotations

import re

import numpy as np
from onnx import TensorProto
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, f32, f64, i32, i64
from xdsl.ir import Attribute

from xtvm.passes.relay.constants import dense_from_numpy


class OnnxImportError(ValueError):
    """A model the ONNX frontend cannot import: invalid, unsupported, or
    ill-typed. The message names the node, input or attribute at fault."""


_DTYPES: list[tuple[int, str, Attribute]] = [
    (TensorProto.FLOAT, "float32", f32),
    (TensorProto.DOUBLE, "float64", f64),
    (TensorProto.INT32, "int32", i32),
    (TensorProto.INT64, "int64", i64),
]
_BY_ONNX = {onnx_type: xdsl_type for onnx_type, _, xdsl_type in _DTYPES}
_NAME_BY_ONNX = {onnx_type: name for onnx_type, name, _ in _DTYPES}
_BY_NUMPY = {np.dtype(name): xdsl_type for _, name, xdsl_type in _DTYPES}

SUPPORTED_DTYPES: tuple[str, ...] = tuple(name for _, name, _ in _DTYPES)
"""NumPy names of the element types the frontend imports."""


def _unsupported(what: str, dtype_name: str) -> OnnxImportError:
    return OnnxImportError(
        f"{what} has element type {dtype_name}, which is not supported "
        f"(supported: {', '.join(SUPPORTED_DTYPES)})"
    )


def element_type_from_onnx(elem_type: int, what: str) -> Attribute:
    """The xDSL element type of an ONNX ``TensorProto`` data type; ``what``
    names the value in the error when the type is unsupported."""
    if elem_type not in _BY_ONNX:
        raise _unsupported(what, TensorProto.DataType.Name(elem_type))
    return _BY_ONNX[elem_type]


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
