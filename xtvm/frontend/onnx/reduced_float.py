"""Ops on bfloat16 and float8 tensors compute in float32, as ONNX specifies.

The storage-only floats (docs/element-types.md) have no arithmetic in xtvm:
a node whose inputs hold one is converted as if they were float32 — each
such input is ``relay.cast`` to float32 first (a constant is converted at
import) — and each output that ONNX types as that storage float (its type
inference, ``onnx.shape_inference.infer_node_outputs``) is cast back, rounding
to nearest even. Only :data:`NATIVE_OPS`, which take these types themselves
(``Cast``, ``QuantizeLinear``, ...), and ops with subgraphs are left alone.

The result is ONNX's computation rounded once, at the end of the node; a
reference that rounds to bfloat16 after every NumPy step (as ``ml_dtypes``
arrays do) can differ by an ulp of bfloat16.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.dialects.relay import CastOp
from xtvm.dtypes import dtype_name, is_reduced_float
from xtvm.frontend.onnx.converter import Converter, OnnxNode, Output, Outputs

NATIVE_OPS = frozenset(
    {
        "Cast",
        "CastLike",
        "QuantizeLinear",
        "DequantizeLinear",
        "Constant",
        "Identity",
        "If",
        "Loop",
        "Scan",
    }
)
"""Ops converted as they are: they take storage floats themselves (casts,
quantization, constants, identity) or hold subgraphs."""

_ONNX_BY_NAME: dict[str, int] = {
    "bfloat16": onnx.TensorProto.BFLOAT16,
    "float8_e4m3fn": onnx.TensorProto.FLOAT8E4M3FN,
    "float8_e4m3fnuz": onnx.TensorProto.FLOAT8E4M3FNUZ,
    "float8_e5m2": onnx.TensorProto.FLOAT8E5M2,
    "float8_e5m2fnuz": onnx.TensorProto.FLOAT8E5M2FNUZ,
    "float8_e8m0fnu": onnx.TensorProto.FLOAT8E8M0,
}
_NAME_BY_ONNX = {code: name for name, code in _ONNX_BY_NAME.items()}


def _input_dtype(node: OnnxNode, i: int) -> str | None:
    """The dtype name of input ``i`` (a constant is not materialized)."""
    if not node.has_input(i) or not node.scope.is_defined(node.proto.input[i]):
        return None
    try:
        return node.scope.dtype(node.proto.input[i])
    except ValueError:  # an element type with no NumPy dtype (a string tensor)
        return None


def _onnx_output_dtypes(node: OnnxNode, dtypes: list[str | None]) -> list[int | None]:
    """ONNX's inferred element type of each output (None where unknown)."""
    proto = node.proto
    try:
        schema = onnx.defs.get_schema(proto.op_type, node.opset, proto.domain)
        types = {
            name: helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), None)
            for name, dtype in zip(proto.input, dtypes)
            if name and dtype is not None
        }
        inferred = onnx.shape_inference.infer_node_outputs(schema, proto, types)
    except Exception:  # noqa: BLE001 (onnx raises several kinds; fall back below)
        return [None] * len(proto.output)
    return [
        inferred[name].tensor_type.elem_type if name in inferred else None
        for name in proto.output
    ]


def in_float32(convert: Converter) -> Converter:
    """``convert``, computing in float32 when an input is a storage float:
    it marks the node's inputs to read as float32 and the storage type of
    each output, which :meth:`OnnxNode.outputs` casts back to (so a fallback
    converter wrapped around this one, such as dynamic.py's, is covered)."""

    def converter(node: OnnxNode) -> Outputs:
        if node.proto.op_type in NATIVE_OPS:
            return convert(node)
        dtypes = [_input_dtype(node, i) for i in range(len(node.proto.input))]
        reduced = {d for d in dtypes if d is not None and is_reduced_float(d)}
        if not reduced:
            return convert(node)
        fallback = next(iter(reduced)) if len(reduced) == 1 else None
        node.float32_inputs = {i for i, d in enumerate(dtypes) if d in reduced}
        node.storage_outputs = [
            fallback if want is None else _NAME_BY_ONNX.get(want)
            for want in _onnx_output_dtypes(node, dtypes)
        ]
        return convert(node)

    return converter


def cast_outputs(node: OnnxNode, results: list[Output]) -> list[Output]:
    """``results`` with each float32 output that ONNX types as a storage
    float (:attr:`OnnxNode.storage_outputs`) cast back to it."""
    cast: list[Output] = []
    for k, r in enumerate(results):
        target = node.storage_outputs[k] if k < len(node.storage_outputs) else None
        if target is not None and isinstance(r, np.ndarray) and r.dtype == np.float32:
            r = r.astype(target)
        elif target is not None and isinstance(r, SSAValue) and isinstance(r.type, TensorType):
            if dtype_name(r.type.element_type) == "float32":
                r = node.emit(CastOp(r, target))
        cast.append(r)
    return cast
