"""The ``qnn`` dialect: TVM's Relay QNN ops on quantized tensors.

A quantized tensor holds integers ``q`` that stand for the reals ``(q -
zero_point) * scale``. Every op takes its scales (``f32``) and zero points
(integers) as tensor operands, TVM's convention, so they may be constants
(folded at compile time) or computed at run time (ONNX's
``DynamicQuantizeLinear``). A scale or zero point is per-tensor (a scalar
or a one-element tensor) or per-axis (a 1-d tensor as long as the quantized
tensor's ``axis``).

``qnn-canonicalize`` rewrites each op into integer relay ops;
``qnn-fake-quantization-to-integer`` makes them from float
``dequantize → op → quantize`` regions. The NumPy semantics are in
:mod:`xtvm.reference.qnn`.
"""

from xdsl.ir import Dialect

from xtvm.dialects.qnn.ops import (
    QNN_OPS,
    AddOp,
    AvgPool2dOp,
    ConcatenateOp,
    Conv2dOp,
    DenseOp,
    DequantizeOp,
    MatmulOp,
    MulOp,
    QuantizeOp,
    RequantizeOp,
)

QNN = Dialect("qnn", list(QNN_OPS), [])

__all__ = [
    "QNN",
    "QNN_OPS",
    "AddOp",
    "AvgPool2dOp",
    "ConcatenateOp",
    "Conv2dOp",
    "DenseOp",
    "DequantizeOp",
    "MatmulOp",
    "MulOp",
    "QuantizeOp",
    "RequantizeOp",
]
