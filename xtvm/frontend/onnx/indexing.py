"""Converters for indexing: ``Gather`` (→ ``relay.take``), ``Slice`` (→
``relay.strided_slice``), ``GatherElements`` (→ ``relay.gather``),
``GatherND`` (→ ``relay.gather_nd``), ``ScatterElements`` and ``Scatter``
(→ ``relay.scatter_elements``), ``ScatterND`` (→ ``relay.scatter_nd``).

Indices of the gathers and scatters are run-time tensors: the relay ops
take negative ones from the end and wrap out-of-range ones, so no index
value makes a kernel access memory outside its tensors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    GatherNdOp,
    GatherOp,
    ScatterElementsOp,
    ScatterNdOp,
    StridedSliceOp,
    TakeOp,
    TransposeOp,
)
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


def _axis(node: OnnxNode, rank: int) -> int:
    axis = node.attr("axis", 0)
    if not -rank <= axis < rank:
        raise node.error(f"attribute 'axis' = {axis} is out of range for rank {rank}")
    return axis % rank


def _tuples_first(node: OnnxNode, i: int) -> SSAValue:
    """Input ``i``, ONNX indices with index tuples on the last axis, with
    that axis moved to the front (relay's ``gather_nd``/``scatter_nd``)."""
    rank = len(node.input_shape(i))
    if rank == 0:
        raise node.error(f"{node.input_label(i)} must have rank >= 1")
    indices = node.input(i)
    if rank == 1:
        return indices
    return node.emit(TransposeOp(indices, [rank - 1, *range(rank - 1)]))


class GatherElements(OnnxOpConverter):
    """``GatherElements`` → ``relay.gather`` along ``axis`` (default 0)."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        axis = _axis(node, len(node.input_shape(0)))
        return node.emit(GatherOp(node.input(0), node.input(1), axis))


class GatherND(OnnxOpConverter):
    """``GatherND`` → ``relay.gather_nd`` of the indices with their tuple
    axis moved first; ``batch_dims`` from opset 12."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        indices = _tuples_first(node, 1)
        return node.emit(GatherNdOp(node.input(0), indices, node.attr("batch_dims", 0)))


_REDUCTIONS = {"none": "update", "add": "add", "mul": "mul", "min": "min", "max": "max"}


def _reduction(node: OnnxNode, allowed: Sequence[str]) -> str:
    reduction = node.attr("reduction", "none")
    if reduction not in allowed:
        raise node.unsupported_attr(
            "reduction", f"opset {node.opset} allows {', '.join(allowed)}", "none"
        )
    return _REDUCTIONS[reduction]


class ScatterElements(OnnxOpConverter):
    """``ScatterElements`` → ``relay.scatter_elements`` along ``axis``
    (default 0); ``reduction`` ``add``/``mul`` from opset 16, ``min``/``max``
    from 18 (``none`` is relay's ``update``: the last update wins)."""

    @classmethod
    def _scatter(cls, node: OnnxNode, allowed: Sequence[str]) -> SSAValue:
        axis = _axis(node, len(node.input_shape(0)))
        op = ScatterElementsOp(
            node.input(0), node.input(1), node.input(2), axis, _reduction(node, allowed)
        )
        return node.emit(op)

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        return cls._scatter(node, ["none"])

    @classmethod
    def _impl_v16(cls, node: OnnxNode) -> SSAValue:
        return cls._scatter(node, ["none", "add", "mul"])

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        return cls._scatter(node, list(_REDUCTIONS))


class Scatter(OnnxOpConverter):
    """``Scatter`` (deprecated in opset 11 for ``ScatterElements``) →
    ``relay.scatter_elements``."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        return ScatterElements._scatter(node, ["none"])


class ScatterND(OnnxOpConverter):
    """``ScatterND`` → ``relay.scatter_nd`` of the indices with their tuple
    axis moved first; ``reduction`` as ``ScatterElements``."""

    @classmethod
    def _scatter(cls, node: OnnxNode, allowed: Sequence[str]) -> SSAValue:
        indices = _tuples_first(node, 1)
        op = ScatterNdOp(node.input(0), indices, node.input(2), _reduction(node, allowed))
        return node.emit(op)

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        return cls._scatter(node, ["none"])

    @classmethod
    def _impl_v16(cls, node: OnnxNode) -> SSAValue:
        return cls._scatter(node, ["none", "add", "mul"])

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        return cls._scatter(node, list(_REDUCTIONS))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Gather": Gather,
    "Slice": Slice,
    "GatherElements": GatherElements,
    "GatherND": GatherND,
    "ScatterElements": ScatterElements,
    "Scatter": Scatter,
    "ScatterND": ScatterND,
}
