"""Converters for comparisons, logical and bitwise ops and ``Where``:
``Equal``, ``Less``, ``LessOrEqual``, ``Greater``, ``GreaterOrEqual``,
``And``, ``Or``, ``Xor``, ``Not``, ``BitwiseAnd``, ``BitwiseOr``,
``BitwiseXor``, ``BitwiseNot``, ``BitShift`` (→ ``relay.equal``, ...,
``relay.left_shift`` / ``relay.right_shift``) and ``Where`` (→
``relay.where``). All broadcast as NumPy (before opset 7, the comparisons
and logical ops broadcast only when asked, as ``Add`` did).
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    BitwiseAndOp,
    BitwiseNotOp,
    BitwiseOrOp,
    BitwiseXorOp,
    EqualOp,
    GreaterEqualOp,
    GreaterOp,
    LeftShiftOp,
    LessEqualOp,
    LessOp,
    LogicalAndOp,
    LogicalNotOp,
    LogicalOrOp,
    LogicalXorOp,
    RightShiftOp,
    WhereOp,
)
from xtvm.frontend.onnx import strings
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.tensor import BinaryConverter, UnaryConverter


class Equal(BinaryConverter):
    OP = EqualOp

    @classmethod
    def _impl_v19(cls, node: OnnxNode) -> SSAValue:
        # Opset 19 adds string inputs (byte tensors, see `strings`).
        if strings.is_string(node.input(0)):
            return strings.string_equal(node)
        return cls._impl_v7(node)


class Less(BinaryConverter):
    OP = LessOp


class LessOrEqual(BinaryConverter):
    OP = LessEqualOp


class Greater(BinaryConverter):
    OP = GreaterOp


class GreaterOrEqual(BinaryConverter):
    OP = GreaterEqualOp


class And(BinaryConverter):
    OP = LogicalAndOp


class Or(BinaryConverter):
    OP = LogicalOrOp


class Xor(BinaryConverter):
    OP = LogicalXorOp


class Not(UnaryConverter):
    OP = LogicalNotOp


class BitwiseAnd(BinaryConverter):
    OP = BitwiseAndOp


class BitwiseOr(BinaryConverter):
    OP = BitwiseOrOp


class BitwiseXor(BinaryConverter):
    OP = BitwiseXorOp


class BitwiseNot(UnaryConverter):
    OP = BitwiseNotOp


class BitShift(OnnxOpConverter):
    """``BitShift`` → ``relay.left_shift`` or ``relay.right_shift`` by
    ``direction``. A shift amount out of ``[0, bits)`` shifts every bit out
    (opset 28 defines it; earlier opsets left it to the backend)."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> SSAValue:
        direction = node.attrs["direction"]  # required: the checker ensures it
        if direction not in ("LEFT", "RIGHT"):
            raise node.unsupported_attr("direction", "it must be 'LEFT' or 'RIGHT'")
        op = LeftShiftOp if direction == "LEFT" else RightShiftOp
        return node.emit(op(node.input(0), node.input(1)))


class Where(OnnxOpConverter):
    """``Where(condition, X, Y)`` → ``relay.where`` (the three broadcast)."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        return node.emit(WhereOp(node.input(0), node.input(1), node.input(2)))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Equal": Equal,
    "Less": Less,
    "LessOrEqual": LessOrEqual,
    "Greater": Greater,
    "GreaterOrEqual": GreaterOrEqual,
    "And": And,
    "Or": Or,
    "Xor": Xor,
    "Not": Not,
    "BitwiseAnd": BitwiseAnd,
    "BitwiseOr": BitwiseOr,
    "BitwiseXor": BitwiseXor,
    "BitwiseNot": BitwiseNot,
    "BitShift": BitShift,
    "Where": Where,
}
