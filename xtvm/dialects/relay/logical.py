"""Comparisons, logical and bitwise ops, and ``relay.where`` (TVM's names).

* comparisons (``relay.equal``, ``relay.not_equal``, ``relay.less``,
  ``relay.less_equal``, ``relay.greater``, ``relay.greater_equal``): two
  tensors of one element type (bool included), broadcast; a ``bool`` (``i1``)
  result. Float comparisons with NaN are false, except ``not_equal``.
* logical ops (``relay.logical_and``, ``relay.logical_or``,
  ``relay.logical_xor``, ``relay.logical_not``) on ``bool`` tensors;
* bitwise ops (``relay.bitwise_and``, ``relay.bitwise_or``,
  ``relay.bitwise_xor``, ``relay.bitwise_not``) and shifts
  (``relay.left_shift``, ``relay.right_shift``) on integer tensors;
* ``relay.where``: elements of ``x`` where ``condition`` holds, of ``y``
  elsewhere, the three broadcast together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    broadcast_shapes,
    check_elements,
    functional_format,
    same_element_type,
    tensor_type,
)
from xtvm.dialects.relay.tensor import BinaryOp, UnaryOp


class CompareOp(BinaryOp):
    """Base of the comparisons: operands of one element type (any, ``bool``
    included), broadcast; a ``bool`` result.

    ```mlir
    %m = relay.less %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
    ```
    """

    ELEMENTS: ClassVar[str] = "any"

    @classmethod
    def result_element_type(cls, operand: Attribute) -> Attribute:
        return i1


@irdl_op_definition
class EqualOp(CompareOp):
    """Elementwise ``lhs == rhs``."""

    name = "relay.equal"


@irdl_op_definition
class NotEqualOp(CompareOp):
    """Elementwise ``lhs != rhs`` (true where either float operand is NaN)."""

    name = "relay.not_equal"


@irdl_op_definition
class LessOp(CompareOp):
    """Elementwise ``lhs < rhs``."""

    name = "relay.less"


@irdl_op_definition
class LessEqualOp(CompareOp):
    """Elementwise ``lhs <= rhs``."""

    name = "relay.less_equal"


@irdl_op_definition
class GreaterOp(CompareOp):
    """Elementwise ``lhs > rhs``."""

    name = "relay.greater"


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    """Elementwise ``lhs >= rhs``."""

    name = "relay.greater_equal"


class LogicalBinaryOp(BinaryOp):
    """Base of the binary logical ops, on ``bool`` tensors.

    ```mlir
    %z = relay.logical_and %a, %b : (tensor<3x4xi1>, tensor<4xi1>) -> tensor<3x4xi1>
    ```
    """

    ELEMENTS: ClassVar[str] = "bool"


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    """Elementwise ``lhs and rhs``."""

    name = "relay.logical_and"


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    """Elementwise ``lhs or rhs``."""

    name = "relay.logical_or"


@irdl_op_definition
class LogicalXorOp(LogicalBinaryOp):
    """Elementwise ``lhs != rhs`` of two ``bool`` tensors."""

    name = "relay.logical_xor"


@irdl_op_definition
class LogicalNotOp(UnaryOp):
    """Elementwise ``not x`` of a ``bool`` tensor.

    ```mlir
    %y = relay.logical_not %x : tensor<3xi1>
    ```
    """

    name = "relay.logical_not"
    ELEMENTS: ClassVar[str] = "bool"


class BitwiseBinaryOp(BinaryOp):
    """Base of the bitwise binary ops and shifts, on integer tensors (signed
    or unsigned).

    ```mlir
    %z = relay.bitwise_and %a, %b : (tensor<3x4xui8>, tensor<4xui8>) -> tensor<3x4xui8>
    ```
    """

    ELEMENTS: ClassVar[str] = "integer"


@irdl_op_definition
class BitwiseAndOp(BitwiseBinaryOp):
    """Elementwise ``lhs & rhs``."""

    name = "relay.bitwise_and"


@irdl_op_definition
class BitwiseOrOp(BitwiseBinaryOp):
    """Elementwise ``lhs | rhs``."""

    name = "relay.bitwise_or"


@irdl_op_definition
class BitwiseXorOp(BitwiseBinaryOp):
    """Elementwise ``lhs ^ rhs``."""

    name = "relay.bitwise_xor"


@irdl_op_definition
class LeftShiftOp(BitwiseBinaryOp):
    """Elementwise ``lhs << rhs``; bits shifted out are lost, and a shift by a
    negative amount or by the bit width or more gives 0 (NumPy, ONNX)."""

    name = "relay.left_shift"


@irdl_op_definition
class RightShiftOp(BitwiseBinaryOp):
    """Elementwise ``lhs >> rhs``: arithmetic (sign-filling) for signed
    integers, logical for unsigned ones. A shift by a negative amount or by
    the bit width or more fills the result with the sign bit (0 or -1)."""

    name = "relay.right_shift"


@irdl_op_definition
class BitwiseNotOp(UnaryOp):
    """Elementwise ``~x`` of an integer tensor.

    ```mlir
    %y = relay.bitwise_not %x : tensor<3x4xi32>
    ```
    """

    name = "relay.bitwise_not"
    ELEMENTS: ClassVar[str] = "integer"


@irdl_op_definition
class WhereOp(RelayOp):
    """``x`` where ``condition`` holds, else ``y``, elementwise; the three
    operands broadcast together, ``x`` and ``y`` share an element type.

    ```mlir
    %z = relay.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
    """

    name = "relay.where"
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    condition = operand_def(TensorType)
    x = operand_def(TensorType)
    y = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = functional_format("condition", "x", "y")

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        cond = tensor_type(cls, operand_types[0], "its condition")
        x = tensor_type(cls, operand_types[1], "x")
        y = tensor_type(cls, operand_types[2], "y")
        check_elements(cls.name, cond, "bool")
        same_element_type(cls.name, x, y, what="x and y")
        shape = broadcast_shapes(cls.name, cond.get_shape(), x.get_shape())
        shape = broadcast_shapes(cls.name, shape, y.get_shape())
        return [TensorType(x.element_type, shape)]


LOGICAL_OPS: list[type[RelayOp]] = [
    EqualOp,
    NotEqualOp,
    LessOp,
    LessEqualOp,
    GreaterOp,
    GreaterEqualOp,
    LogicalAndOp,
    LogicalOrOp,
    LogicalXorOp,
    LogicalNotOp,
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    BitwiseNotOp,
    LeftShiftOp,
    RightShiftOp,
    WhereOp,
]
"""The ops of this module, for ``RELAY_OPS``."""
