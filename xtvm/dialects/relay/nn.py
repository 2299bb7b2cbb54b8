"""Neural-network ops: ``relay.nn.*`` (TVM's ``relay.nn`` namespace)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    broadcast_shapes,
    normalize_axis,
    shape_str,
    tensor_type,
)
from xtvm.dialects.relay.tensor import UnaryOp

_FUNCTIONAL = "attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class ReluOp(UnaryOp):
    """``max(x, 0)`` elementwise.

    ```mlir
    %y = relay.nn.relu %x : tensor<1x128xf32>
    ```
    """

    name = "relay.nn.relu"


def _same_dtype(op: str, a: TensorType, b: TensorType) -> None:
    if a.element_type != b.element_type:
        raise RelayTypeError(
            f"'{op}' operands must have one element type, "
            f"got {a.element_type} and {b.element_type}"
        )


@irdl_op_definition
class DenseOp(RelayOp):
    """``data · weightᵀ``: data ``[..., K]``, weight ``[N, K]`` → ``[..., N]``.

    ```mlir
    %y = relay.nn.dense %x, %w : (tensor<1x784xf32>, tensor<128x784xf32>) -> tensor<1x128xf32>
    ```
    """

    name = "relay.nn.dense"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$data `,` $weight " + _FUNCTIONAL

    def __init__(self, data: SSAValue, weight: SSAValue):
        (ty,) = self.infer([data.type, weight.type], {})
        super().__init__(operands=[data, weight], result_types=[ty])

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        _same_dtype(cls.name, data, weight)
        d, w = data.get_shape(), weight.get_shape()
        if len(d) < 1 or len(w) != 2:
            raise RelayTypeError(
                f"'{cls.name}' expects data of rank >= 1 and a 2-d weight, "
                f"got {shape_str(d)} and {shape_str(w)}"
            )
        if d[-1] != w[1]:
            raise RelayTypeError(
                f"'{cls.name}' reduction sizes differ: data {shape_str(d)} has K={d[-1]}, "
                f"weight {shape_str(w)} has K={w[1]}"
            )
        return [TensorType(data.element_type, [*d[:-1], w[0]])]


@irdl_op_definition
class MatmulOp(RelayOp):
    """Batched matrix product with NumPy batch broadcasting.

    ``a [..., M, K] · b [..., K, N] → [..., M, N]``; ``transpose_a`` /
    ``transpose_b`` swap the last two axes of an operand first.

    ```mlir
    %y = relay.nn.matmul %a, %b {transpose_b = true} : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<2x4x16xf32>
    ```
    """

    name = "relay.nn.matmul"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    result = result_def(TensorType)
    transpose_a = opt_prop_def(BoolAttr)
    transpose_b = opt_prop_def(BoolAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$a `,` $b " + _FUNCTIONAL

    def __init__(
        self, a: SSAValue, b: SSAValue, transpose_a: bool = False, transpose_b: bool = False
    ):
        props: dict[str, Attribute] = {}
        if transpose_a:
            props["transpose_a"] = BoolAttr.from_bool(True)
        if transpose_b:
            props["transpose_b"] = BoolAttr.from_bool(True)
        (ty,) = self.infer([a.type, b.type], {k: True for k in props})
        super().__init__(operands=[a, b], result_types=[ty], properties=props)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        a = tensor_type(cls, operand_types[0], "a")
        b = tensor_type(cls, operand_types[1], "b")
        _same_dtype(cls.name, a, b)
        sa, sb = list(a.get_shape()), list(b.get_shape())
        if len(sa) < 2 or len(sb) < 2:
            raise RelayTypeError(
                f"'{cls.name}' expects operands of rank >= 2, got {shape_str(sa)} and {shape_str(sb)}"
            )
        if attrs.get("transpose_a"):
            sa[-2], sa[-1] = sa[-1], sa[-2]
        if attrs.get("transpose_b"):
            sb[-2], sb[-1] = sb[-1], sb[-2]
        if sa[-1] != sb[-2]:
            raise RelayTypeError(
                f"'{cls.name}' reduction sizes differ: a has K={sa[-1]}, b has K={sb[-2]}"
            )
        batch = broadcast_shapes(cls.name, sa[:-2], sb[:-2])
        return [TensorType(a.element_type, [*batch, sa[-2], sb[-1]])]


@irdl_op_definition
class BiasAddOp(RelayOp):
    """Adds a 1-d bias along ``axis`` (default 1) of ``data``.

    ```mlir
    %y = relay.nn.bias_add %x, %b {axis = 1 : i64} : (tensor<1x128xf32>, tensor<128xf32>) -> tensor<1x128xf32>
    ```
    """

    name = "relay.nn.bias_add"
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    data = operand_def(TensorType)
    bias = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$data `,` $bias " + _FUNCTIONAL

    def __init__(self, data: SSAValue, bias: SSAValue, axis: int = 1):
        (ty,) = self.infer([data.type, bias.type], {"axis": axis})
        super().__init__(
            operands=[data, bias], result_types=[ty], properties={"axis": IntegerAttr(axis, i64)}
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        bias = tensor_type(cls, operand_types[1], "bias")
        _same_dtype(cls.name, data, bias)
        shape = data.get_shape()
        axis = normalize_axis(cls.name, attrs.get("axis", 1), len(shape))
        if bias.get_shape() != (shape[axis],):
            raise RelayTypeError(
                f"'{cls.name}' bias must have shape {shape[axis]} (data axis {axis}), "
                f"got {shape_str(bias.get_shape())}"
            )
        return [data]


@irdl_op_definition
class SoftmaxOp(RelayOp):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis`` (default -1).

    ```mlir
    %y = relay.nn.softmax %x {axis = -1 : i64} : tensor<1x10xf32>
    ```
    """

    name = "relay.nn.softmax"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    T: ClassVar = UnaryOp.T
    input = operand_def(T)
    result = result_def(T)
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, axis: int = -1):
        self.infer([input.type], {"axis": axis})
        super().__init__(
            operands=[input], result_types=[input.type], properties={"axis": IntegerAttr(axis, i64)}
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        normalize_axis(cls.name, attrs.get("axis", -1), len(data.get_shape()))
        return [data]
