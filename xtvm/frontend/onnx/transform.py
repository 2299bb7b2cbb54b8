"""Converters for shape and layout ops: ``Reshape``, ``Flatten``,
``Transpose``, ``Identity`` (→ ``relay.reshape``, ``relay.transpose``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import ReshapeOp, TransposeOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


class Reshape(OnnxOpConverter):
    """``Reshape`` → ``relay.reshape``. ONNX's ``0`` (copy the input's size
    at that position) and ``-1`` (inferred) mean the same in relay. The
    target shape must be known at import time."""

    @classmethod
    def _reshape(cls, node: OnnxNode, newshape: Sequence[int]) -> SSAValue:
        return node.emit(ReshapeOp(node.input(0), [int(d) for d in newshape]))

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-4: the target shape is the attribute `shape`.
        if node.attr("shape") is None:
            raise node.error("attribute 'shape' is missing")
        return cls._reshape(node, node.attr("shape"))

    @classmethod
    def _impl_v5(cls, node: OnnxNode) -> SSAValue:
        # Opset 5+: the target shape is input 1, a constant 1-d int64 tensor.
        shape = node.constant_input(1)
        if shape.ndim != 1 or not np.issubdtype(shape.dtype, np.integer):
            raise node.error(
                f"{node.input_label(1)} must be a 1-d integer tensor, "
                f"got {shape.dtype} of shape {list(shape.shape)}"
            )
        # v14: `allowzero` = 1 makes a 0 a real zero-size dimension, which
        # relay's reshape (0 = copy) cannot express; without a 0 it is moot.
        if node.attr("allowzero", 0) and 0 in shape:
            raise node.error(
                f"attribute 'allowzero' = 1 with a 0 in shape {shape.tolist()} "
                "(a zero-size dimension) is not supported"
            )
        return cls._reshape(node, shape.tolist())


class Flatten(OnnxOpConverter):
    """``Flatten`` → ``relay.reshape`` to 2-d
    ``[prod(shape[:axis]), prod(shape[axis:])]``."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        shape = static_shape(x)
        axis = node.attr("axis", 1)
        # Negative axes are valid from opset 11; accepting them earlier is harmless.
        if not -len(shape) <= axis <= len(shape):
            raise node.error(f"attribute 'axis' = {axis} is out of range for rank {len(shape)}")
        if axis < 0:
            axis += len(shape)
        return node.emit(ReshapeOp(x, [math.prod(shape[:axis]), math.prod(shape[axis:])]))


class Transpose(OnnxOpConverter):
    """``Transpose`` → ``relay.transpose`` (``perm`` defaults to reversing the
    axes, as relay's ``axes``)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return node.emit(TransposeOp(node.input(0), node.attr("perm")))


class Identity(OnnxOpConverter):
    """``Identity``: its output is its input; no op is emitted."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return node.input(0)


CONVERTERS = {
    "Reshape": Reshape,
    "Flatten": Flatten,
    "Transpose": Transpose,
    "Identity": Identity,
}
