"""Converter for ``SwiGLU`` (opset 28): ``swish(A, alpha) * B`` with
``swish(a) = a * sigmoid(alpha * a)``, composed of relay ops in the input
type (as ONNX's reference computes it)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import MultiplyOp, SigmoidOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.tensor import element_dtype


class SwiGLU(OnnxOpConverter):
    """``SwiGLU(A, B)`` → ``A * sigmoid(alpha * A) * B``; ``A`` and ``B``
    have one shape (no broadcasting)."""

    @classmethod
    def _impl_v28(cls, node: OnnxNode) -> SSAValue:
        a, b = node.input(0), node.input(1)
        if node.input_shape(0) != node.input_shape(1):
            raise node.error(
                f"A and B must have one shape, got {list(node.input_shape(0))} "
                f"and {list(node.input_shape(1))}"
            )
        alpha = float(node.attr("alpha", 1.0))
        gate_in = a
        if alpha != 1.0:
            gate_in = node.emit(MultiplyOp(a, node.const(np.asarray(alpha, element_dtype(a)))))
        swish = node.emit(MultiplyOp(a, node.emit(SigmoidOp(gate_in))))
        return node.emit(MultiplyOp(swish, b))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"SwiGLU": SwiGLU}
