"""Converters for ops of the ``ai.onnx.ml`` domain on numeric tensors:
``Binarizer`` (→ ``relay.where`` of ``relay.greater``) and
``ArrayFeatureExtractor`` (→ ``relay.take`` along the last axis). String
tensors (``LabelEncoder``'s string keys) are not supported."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import GreaterOp, ReshapeOp, TakeOp, WhereOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def _dtype(value: SSAValue) -> np.dtype:
    ty = value.type
    assert isinstance(ty, TensorType)
    return numpy_dtype(ty.get_element_type())


class Binarizer(OnnxOpConverter):
    """``Binarizer``: 1 where the input exceeds ``threshold`` (default 0),
    else 0, in the input's type."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        dtype = _dtype(x)
        threshold = node.const(np.array(node.attr("threshold", 0.0), dtype))
        above = node.emit(GreaterOp(x, threshold))
        one, zero = (node.const(np.array(v, dtype)) for v in (1, 0))
        return node.emit(WhereOp(above, one, zero))


class ArrayFeatureExtractor(OnnxOpConverter):
    """``ArrayFeatureExtractor(X, Y)``: the elements of ``X`` at positions
    ``Y`` (int64, any shape, read flat) of its last axis, ``[..., len(Y)]``;
    a 1-d ``X`` gives ``[1, len(Y)]``, as onnxruntime. Out-of-range
    positions are clamped (onnxruntime rejects them)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x, indices = node.input(0), node.input(1)
        xshape, ishape = node.input_shape(0), node.input_shape(1)
        if not xshape:
            raise node.error("input X must have rank >= 1, got a scalar")
        count = int(np.prod(ishape))
        if len(ishape) != 1:
            indices = node.emit(ReshapeOp(indices, [count]))
        y = node.emit(TakeOp(x, indices, axis=len(xshape) - 1, mode="clip"))
        return node.emit(ReshapeOp(y, [1, count])) if len(xshape) == 1 else y


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Binarizer": Binarizer,
    "ArrayFeatureExtractor": ArrayFeatureExtractor,
}
