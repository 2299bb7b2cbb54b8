"""Converters for reductions and index reductions.

``ReduceSum``, ``ReduceMean``, ``ReduceProd``, ``ReduceMax``, ``ReduceMin``
become ``relay.sum``, ``relay.mean``, ``relay.prod``, ``relay.max``,
``relay.min``; the others are composed from relay ops as TVM does:

| ONNX | relay |
|---|---|
| ``ReduceL1`` | ``sum(abs(x))`` |
| ``ReduceL2`` | ``sqrt(sum(x * x))`` |
| ``ReduceSumSquare`` | ``sum(x * x)`` |
| ``ReduceLogSum`` | ``log(sum(x))`` |
| ``ReduceLogSumExp`` | ``log(sum(exp(x - m))) + m`` with ``m = max(x)`` (no overflow) |

``keepdims`` (default 1) keeps reduced axes as size 1. The axes are the
attribute ``axes`` in early opsets and an optional input later
(``ReduceSum`` from opset 13, the others from 18), where
``noop_with_empty_axes`` = 1 makes absent or empty axes a reduction over no
axis instead of over every axis (as onnxruntime: the identity for the
plain reductions, ``|x|`` for ``ReduceL1``, ``x * x`` for
``ReduceSumSquare``, ...).

``ArgMax`` / ``ArgMin`` → ``relay.argmax`` / ``relay.argmin`` over the one
axis ``axis`` (default 0), ``keepdims`` (default 1) and
``select_last_index`` (v12, default 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AbsOp,
    AddOp,
    ArgMaxOp,
    ArgMinOp,
    ArgReduceOp,
    ExpOp,
    IsFiniteOp,
    LogOp,
    MaxOp,
    MeanOp,
    MinOp,
    MultiplyOp,
    ProdOp,
    ReduceOp,
    ReshapeOp,
    SqrtOp,
    SubtractOp,
    SumOp,
    WhereOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.frontend.onnx.tensor import element_dtype


def _flag(node: OnnxNode, name: str, default: int) -> bool:
    value = node.attr(name, default)
    if value not in (0, 1):
        raise node.unsupported_attr(name, "expected 0 or 1", default)
    return bool(value)


class _Reduce(OnnxOpConverter):
    """The reductions; ``OP`` is the relay op they become, or the one
    :meth:`compose` builds the result around."""

    OP: ClassVar[type[ReduceOp]]

    @classmethod
    def compose(
        cls, node: OnnxNode, x: SSAValue, axes: Sequence[int] | None, keepdims: bool
    ) -> SSAValue:
        """The reduction of ``x`` over ``axes`` (None: every axis; empty: none)."""
        if axes is not None and not axes:
            return x
        return node.emit(cls.OP(x, axis=axes, keepdims=keepdims))

    @classmethod
    def _reduce(cls, node: OnnxNode, axes: Sequence[int] | None, what: str) -> SSAValue:
        keepdims = _flag(node, "keepdims", 1)
        if not axes:
            axes = None  # every axis
        else:
            rank = len(node.input_shape(0))
            if any(not -rank <= a < rank for a in axes):
                raise node.error(f"{what} = {list(axes)} is out of range for rank {rank}")
            if len({a % rank for a in axes}) != len(axes):
                raise node.error(f"{what} = {list(axes)} repeats an axis")
        return cls.compose(node, node.input(0), axes, keepdims)

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Axes as an attribute; absent (or empty) reduces every axis.
        return cls._reduce(node, node.attr("axes"), "attribute 'axes'")

    @classmethod
    def _reduce_from_input(cls, node: OnnxNode) -> SSAValue:
        # Axes as an optional input, needed at compile time; `noop_with_empty_axes`.
        axes = node.constant_ints(1) if node.has_input(1) else []
        if not axes and _flag(node, "noop_with_empty_axes", 0):
            # A reduction over no axis: the identity for the plain
            # reductions, the elementwise part (|x|, x * x, ...) for the others.
            return cls.compose(node, node.input(0), [], keepdims=True)
        return cls._reduce(node, axes, node.input_label(1))


class _ReduceAxesInputV18(_Reduce):
    """A reduction whose axes became an input in opset 18."""

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        return cls._reduce_from_input(node)


class ReduceSum(_Reduce):
    OP = SumOp

    @classmethod
    def _impl_v13(cls, node: OnnxNode) -> SSAValue:
        return cls._reduce_from_input(node)


class ReduceMean(_ReduceAxesInputV18):
    OP = MeanOp


class ReduceProd(_ReduceAxesInputV18):
    OP = ProdOp


class ReduceMax(_ReduceAxesInputV18):
    OP = MaxOp


class ReduceMin(_ReduceAxesInputV18):
    OP = MinOp


class ReduceL1(_ReduceAxesInputV18):
    """``sum(abs(x))``."""

    OP = SumOp

    @classmethod
    def compose(
        cls, node: OnnxNode, x: SSAValue, axes: Sequence[int] | None, keepdims: bool
    ) -> SSAValue:
        return node.emit(SumOp(node.emit(AbsOp(x)), axis=axes, keepdims=keepdims))


class ReduceSumSquare(_ReduceAxesInputV18):
    """``sum(x * x)``."""

    OP = SumOp

    @classmethod
    def compose(
        cls, node: OnnxNode, x: SSAValue, axes: Sequence[int] | None, keepdims: bool
    ) -> SSAValue:
        return node.emit(SumOp(node.emit(MultiplyOp(x, x)), axis=axes, keepdims=keepdims))


class ReduceL2(_ReduceAxesInputV18):
    """``sqrt(sum(x * x))``."""

    OP = SumOp

    @classmethod
    def compose(
        cls, node: OnnxNode, x: SSAValue, axes: Sequence[int] | None, keepdims: bool
    ) -> SSAValue:
        return node.emit(SqrtOp(ReduceSumSquare.compose(node, x, axes, keepdims)))


class ReduceLogSum(_ReduceAxesInputV18):
    """``log(sum(x))``."""

    OP = SumOp

    @classmethod
    def compose(
        cls, node: OnnxNode, x: SSAValue, axes: Sequence[int] | None, keepdims: bool
    ) -> SSAValue:
        return node.emit(LogOp(node.emit(SumOp(x, axis=axes, keepdims=keepdims))))


class ReduceLogSumExp(_ReduceAxesInputV18):
    """``log(sum(exp(x - m))) + m`` with ``m = max(x)`` over the axes
    (keeping them), so that ``exp`` never overflows; ``m`` is 0 where the
    max is not finite, so a row holding ``+inf`` gives ``inf`` and a row of
    ``-inf`` gives ``-inf`` (ONNX's ``log(sum(exp(x)))``) rather than the
    NaN of ``inf - inf`` (docs/reliability.md)."""

    OP = SumOp

    @classmethod
    def compose(
        cls, node: OnnxNode, x: SSAValue, axes: Sequence[int] | None, keepdims: bool
    ) -> SSAValue:
        m = node.emit(MaxOp(x, axis=axes, keepdims=True))
        if np.issubdtype(element_dtype(x), np.floating):
            zero = node.const(np.array(0, element_dtype(x)))
            m = node.emit(WhereOp(node.emit(IsFiniteOp(m)), m, zero))
        shifted = node.emit(ExpOp(node.emit(SubtractOp(x, m))))
        total = node.emit(SumOp(shifted, axis=axes, keepdims=True))
        out = node.emit(AddOp(node.emit(LogOp(total)), m))
        if keepdims:
            return out
        shape = MaxOp.reduced_shape(static_shape(x), MaxOp.with_defaults({"axis": axes}))
        return node.emit(ReshapeOp.to_shape(out, shape))


class _ArgReduce(OnnxOpConverter):
    """``ArgMax`` / ``ArgMin``: one axis, ``keepdims``, ``select_last_index``.
    Every version: v11 allowed negative axes, v12 added
    ``select_last_index`` (absent is 0, the earlier behaviour)."""

    OP: ClassVar[type[ArgReduceOp]]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        rank = len(node.input_shape(0))
        axis = node.attr("axis", 0)
        if not -rank <= axis < max(rank, 1):
            raise node.error(f"attribute 'axis' = {axis} is out of range for rank {rank}")
        op = cls.OP(
            node.input(0),
            axis=[axis] if rank else None,
            keepdims=_flag(node, "keepdims", 1),
            select_last_index=_flag(node, "select_last_index", 0),
        )
        return node.emit(op)


class ArgMax(_ArgReduce):
    OP = ArgMaxOp


class ArgMin(_ArgReduce):
    OP = ArgMinOp


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "ReduceSum": ReduceSum,
    "ReduceMean": ReduceMean,
    "ReduceProd": ReduceProd,
    "ReduceMax": ReduceMax,
    "ReduceMin": ReduceMin,
    "ReduceL1": ReduceL1,
    "ReduceL2": ReduceL2,
    "ReduceSumSquare": ReduceSumSquare,
    "ReduceLogSum": ReduceLogSum,
    "ReduceLogSumExp": ReduceLogSumExp,
    "ArgMax": ArgMax,
    "ArgMin": ArgMin,
}
