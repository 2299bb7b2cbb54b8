"""Converters for shape and layout ops: ``Reshape``, ``Flatten``,
``Transpose``, ``Identity``, ``Concat``, ``Split``, ``Squeeze``,
``Unsqueeze`` (→ ``relay.reshape``, ``relay.transpose``,
``relay.concatenate``, ``relay.split``, ``relay.squeeze``,
``relay.expand_dims``)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    ConcatenateOp,
    ExpandDimsOp,
    ReshapeOp,
    SplitOp,
    SqueezeOp,
    TransposeOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


class Reshape(OnnxOpConverter):
    """``Reshape`` → ``relay.reshape``. ONNX's ``0`` (copy the input's size
    at that position, or a zero-size axis with ``allowzero``) and ``-1``
    (inferred) mean the same in relay. The target shape must be known at
    compile time."""

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
        # v14: `allowzero` = 1 makes a 0 a zero-size dimension, not a copy.
        allowzero = bool(node.attr("allowzero", 0)) and 0 in shape
        return node.emit(ReshapeOp(node.input(0), [int(d) for d in shape], allowzero=allowzero))


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
        return reshape_2d(node, x, axis)


def reshape_2d(node: OnnxNode, x: SSAValue, axis: int) -> SSAValue:
    """``x`` coerced to 2-d ``[prod(shape[:axis]), prod(shape[axis:])]``
    (Flatten, Softmax before opset 13). With a ``?`` size, the side holding
    it becomes ``0`` when it is the single axis at its position, axis 1 (a
    copy: ``?x1000x1x1`` → ``[0, 1000]``), else ``-1``; only one side may
    hold a ``?``."""
    shape = static_shape(x)
    sides = [list(shape[:axis]), list(shape[axis:])]
    if DYNAMIC_INDEX not in shape:
        return node.emit(ReshapeOp.to_shape(x, [math.prod(side) for side in sides]))
    if all(DYNAMIC_INDEX in side for side in sides):
        raise node.error(
            f"cannot coerce {shape_str(shape)} to 2-d at axis {axis}: both sides have a '?' size"
        )
    newshape = [
        math.prod(side) if DYNAMIC_INDEX not in side else 0 if side == [DYNAMIC_INDEX] and axis == 1 else -1
        for side in sides
    ]
    return node.emit(ReshapeOp(x, newshape))


def reshape_back(node: OnnxNode, y: SSAValue, shape: Sequence[int]) -> SSAValue:
    """``y`` (a :func:`reshape_2d` result) reshaped back to ``shape``, its
    one ``?`` size inferred (``-1``)."""
    if DYNAMIC_INDEX not in shape:
        return node.emit(ReshapeOp.to_shape(y, shape))
    return node.emit(ReshapeOp(y, [-1 if d == DYNAMIC_INDEX else int(d) for d in shape]))


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


def normalize_axes(node: OnnxNode, axes: Sequence[int], rank: int, what: str) -> list[int]:
    """``axes`` made non-negative for a tensor of rank ``rank``; an error
    naming ``what`` (the attribute or input) when one is out of range or
    repeated."""
    result = []
    for axis in axes:
        if not -rank <= axis < rank:
            raise node.error(f"{what} = {list(axes)} has axis {axis} out of range for rank {rank}")
        result.append(int(axis) % rank)
    if len(set(result)) != len(result):
        raise node.error(f"{what} = {list(axes)} repeats an axis")
    return result


class Concat(OnnxOpConverter):
    """``Concat`` → ``relay.concatenate`` along ``axis`` (required from
    opset 4, 1 before; negative from opset 11, accepted earlier)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        rank = len(node.input_shape(0))  # the checker ensures at least one input
        (axis,) = normalize_axes(node, [node.attr("axis", 1)], rank, "attribute 'axis'")
        inputs = [node.input(i) for i in range(len(node.proto.input))]
        return node.emit(ConcatenateOp(inputs, axis=axis))


