"""Converters for shape computations: ``Shape``, ``Size`` and ``ConstantOfShape``.

The frontend imports static shapes only, so ``Shape`` and ``Size`` are
constants at import time: ``Shape`` never becomes ``relay.shape_of``, and
the nodes that compute with its result fold too (see ``converter``), so a
``Reshape(x, Concat(Shape(x)[0:1], [-1]))`` imports as a static reshape.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue

from xtvm.dialects.relay import FullOp
from xtvm.frontend.onnx.common import OnnxImportError, element_type_from_numpy
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def _static_sizes(node: OnnxNode, sizes: tuple[int, ...], what: str) -> tuple[int, ...]:
    """``sizes`` when none is ``?``; else a located error (a ``?`` size is
    known only at run time, and no run-time ``Shape`` exists yet)."""
    if DYNAMIC_INDEX in sizes:
        shown = "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in node.input_shape(0))
        raise node.error(
            f"{what} of input 0 ({shown}) includes a '?' size, known only at run time: "
            "not supported (a Reshape with 0 copies or -1 keeps a '?' size)"
        )
    return sizes


class Shape(OnnxOpConverter):
    """``Shape``: the input's static shape as a 1-d ``int64`` constant (a
    ``?`` size among the dimensions asked for is an error)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> np.ndarray:
        return np.array(_static_sizes(node, node.input_shape(0), "the shape"), np.int64)

    @classmethod
    def _impl_v15(cls, node: OnnxNode) -> np.ndarray:
        # Opset 15+: dimensions `start` (default 0) to `end` (default: all),
        # negative counting from the end, clamped to [0, rank] (= Python's
        # slice rules).
        shape = node.input_shape(0)
        start, end = node.attr("start", 0), node.attr("end", len(shape))
        return np.array(_static_sizes(node, shape[start:end], "the shape"), np.int64)


class Size(OnnxOpConverter):
    """``Size``: the input's static element count as a 0-d ``int64`` constant."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> np.ndarray:
        return np.array(math.prod(_static_sizes(node, node.input_shape(0), "the size")), np.int64)


class ConstantOfShape(OnnxOpConverter):
    """``ConstantOfShape``: a tensor of the shape in input 0 (known at
    compile time), filled with the one element of attribute ``value``
    (default ``0.0``, ``float32``). A constant shape gives a constant; a
    shape the import is specialized for (a graph input) gives
    ``relay.full``, so that the tensor is computed by compiled code."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> np.ndarray | SSAValue:
        shape = node.constant_input(0)
        if shape.ndim != 1 or not np.issubdtype(shape.dtype, np.integer):
            raise node.error(
                f"{node.input_label(0)} must be a 1-d integer tensor, "
                f"got {shape.dtype} of shape {list(shape.shape)}"
            )
        if (shape < 0).any():
            raise node.error(f"{node.input_label(0)} = {shape.tolist()} has a negative size")
        value = node.attr("value")
        if value is None:
            value = np.zeros(1, np.float32)
        if value.size != 1:
            raise node.error(
                f"attribute 'value' must hold one element, got shape {list(value.shape)}"
            )
        try:
            element_type_from_numpy(value.dtype, "attribute 'value'")
        except OnnxImportError as e:
            raise node.error(str(e)) from None
        if not node.folding:
            return node.emit(FullOp(node.const(value.reshape(())), shape.tolist()))
        # A read-only broadcast view: a weight of millions of equal elements
        # (the light models' weights) costs memory only once it is an IR constant.
        return np.broadcast_to(value.reshape(()), shape.tolist())


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Shape": Shape,
    "Size": Size,
    "ConstantOfShape": ConstantOfShape,
}
