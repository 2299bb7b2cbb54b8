"""Shape and layout ops: ``relay.reshape``, ``relay.transpose``, tuples, and
``relay.call_lowered`` (a call of a lowered ``tir.prim_func``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    shape_str,
    tensor_type,
)

_FUNCTIONAL = "attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class ReshapeOp(RelayOp):
    """Reshape to ``newshape`` (TVM/ONNX rules: ``0`` copies the input's size
    at that position, one ``-1`` is inferred).

    ```mlir
    %y = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    ```
    """

    name = "relay.reshape"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    newshape = prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input " + _FUNCTIONAL

    def __init__(self, input: SSAValue, newshape: Sequence[int]):
        (ty,) = self.infer([input.type], {"newshape": tuple(newshape)})
        super().__init__(
            operands=[input],
            result_types=[ty],
            properties={"newshape": DenseArrayBase.from_list(i64, list(newshape))},
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = data.get_shape()
        newshape = list(attrs["newshape"])
        for i, d in enumerate(newshape):
            if d == 0:
                if i >= len(shape):
                    raise RelayTypeError(f"'{cls.name}' newshape[{i}] = 0 has no input dim")
                newshape[i] = shape[i]
            elif d < -1:
                raise RelayTypeError(f"'{cls.name}' newshape has invalid size {d}")
        size = math.prod(shape)
        if newshape.count(-1) > 1:
            raise RelayTypeError(f"'{cls.name}' newshape has more than one -1")
        if -1 in newshape:
            known = math.prod(d for d in newshape if d != -1)
            if known == 0 or size % known:
                raise RelayTypeError(
                    f"'{cls.name}' cannot reshape {shape_str(shape)} to {attrs['newshape']}"
                )
            newshape[newshape.index(-1)] = size // known
        if math.prod(newshape) != size:
            raise RelayTypeError(
                f"'{cls.name}' cannot reshape {shape_str(shape)} ({size} elements) "
                f"to {shape_str(newshape)}"
            )
        return [TensorType(data.element_type, newshape)]


@irdl_op_definition
class TransposeOp(RelayOp):
    """Permutes axes: result axis ``i`` is input axis ``axes[i]`` (default:
    reversed).

    ```mlir
    %y = relay.transpose %x {axes = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
    """

    name = "relay.transpose"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axes = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input " + _FUNCTIONAL

    def __init__(self, input: SSAValue, axes: Sequence[int] | None = None):
        props = {} if axes is None else {"axes": DenseArrayBase.from_list(i64, list(axes))}
        (ty,) = self.infer([input.type], {} if axes is None else {"axes": tuple(axes)})
        super().__init__(operands=[input], result_types=[ty], properties=props)

    @classmethod
    def permutation(cls, rank: int, axes: Sequence[int] | None) -> list[int]:
        if axes is None:
            return list(reversed(range(rank)))
        if sorted(a % rank if rank else a for a in axes) != list(range(rank)) or any(
            not -rank <= a < rank for a in axes
        ):
            raise RelayTypeError(f"'{cls.name}' axes {list(axes)} are not a permutation of rank {rank}")
        return [a % rank for a in axes]

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = data.get_shape()
        perm = cls.permutation(len(shape), attrs.get("axes"))
        return [TensorType(data.element_type, [shape[a] for a in perm])]


@irdl_op_definition
class TupleOp(RelayOp):
    """Groups values into a tuple.

    ```mlir
    %t = relay.tuple %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tuple<tensor<2xf32>, tensor<3xf32>>
    ```
    """

    name = "relay.tuple"
    PATTERN: ClassVar[OpPattern] = OpPattern.TUPLE
    fields = var_operand_def(TensorType)
    result = result_def(TupleType)
    traits = traits_def(Pure())
    assembly_format = "$fields " + _FUNCTIONAL

    def __init__(self, fields: Sequence[SSAValue]):
        super().__init__(operands=[fields], result_types=[TupleType([f.type for f in fields])])

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        return [TupleType(list(operand_types))]


@irdl_op_definition
class TupleGetOp(RelayOp):
    """Field ``index`` of a tuple.

    ```mlir
    %a = relay.tuple_get %t {index = 0 : i64} : (tuple<tensor<2xf32>, tensor<3xf32>>) -> tensor<2xf32>
    ```
    """

    name = "relay.tuple_get"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    tuple = operand_def(TupleType)
    result = result_def()
    index = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tuple " + _FUNCTIONAL

    def __init__(self, tuple_value: SSAValue, index: int):
        (ty,) = self.infer([tuple_value.type], {"index": index})
        super().__init__(
            operands=[tuple_value], result_types=[ty], properties={"index": IntegerAttr(index, i64)}
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        tup = operand_types[0]
        if not isinstance(tup, TupleType):
            raise RelayTypeError(f"'{cls.name}' expects a tuple, got {tup}")
        index = attrs["index"]
        if not 0 <= index < len(tup.types):
            raise RelayTypeError(
                f"'{cls.name}' index {index} is out of range for a {len(tup.types)}-tuple"
            )
        return [tup.types.data[index]]


@irdl_op_definition
class CallLoweredOp(RelayOp):
    """Calls a lowered kernel (a ``tir.prim_func``) on tensors: TVM's
    ``call_lowered``. Inputs are the operands; the kernel writes the results
    (destination passing happens when memory is made explicit).

    ```mlir
    %y = relay.call_lowered @fused_nn_dense_add(%x, %w, %b) : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    ```
    """

    name = "relay.call_lowered"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    callee = prop_def(FlatSymbolRefAttrConstr)
    args = var_operand_def()
    res = var_result_def()
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"

    def __init__(self, callee: str, args: Sequence[SSAValue], result_types: Sequence[Attribute]):
        super().__init__(
            operands=[args],
            result_types=[result_types],
            properties={"callee": SymbolRefAttr(callee)},
        )

    def verify_(self) -> None:
        """The callee's signature is checked by the lowering that creates it."""