class Split(OnnxOpConverter):
    """``Split`` → ``relay.split`` along ``axis`` (default 0) into one piece
    per node output: of the sizes ``split`` lists, or of equal size.

    ``split`` is an attribute in opsets 2-12 (opset 1 also accepts it as a
    second input) and a constant input from opset 13. From opset 18, without
    ``split``, ``num_outputs`` (which must equal the number of outputs) gives
    pieces of ``ceil(size / num_outputs)``, the last one smaller.
    """

    @classmethod
    def _split(cls, node: OnnxNode, sizes: Sequence[int] | None) -> list[SSAValue]:
        shape = node.input_shape(0)
        (axis,) = normalize_axes(node, [node.attr("axis", 0)], len(shape), "attribute 'axis'")
        count = len(node.proto.output)
        size = shape[axis]
        if sizes is None:
            if size % count:
                raise node.error(
                    f"cannot split axis {axis} of size {size} into {count} equal outputs"
                )
            op = SplitOp(node.input(0), count, axis=axis)
        else:
            if len(sizes) != count or sum(sizes) != size or any(s < 0 for s in sizes):
                raise node.error(
                    f"split sizes {list(sizes)} must be {count} non-negative sizes (one per "
                    f"output) summing to {size}, the size of axis {axis}"
                )
            op = SplitOp(node.input(0), list(itertools.accumulate(sizes[:-1])), axis=axis)
        node.emit(op)
        return list(op.results)

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> list[SSAValue]:
        if node.has_input(1):
            return cls._split(node, node.constant_ints(1))
        return cls._impl_v2(node)

    @classmethod
    def _impl_v2(cls, node: OnnxNode) -> list[SSAValue]:
        split = node.attr("split")
        return cls._split(node, None if split is None else list(split))

    @classmethod
    def _impl_v13(cls, node: OnnxNode) -> list[SSAValue]:
        return cls._split(node, node.constant_ints(1) if node.has_input(1) else None)

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> list[SSAValue]:
        num_outputs = node.attr("num_outputs")
        if node.has_input(1):
            if num_outputs is not None:
                raise node.error("attribute 'num_outputs' and input 'split' exclude each other")
            return cls._split(node, node.constant_ints(1))
        if num_outputs is None:
            raise node.error("needs input 'split' or attribute 'num_outputs'")
        if num_outputs != len(node.proto.output):
            raise node.error(
                f"attribute 'num_outputs' = {num_outputs} differs from the node's "
                f"{len(node.proto.output)} outputs"
            )
        shape = node.input_shape(0)
        (axis,) = normalize_axes(node, [node.attr("axis", 0)], len(shape), "attribute 'axis'")
        chunk = -(-shape[axis] // num_outputs)
        sizes = [min(chunk, max(0, shape[axis] - k * chunk)) for k in range(num_outputs)]
        return cls._split(node, sizes)


class Squeeze(OnnxOpConverter):
    """``Squeeze`` → ``relay.squeeze`` of ``axes`` (attribute before opset
    13, optional constant input from 13), or of every size-1 axis."""

    @classmethod
    def _squeeze(cls, node: OnnxNode, axes: Sequence[int] | None, what: str) -> SSAValue:
        if axes is not None:
            axes = normalize_axes(node, axes, len(node.input_shape(0)), what)
        return node.emit(SqueezeOp(node.input(0), axes))

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return cls._squeeze(node, node.attr("axes"), "attribute 'axes'")

    @classmethod
    def _impl_v13(cls, node: OnnxNode) -> SSAValue:
        axes = node.constant_ints(1) if node.has_input(1) else None
        return cls._squeeze(node, axes, node.input_label(1))


class Unsqueeze(OnnxOpConverter):
    """``Unsqueeze``: inserts size-1 axes at ``axes``, positions in the
    output (attribute before opset 13, constant input from 13). Each run of
    consecutive new axes becomes one ``relay.expand_dims``, inserted in
    ascending order, so every position is already an output position."""

    @classmethod
    def _unsqueeze(cls, node: OnnxNode, axes: Sequence[int], what: str) -> SSAValue:
        rank = len(node.input_shape(0)) + len(axes)
        positions = sorted(normalize_axes(node, axes, rank, what))
        out = node.input(0)
        start = 0
        for k in range(1, len(positions) + 1):
            if k == len(positions) or positions[k] != positions[k - 1] + 1:
                out = node.emit(ExpandDimsOp(out, positions[start], num_newaxis=k - start))
                start = k
        return out

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return cls._unsqueeze(node, node.attrs["axes"], "attribute 'axes'")

    @classmethod
    def _impl_v13(cls, node: OnnxNode) -> SSAValue:
        if node.constant_input(1).ndim == 0:  # a scalar axis: onnxruntime accepts it
            return cls._unsqueeze(node, [int(node.constant_scalar(1))], node.input_label(1))
        return cls._unsqueeze(node, node.constant_ints(1), node.input_label(1))


CONVERTERS = {
    "Reshape": Reshape,
    "Flatten": Flatten,
    "Transpose": Transpose,
    "Identity": Identity,
    "Concat": Concat,
    "Split": Split,
    "Squeeze": Squeeze,
    "Unsqueeze": Unsqueeze,
}
