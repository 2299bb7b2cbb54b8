"""Converters for neural-network ops: ``Relu``, ``Softmax``,
``LogSoftmax``, ``Hardmax``, ``MatMul``, ``MatMulInteger`` (its table row is
in ``quantization``, which makes most of them qnn ops), ``Gemm``, ``LRN``,
``Dropout`` (→ ``relay.nn.*``). Convolution and pooling are in ``conv`` and ``pool``,
normalizations in ``normalization``."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AddOp,
    AxisNormOp,
    CastOp,
    DenseOp,
    DropoutOp,
    HardmaxOp,
    LogSoftmaxOp,
    LrnOp,
    MatmulOp,
    MultiplyOp,
    ReluOp,
    ReshapeOp,
    SoftmaxOp,
    SubtractOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx import sampling
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.frontend.onnx.transform import reshape_2d, reshape_back
from xtvm.constants import numpy_dtype


class Relu(OnnxOpConverter):
    """``Relu`` → ``relay.nn.relu`` (every version; v1's ``consumed_inputs``
    is a legacy memory hint without meaning)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return node.emit(ReluOp(node.input(0)))


class Softmax(OnnxOpConverter):
    """``Softmax`` → ``relay.nn.softmax``; ``LogSoftmax`` and ``Hardmax``
    (subclasses) differ only in ``OP``."""

    OP: ClassVar[type[AxisNormOp]] = SoftmaxOp

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
            return node.emit(cls.OP(x, axis=-1))
        return reshape_back(node, node.emit(cls.OP(reshape_2d(node, x, axis), axis=-1)), shape)

    @classmethod
    def _impl_v13(cls, node: OnnxNode) -> SSAValue:
        # Opset 13+: along the one axis `axis` (default -1).
        x = node.input(0)
        axis = cls._axis(node, len(static_shape(x)), -1)
        return node.emit(cls.OP(x, axis=axis))


class LogSoftmax(Softmax):
    """``LogSoftmax`` → ``relay.nn.log_softmax`` (same axis rules as ``Softmax``)."""

    OP = LogSoftmaxOp


class Hardmax(Softmax):
    """``Hardmax`` → ``relay.nn.hardmax`` (same axis rules as ``Softmax``)."""

    OP = HardmaxOp


def _matmul(node: OnnxNode, a: SSAValue, b: SSAValue) -> SSAValue:
    """``a · b`` with NumPy's rules for 1-d operands."""
    sa, sb = static_shape(a), static_shape(b)
    if not sa or not sb:
        raise node.error(f"inputs must have rank >= 1, got {shape_str(sa)} and {shape_str(sb)}")
    if len(sa) == 1:
        a = node.emit(ReshapeOp.to_shape(a, [1, sa[0]]))
    if len(sb) == 1:
        b = node.emit(ReshapeOp.to_shape(b, [sb[0], 1]))
    out = node.emit(MatmulOp(a, b))
    if len(sa) > 1 and len(sb) > 1:
        return out
    shape = list(static_shape(out))
    if len(sb) == 1:
        shape.pop(-1)
    if len(sa) == 1:
        shape.pop(-1 if len(sb) == 1 else -2)
    return node.emit(ReshapeOp.to_shape(out, shape))


class MatMul(OnnxOpConverter):
    """``MatMul`` → ``relay.nn.matmul`` with NumPy semantics: a 1-d ``A`` is
    a row vector, a 1-d ``B`` a column vector, and the added axis is dropped
    from the result."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return _matmul(node, node.input(0), node.input(1))


def widened(node: OnnxNode, i: int, zero_point: int, zero_shape: list[int] | None) -> SSAValue:
    """Integer input ``i`` as ``int32`` minus its zero point (input
    ``zero_point``, absent: 0), reshaped to ``zero_shape`` when given so that
    a per-row or per-channel zero point broadcasts."""
    value = node.emit(CastOp(node.input(i), "int32"))
    if not node.has_input(zero_point):
        return value
    zero = node.emit(CastOp(node.input(zero_point), "int32"))
    if zero_shape is not None and math.prod(node.input_shape(zero_point)) > 1:
        zero = node.emit(ReshapeOp(zero, zero_shape))
    return node.emit(SubtractOp(value, zero))


class MatMulInteger(OnnxOpConverter):
    """``MatMulInteger``: ``(A - a_zero_point) · (B - b_zero_point)`` in
    ``int32`` (``relay.cast``, ``relay.subtract``, then ``MatMul``'s rules).
    A 1-d ``a_zero_point`` holds one zero point per row of ``A``; a 1-d
    ``b_zero_point`` one per column of ``B``."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        a = widened(node, 0, 2, [-1, 1])
        b = widened(node, 1, 3, None)
        return _matmul(node, a, b)


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


class LRN(OnnxOpConverter):
    """``LRN`` → ``relay.nn.lrn`` across channels (axis 1), same formula:
    ``y = x / (bias + alpha / size * sum(x[j] ** 2)) ** beta``."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        op = LrnOp(
            node.input(0),
            size=node.attrs["size"],  # required: the checker ensures it
            axis=1,
            alpha=float(node.attr("alpha", 1e-4)),
            beta=float(node.attr("beta", 0.75)),
            bias=float(node.attr("bias", 1.0)),
        )
        return node.emit(op)


class Dropout(OnnxOpConverter):
    """``Dropout`` at inference → ``relay.nn.dropout`` (the identity; the
    ratio is kept for the record; the ``mask``, when used, is all true).
    Training mode is an error before opset 12; from 12 a true
    ``training_mode`` draws the mask (``sampling.dropout_training``), seeded
    by ``seed``."""

    @classmethod
    def _dropout(cls, node: OnnxNode, ratio: float) -> SSAValue | list[SSAValue]:
        output = node.emit(DropoutOp(node.input(0), rate=ratio))
        if not node.output_used(1):
            return output
        # Inference keeps every element: the mask is all true.
        return [output, node.const(np.ones(node.input_shape(0), bool))]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        # Opsets 1-6: `is_test` (default 0, training) selects the mode.
        if node.attr("is_test", 0) == 0:
            raise node.unsupported_attr(
                "is_test", "training mode is not supported; inference needs is_test = 1", 0
            )
        return cls._dropout(node, float(node.attr("ratio", 0.5)))

    @classmethod
    def _impl_v7(cls, node: OnnxNode) -> SSAValue:
        # Opsets 7-10: the runtime decides the mode; an inference compiler
        # copies the input.
        return cls._dropout(node, float(node.attr("ratio", 0.5)))

    @classmethod
    def _impl_v12(cls, node: OnnxNode) -> SSAValue | list[SSAValue]:
        # Opset 12+: `ratio` and `training_mode` are optional inputs; training
        # draws the mask from `sampling`'s generator.
        ratio = node.constant_scalar(1) if node.has_input(1) else 0.5
        if node.has_input(2) and node.constant_scalar(2):
            return sampling.dropout_training(node, float(ratio))
        return cls._dropout(node, float(ratio))


CONVERTERS = {
    "Relu": Relu,
    "Softmax": Softmax,
    "LogSoftmax": LogSoftmax,
    "Hardmax": Hardmax,
    "MatMul": MatMul,
    "Gemm": Gemm,
    "LRN": LRN,
    "Dropout": Dropout,
}
