"""Converters for neural-network ops: ``Relu``, ``Softmax``, ``MatMul``,
``Gemm`` (→ ``relay.nn.*``)."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AddOp,
    DenseOp,
    MatmulOp,
    MultiplyOp,
    ReluOp,
    ReshapeOp,
    SoftmaxOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.passes.relay.constants import numpy_dtype


class Relu(OnnxOpConverter):
    """``Relu`` → ``relay.nn.relu`` (every version; v1's ``consumed_inputs``
    is a legacy memory hint without meaning)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return node.emit(ReluOp(node.input(0)))


class Softmax(OnnxOpConverter):
    """``Softmax`` → ``relay.nn.softmax``."""

    @classmethod
    def _axis(cls, node: OnnxNode, rank: int, default: int) -> int:
        axis = node.attr("axis", default)
        if not -rank <= axis < rank:
            raise node.error(f"attribute 'axis' = {axis} is out of range for rank {rank}")
        return axis % rank

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-12: the input is coerced to 2-d [prod(shape[:axis]),
        # prod(shape[axis:])], normalised along its last axis, and reshaped
        # back: one softmax over all of axes axis..rank-1 together.
        x = node.input(0)
        shape = static_shape(x)
        axis = cls._axis(node, len(shape), 1)
        if axis == len(shape) - 1:
            return node.emit(SoftmaxOp(x, axis=-1))
        flat = node.emit(ReshapeOp(x, [math.prod(shape[:axis]), math.prod(shape[axis:])]))
        return node.emit(ReshapeOp(node.emit(SoftmaxOp(flat, axis=-1)), shape))

    @classmethod
    def _impl_v13(cls, node: OnnxNode) -> SSAValue:
        # Opset 13+: softmax along the one axis `axis` (default -1).
        x = node.input(0)
        axis = cls._axis(node, len(static_shape(x)), -1)
        return node.emit(SoftmaxOp(x, axis=axis))


class MatMul(OnnxOpConverter):
    """``MatMul`` → ``relay.nn.matmul`` with NumPy semantics: a 1-d ``A`` is
    a row vector, a 1-d ``B`` a column vector, and the added axis is dropped
    from the result."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        a, b = node.input(0), node.input(1)
        sa, sb = static_shape(a), static_shape(b)
        if not sa or not sb:
            raise node.error(
                f"inputs must have rank >= 1, got {shape_str(sa)} and {shape_str(sb)}"
            )
        if len(sa) == 1:
            a = node.emit(ReshapeOp(a, [1, sa[0]]))
        if len(sb) == 1:
            b = node.emit(ReshapeOp(b, [sb[0], 1]))
        out = node.emit(MatmulOp(a, b))
        if len(sa) > 1 and len(sb) > 1:
            return out
        shape = list(static_shape(out))
        if len(sb) == 1:
            shape.pop(-1)
        if len(sa) == 1:
            shape.pop(-1 if len(sb) == 1 else -2)
        return node.emit(ReshapeOp(out, shape))


class Gemm(OnnxOpConverter):
    """``Gemm``: ``Y = alpha · A' · B' + beta · C`` with ``A' = transpose(A)``
    if ``transA`` (likewise B), ``A'`` [M, K], ``B'`` [K, N], and ``C``
    broadcast to [M, N].

    ``A · Bᵀ`` (``transB`` = 1, TVM's canonical form) becomes
    ``relay.nn.dense``; the other layouts ``relay.nn.matmul`` with transpose
    flags. ``alpha`` ≠ 1 and ``beta`` ≠ 1 become ``relay.multiply`` by a
    scalar constant, ``C`` a ``relay.add`` (skipped when ``beta`` = 0).
    """

    @classmethod
    def _gemm(cls, node: OnnxNode, broadcast_c: bool) -> SSAValue:
        a, b = node.input(0), node.input(1)
        for i, value in ((0, a), (1, b)):
            if len(static_shape(value)) != 2:
                raise node.error(
                    f"{node.input_label(i)} must be 2-d, got {shape_str(static_shape(value))}"
                )
        trans_a, trans_b = bool(node.attr("transA", 0)), bool(node.attr("transB", 0))
        if trans_b and not trans_a:
            out = node.emit(DenseOp(a, b))
        else:
            out = node.emit(MatmulOp(a, b, transpose_a=trans_a, transpose_b=trans_b))
        out = cls._scale(node, out, "alpha")
        if not node.has_input(2) or node.attr("beta", 1.0) == 0.0:
            return out
        c = node.input(2)
        mn, sc = static_shape(out), static_shape(c)
        if not (_broadcasts_to(sc, mn) if broadcast_c else sc == mn):
            rule = "broadcast to" if broadcast_c else "be"
            raise node.error(
                f"{node.input_label(2)} of shape {shape_str(sc)} must {rule} "
                f"the output shape {shape_str(mn)}"
            )
        return node.emit(AddOp(out, cls._scale(node, c, "beta")))

    @classmethod
    def _scale(cls, node: OnnxNode, value: SSAValue, attr: str) -> SSAValue:
        """``value`` times the scalar attribute ``attr`` (when it is not 1)."""
        factor = float(node.attr(attr, 1.0))
        if factor == 1.0:
            return value
        dtype = numpy_dtype(value.type.get_element_type())  # type: ignore[attr-defined]
        if np.issubdtype(dtype, np.integer) and not factor.is_integer():
            raise node.error(
                f"attribute '{attr}' = {factor} is not an integer, but the operands are {dtype}"
            )
        return node.emit(MultiplyOp(value, node.const(np.array(factor, dtype))))

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-6: C must be [M, N] unless attribute `broadcast` = 1.
        return cls._gemm(node, broadcast_c=bool(node.attr("broadcast", 0)))

    @classmethod
    def _impl_v7(cls, node: OnnxNode) -> SSAValue:
        # Opset 7+: C is always unidirectionally broadcast (optional from v11).
        return cls._gemm(node, broadcast_c=True)


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``target`` without changing it."""
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


CONVERTERS = {
    "Relu": Relu,
    "Softmax": Softmax,
    "MatMul": MatMul,
    "Gemm": Gemm,
}
