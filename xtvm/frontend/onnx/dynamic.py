"""Converters for the ONNX ops whose output shape depends on input values
(``NonZero``, ``Compress``, ``Unique``,
``NonMaxSuppression``): each becomes a shape-function op and the op
itself (``xtvm/dialects/relay/dynamic.py``); the result has ``?`` sizes, so
the model runs on the VM, which allocates the result from the shape the
shape function computed (docs/data-dependent-ops.md)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    CompressOp,
    CompressShapeOp,
    NonMaxSuppressionOp,
    NonMaxSuppressionShapeOp,
    NonZeroOp,
    NonZeroShapeOp,
    UniqueOp,
    UniqueShapeOp,
)
from xtvm.constants import numpy_dtype
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


class Unique(OnnxOpConverter):
    """``Unique`` → ``relay.unique_shape`` + ``relay.unique``: the distinct
    slices along ``axis`` (elements without one), sorted (``sorted`` = 1,
    the default) or in order of first occurrence, with their first
    positions, the inverse indices and the counts."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> list[SSAValue]:
        axis = node.attr("axis", None)
        rank = len(node.input_shape(0))
        if axis is not None:
            if not -rank <= axis < rank:
                raise node.error(f"axis = {axis} is out of range for rank {rank}")
            axis %= rank
        is_sorted = node.attr("sorted", 1)
        if is_sorted not in (0, 1):
            raise node.unsupported_attr("sorted", "expected 0 or 1", 1)
        shapes = UniqueShapeOp(node.input(0), axis=axis, is_sorted=bool(is_sorted))
        node.emit(shapes)
        op = UniqueOp(node.input(0), list(shapes.results), axis=axis, is_sorted=bool(is_sorted))
        node.emit(op)
        return list(op.results)


class NonMaxSuppression(OnnxOpConverter):
    """``NonMaxSuppression`` → ``relay.non_max_suppression_shape`` +
    ``relay.non_max_suppression``: every input is read at run time;
    a missing ``max_output_boxes_per_class`` is 0 (nothing selected), a
    missing ``iou_threshold`` 0, a missing ``score_threshold`` no threshold."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        dtype = numpy_dtype(node.input(1).type.element_type)
        present = [node.has_input(i) for i in range(5)]
        defaults = {2: np.zeros(1, np.int64), 3: np.zeros(1, dtype), 4: np.zeros(1, dtype)}
        inputs = [node.input(i) if present[i] else node.const(defaults[i]) for i in range(5)]
        center = node.attr("center_point_box", 0)
        if center not in (0, 1):
            raise node.unsupported_attr("center_point_box", "expected 0 or 1", 0)
        attrs = {"center_point_box": bool(center), "has_score_threshold": present[4]}
        shape = node.emit(NonMaxSuppressionShapeOp(inputs, **attrs))
        return node.emit(NonMaxSuppressionOp(inputs, shape, **attrs))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "NonZero": NonZero,
    "Compress": Compress,
    "Unique": Unique,
    "NonMaxSuppression": NonMaxSuppression,
}
