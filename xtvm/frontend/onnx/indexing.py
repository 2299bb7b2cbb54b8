"""Converters for indexing: ``Gather`` (→ ``relay.take``) and ``Slice``
(→ ``relay.strided_slice``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import StridedSliceOp, TakeOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


class Gather(OnnxOpConverter):
    """``Gather`` → ``relay.take`` along ``axis`` (default 0): the result
    shape is ``data.shape[:axis] + indices.shape + data.shape[axis + 1:]``.

    Constant indices are checked against ``[-size, size - 1]`` at import
    time and made non-negative; computed indices use ``take``'s ``"wrap"``
    mode, so ``-1`` is the last entry (an out-of-range computed index wraps
    instead of failing).
    """

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        shape = node.input_shape(0)
        axis = node.attr("axis", 0)
        if not -len(shape) <= axis < len(shape):
            raise node.error(f"attribute 'axis' = {axis} is out of range for rank {len(shape)}")
        axis %= len(shape)
        data = node.input(0)
        if not node.is_constant(1):
            return node.emit(TakeOp(data, node.input(1), axis=axis, mode="wrap"))
        indices = node.constant_input(1)
        if not np.issubdtype(indices.dtype, np.integer):
            raise node.error(f"{node.input_label(1)} must be integers, got {indices.dtype}")
        size = shape[axis]
        if indices.size and (indices.min() < -size or indices.max() >= size):
            raise node.error(
                f"{node.input_label(1)} has an index out of range [{-size}, {size - 1}] "
                f"for axis {axis}: {indices.tolist()}"
            )
        indices = np.where(indices < 0, indices + size, indices)
        return node.emit(TakeOp(data, node.const(indices), axis=axis))


class Slice(OnnxOpConverter):
    """``Slice`` → ``relay.strided_slice``: ``starts[k]:ends[k]:steps[k]``
    along ``axes[k]`` (default: the leading axes; ``steps`` default 1), with
    ONNX's bounds (negative from the end, clamped), which
    ``relay.strided_slice`` shares."""

    @classmethod
    def _slice(
        cls,
        node: OnnxNode,
        starts: Sequence[int],
        ends: Sequence[int],
        axes: Sequence[int] | None,
        steps: Sequence[int] | None,
    ) -> SSAValue:
        rank = len(node.input_shape(0))
        if axes is not None:
            if any(not -rank <= a < rank for a in axes):
                raise node.error(f"axes {list(axes)} are out of range for rank {rank}")
            axes = [a % rank for a in axes]
        return node.emit(StridedSliceOp(node.input(0), starts, ends, steps, axes))

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-9: attributes `starts`, `ends` (required) and optional
        # `axes`; no steps.
        starts, ends = node.attrs["starts"], node.attrs["ends"]
        return cls._slice(node, starts, ends, node.attr("axes"), None)

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        # Opset 10+: constant inputs `starts`, `ends`, `axes`, `steps`.
        starts, ends = node.constant_ints(1), node.constant_ints(2)
        axes = node.constant_ints(3) if node.has_input(3) else None
        steps = node.constant_ints(4) if node.has_input(4) else None
        return cls._slice(node, starts, ends, axes, steps)


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Gather": Gather,
    "Slice": Slice,
}
