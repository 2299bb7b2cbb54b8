"""Constants and elementwise maths: ``relay.const``, the broadcasting binary
ops and the unary elementwise ops.

A new binary op is a subclass of :class:`BinaryOp` with a name and a
docstring; a new unary op a subclass of :class:`UnaryOp`. The broadcasting
type rule, traits, pattern kind and assembly format come from the base.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    AnyAttr,
    DenseIntOrFPElementsAttr,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParamAttrConstraint,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import ConstantLike, Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    broadcast_shapes,
    tensor_type,
)


@irdl_op_definition
class ConstOp(RelayOp):
    """A constant tensor (a weight, or a folded value).

    ```mlir
    %w = relay.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    ```
    Large constants print as hex: ``dense<"0x...">``.
    """

    name = "relay.const"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    T: ClassVar = VarConstraint("T", base(TensorType))
    value = prop_def(ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr())))
    result = result_def(T)

    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        return [attrs["value"].type]


class BinaryOp(RelayOp):
    """Base of the broadcasting binary ops: NumPy broadcasting, equal dtypes.

    ```mlir
    %z = relay.add %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def()

    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        (result_type,) = self.infer([lhs.type, rhs.type], {})
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        lhs = tensor_type(cls, operand_types[0], "lhs")
        rhs = tensor_type(cls, operand_types[1], "rhs")
        if lhs.element_type != rhs.element_type:
            raise RelayTypeError(
                f"'{cls.name}' operands must have one element type, "
                f"got {lhs.element_type} and {rhs.element_type}"
            )
        shape = broadcast_shapes(cls.name, lhs.get_shape(), rhs.get_shape())
        return [TensorType(lhs.element_type, shape)]


@irdl_op_definition
class AddOp(BinaryOp):
    """Elementwise ``lhs + rhs`` with broadcasting."""

    name = "relay.add"


@irdl_op_definition
class SubtractOp(BinaryOp):
    """Elementwise ``lhs - rhs`` with broadcasting."""

    name = "relay.subtract"


@irdl_op_definition
class MultiplyOp(BinaryOp):
    """Elementwise ``lhs * rhs`` with broadcasting."""

    name = "relay.multiply"


@irdl_op_definition
class DivideOp(BinaryOp):
    """Elementwise ``lhs / rhs`` with broadcasting (true division for floats,
    truncating division for integers, as TVM)."""

    name = "relay.divide"


class UnaryOp(RelayOp):
    """Base of the elementwise unary ops: the result has the operand's type.

    ```mlir
    %y = relay.nn.relu %x : tensor<4x3xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        return [tensor_type(cls, operand_types[0], "its input")]


BINARY_OPS = [AddOp, SubtractOp, MultiplyOp, DivideOp]
