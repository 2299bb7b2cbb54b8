"""Converters for reductions: ``ReduceSum``, ``ReduceMean``, ``ReduceMax``,
``ReduceMin`` (→ ``relay.sum``, ``relay.mean``, ``relay.max``,
``relay.min``).

``keepdims`` (default 1) keeps reduced axes as size 1. The axes are the
attribute ``axes`` in early opsets and an optional constant input later
(``ReduceSum`` from opset 13, the others from 18), where
``noop_with_empty_axes`` = 1 makes absent or empty axes the identity instead
of a reduction over every axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.ir import SSAValue

from xtvm.dialects.relay import MaxOp, MeanOp, MinOp, ReduceOp, SumOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


class _Reduce(OnnxOpConverter):
    """The reductions; ``OP`` is the relay op they become."""

    OP: ClassVar[type[ReduceOp]]

    @classmethod
    def _reduce(cls, node: OnnxNode, axes: Sequence[int] | None, what: str) -> SSAValue:
        keepdims = node.attr("keepdims", 1)
        if keepdims not in (0, 1):
            raise node.unsupported_attr("keepdims", "expected 0 or 1")
        if not axes:
            axes = None  # every axis
        else:
            rank = len(node.input_shape(0))
            if any(not -rank <= a < rank for a in axes):
                raise node.error(f"{what} = {list(axes)} is out of range for rank {rank}")
            if len({a % rank for a in axes}) != len(axes):
                raise node.error(f"{what} = {list(axes)} repeats an axis")
        return node.emit(cls.OP(node.input(0), axis=axes, keepdims=bool(keepdims)))

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Axes as an attribute; absent (or empty) reduces every axis.
        return cls._reduce(node, node.attr("axes"), "attribute 'axes'")

    @classmethod
    def _reduce_from_input(cls, node: OnnxNode) -> SSAValue:
        # Axes as an optional constant input; `noop_with_empty_axes`.
        axes = node.constant_ints(1) if node.has_input(1) else []
        noop = node.attr("noop_with_empty_axes", 0)
        if noop not in (0, 1):
            raise node.unsupported_attr("noop_with_empty_axes", "expected 0 or 1")
        if not axes and noop:
            return node.input(0)
        return cls._reduce(node, axes, node.input_label(1))


class ReduceSum(_Reduce):
    OP = SumOp

    @classmethod
    def _impl_v13(cls, node: OnnxNode) -> SSAValue:
        return cls._reduce_from_input(node)


class ReduceMean(_Reduce):
    OP = MeanOp

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        return cls._reduce_from_input(node)


class ReduceMax(_Reduce):
    OP = MaxOp

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        return cls._reduce_from_input(node)


class ReduceMin(_Reduce):
    OP = MinOp

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        return cls._reduce_from_input(node)


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "ReduceSum": ReduceSum,
    "ReduceMean": ReduceMean,
    "ReduceMax": ReduceMax,
    "ReduceMin": ReduceMin,
}
