"""Converters for the ONNX ops whose output shape depends on input values
(``NonZero``, ``Compress``): each becomes a shape-function op and the op
itself (``xtvm/dialects/relay/dynamic.py``); the result has ``?`` sizes, so
the model runs on the VM, which allocates the result from the shape the
shape function computed (docs/data-dependent-ops.md)."""

from __future__ import annotations

from xdsl.ir import SSAValue

from xtvm.dialects.relay import CompressOp, CompressShapeOp, NonZeroOp, NonZeroShapeOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


class NonZero(OnnxOpConverter):
    """``NonZero`` → ``relay.nonzero_shape`` + ``relay.nonzero``: the
    ``rank x count`` int64 positions of the nonzero elements, row-major."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        if not node.input_shape(0):
            raise node.error("a scalar input is not supported (NumPy's nonzero refuses it)")
        shape = node.emit(NonZeroShapeOp(node.input(0)))
        return node.emit(NonZeroOp(node.input(0), shape))


class Compress(OnnxOpConverter):
    """``Compress`` → ``relay.compress_shape`` + ``relay.compress``: the
    slices along ``axis`` (elements of the flattened input without one)
    whose condition is true."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        axis = node.attr("axis", None)
        rank = len(node.input_shape(0))
        if axis is not None:
            if not -rank <= axis < rank:
                raise node.error(f"axis = {axis} is out of range for rank {rank}")
            axis %= rank
        shape = node.emit(CompressShapeOp(node.input(0), node.input(1), axis=axis))
        return node.emit(CompressOp(node.input(0), node.input(1), shape, axis=axis))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "NonZero": NonZero,
    "Compress": Compress,
}
