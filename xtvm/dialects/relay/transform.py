"""Shape and layout ops: ``relay.reshape``, ``relay.transpose``,
``relay.concatenate``, ``relay.split``, ``relay.squeeze``,
``relay.expand_dims``, ``relay.full``, tuples, and ``relay.call_lowered`` (a
call of a lowered ``tir.prim_func``)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
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
    bool_attr,
    dtype_element_type,
    functional_format,
    i64_attr,
    normalize_axis,
    same_element_type,
    shape_str,
    tensor_type,
)


@irdl_op_definition
class ReshapeOp(RelayOp):
    """Reshape to ``newshape`` (TVM/ONNX rules: ``0`` copies the input's size
    at that position, one ``-1`` is inferred). With ``allowzero`` a ``0`` is
    a zero-size axis instead (ONNX ``Reshape`` from opset 14), and then no
    ``-1`` may appear with it.

    ```mlir
    %y = relay.reshape %x {newshape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    %z = relay.reshape %e {newshape = array<i64: 3, 0>, allowzero = true} : (tensor<0x3xf32>) -> tensor<3x0xf32>
    ```
    """

    name = "relay.reshape"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    newshape = prop_def(DenseArrayBase)
    allowzero = prop_def(BoolAttr, default_value=bool_attr(False))
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(
        self, input: SSAValue, newshape: Sequence[int], allowzero: bool | None = None
    ):
        super().__init__(input, newshape=newshape, allowzero=allowzero)

    @classmethod
    def to_shape(cls, input: SSAValue, shape: Sequence[int]) -> ReshapeOp:
        """A reshape to exactly ``shape`` (static sizes, no ``-1``): a ``0``
        in it is a zero-size axis, not a copy of the input's size."""
        return cls(input, shape, allowzero=True if 0 in shape else None)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = data.get_shape()
        newshape = list(attrs["newshape"])
        allowzero = attrs["allowzero"]
        if allowzero and 0 in newshape and -1 in newshape:
            raise RelayTypeError(f"'{cls.name}' newshape with allowzero has both 0 and -1")
        for i, d in enumerate(newshape):
            if d == 0 and not allowzero:
                if i >= len(shape):
                    raise RelayTypeError(f"'{cls.name}' newshape[{i}] = 0 has no input dim")
                newshape[i] = shape[i]
            elif d < -1:
                raise RelayTypeError(f"'{cls.name}' newshape has invalid size {d}")
        if newshape.count(-1) > 1:
            raise RelayTypeError(f"'{cls.name}' newshape has more than one -1")
        # `?` sizes: those copied by a 0 are the input's own, which cancel out
        dynamic_in = shape.count(DYNAMIC_INDEX)
        same_dynamic = dynamic_in == newshape.count(DYNAMIC_INDEX)
        size = math.prod(d for d in shape if d != DYNAMIC_INDEX)
        if -1 in newshape:
            known = math.prod(d for d in newshape if d not in (-1, DYNAMIC_INDEX))
            if same_dynamic and (known == 0 or size % known):
                raise RelayTypeError(
                    f"'{cls.name}' cannot reshape {shape_str(shape)} to {attrs['newshape']}"
                )
            newshape[newshape.index(-1)] = size // known if same_dynamic else DYNAMIC_INDEX
        if same_dynamic and math.prod(d for d in newshape if d != DYNAMIC_INDEX) != size:
            raise RelayTypeError(
                f"'{cls.name}' cannot reshape {shape_str(shape)} ({size} elements"
                f"{' per ?' if dynamic_in else ''}) to {shape_str(newshape)}"
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
    assembly_format = functional_format("input")

    def __init__(self, input: SSAValue, axes: Sequence[int] | None = None):
        super().__init__(input, axes=axes)

    @classmethod
    def permutation(cls, rank: int, axes: Sequence[int] | None) -> list[int]:
        if axes is None:
            return list(reversed(range(rank)))
        if sorted(a % rank if rank else a for a in axes) != list(range(rank)) or any(
            not -rank <= a < rank for a in axes
        ):
            raise RelayTypeError(
                f"'{cls.name}' axes {list(axes)} are not a permutation of rank {rank}"
            )
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
    assembly_format = functional_format("fields")

    def __init__(self, fields: Sequence[SSAValue]):
        super().__init__(fields)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        return [TupleType(ArrayAttr(tuple(operand_types)))]  # a list would make it unhashable


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
    assembly_format = functional_format("tuple")

    def __init__(self, tuple_value: SSAValue, index: int):
        super().__init__(tuple_value, index=index)

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
        """A call with the callee's result types (no type rule gives them)."""
        IRDLOperation.__init__(
            self,
            operands=[args],
            result_types=[result_types],
            properties={"callee": SymbolRefAttr(callee)},
        )

    def verify_(self) -> None:
        """The callee's signature is checked by the lowering that creates it."""


@irdl_op_definition
class ConcatenateOp(RelayOp):
    """Joins tensors along ``axis`` (default 0); the other sizes must agree.

    ```mlir
    %y = relay.concatenate %a, %b {axis = 1 : i64} : (tensor<1x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
    ```
    """

    name = "relay.concatenate"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=i64_attr(0))
    traits = traits_def(Pure())
    assembly_format = functional_format("inputs")

    def __init__(self, inputs: Sequence[SSAValue], axis: int | None = None):
        super().__init__(inputs, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        if not operand_types:
            raise RelayTypeError(f"'{cls.name}' needs at least one input")
        tensors = [tensor_type(cls, t, f"input {i}") for i, t in enumerate(operand_types)]
        element = same_element_type(cls.name, *tensors)
        shape = list(tensors[0].get_shape())
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        for i, t in enumerate(tensors[1:], 1):
            other = t.get_shape()
            if len(other) != len(shape) or any(
                a != b and DYNAMIC_INDEX not in (a, b)
                for k, (a, b) in enumerate(zip(shape, other))
                if k != axis
            ):
                raise RelayTypeError(
                    f"'{cls.name}' input {i} has shape {shape_str(other)}, which does not "
                    f"match {shape_str(tensors[0].get_shape())} outside axis {axis}"
                )
            for k, d in enumerate(other):
                if k == axis:
                    both = DYNAMIC_INDEX in (shape[k], d)
                    shape[k] = DYNAMIC_INDEX if both else shape[k] + d
                elif shape[k] == DYNAMIC_INDEX:
                    shape[k] = d
        return [TensorType(element, shape)]


@irdl_op_definition
class SplitOp(RelayOp):
    """Splits a tensor along ``axis`` (default 0). ``indices_or_sections`` is
    either a count of equal sections (which must divide the axis) or the
    ascending indices where pieces start (``[2, 5]`` gives ``[0:2]``,
    ``[2:5]``, ``[5:]``). The pieces are the op's results (TVM returns a
    tuple).

    ```mlir
    %a, %b = relay.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : (tensor<1x6xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>)
    %c:3 = relay.split %x {indices_or_sections = array<i64: 1, 4>, axis = 1 : i64} : (tensor<1x6xf32>) -> (tensor<1x1xf32>, tensor<1x3xf32>, tensor<1x2xf32>)
    ```
    """

    name = "relay.split"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    outputs = var_result_def(TensorType)
    indices_or_sections = prop_def(IntegerAttr | DenseArrayBase)
    axis = prop_def(IntegerAttr, default_value=i64_attr(0))
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(
        self,
        input: SSAValue,
        indices_or_sections: int | Sequence[int],
        axis: int | None = None,
    ):
        super().__init__(input, indices_or_sections=indices_or_sections, axis=axis)

    @classmethod
    def bounds(cls, size: int, indices_or_sections: int | Sequence[int]) -> list[tuple[int, int]]:
        """``(begin, end)`` of each piece along an axis of ``size`` elements."""
        if isinstance(indices_or_sections, int):
            sections = indices_or_sections
            if sections < 1 or size % sections:
                raise RelayTypeError(
                    f"'{cls.name}' {sections} sections do not divide the axis of size {size}"
                )
            step = size // sections
            return [(k * step, (k + 1) * step) for k in range(sections)]
        indices = list(indices_or_sections)
        if any(b < a for a, b in itertools.pairwise(indices)) or any(
            not 0 <= i <= size for i in indices
        ):
            raise RelayTypeError(
                f"'{cls.name}' split indices {indices} must be ascending and within [0, {size}]"
            )
        edges = [0, *indices, size]
        return list(itertools.pairwise(edges))

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = data.get_shape()
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        split = attrs["indices_or_sections"]
        if shape[axis] == DYNAMIC_INDEX:
            count = split if isinstance(split, int) else len(split) + 1
            sizes = [DYNAMIC_INDEX] * count
        else:
            sizes = [end - begin for begin, end in cls.bounds(shape[axis], split)]
        return [
            TensorType(data.element_type, [*shape[:axis], size, *shape[axis + 1 :]])
            for size in sizes
        ]


@irdl_op_definition
class SqueezeOp(RelayOp):
    """Removes size-1 axes: those in ``axis``, or every one when ``axis`` is
    absent (a ``?`` axis is then kept).

    ```mlir
    %y = relay.squeeze %x {axis = array<i64: 2, 3>} : (tensor<1x512x1x1xf32>) -> tensor<1x512xf32>
    ```
    """

    name = "relay.squeeze"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(self, input: SSAValue, axis: Sequence[int] | None = None):
        super().__init__(input, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = data.get_shape()
        if attrs.get("axis") is None:
            if DYNAMIC_INDEX in shape:
                raise RelayTypeError(
                    f"'{cls.name}' without axes needs static sizes to know which axes are 1, "
                    f"got {shape_str(shape)}"
                )
            return [TensorType(data.element_type, [d for d in shape if d != 1])]
        axes = {normalize_axis(cls.name, a, len(shape)) for a in attrs["axis"]}
        for a in sorted(axes):
            if shape[a] not in (1, DYNAMIC_INDEX):
                raise RelayTypeError(
                    f"'{cls.name}' cannot squeeze axis {a} of size {shape[a]} "
                    f"(shape {shape_str(shape)})"
                )
        return [TensorType(data.element_type, [d for i, d in enumerate(shape) if i not in axes])]


@irdl_op_definition
class ExpandDimsOp(RelayOp):
    """Inserts ``num_newaxis`` (default 1) size-1 axes at ``axis``, which may
    be in ``[-rank - 1, rank]``.

    ```mlir
    %y = relay.expand_dims %x {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
    ```
    """

    name = "relay.expand_dims"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    num_newaxis = prop_def(IntegerAttr, default_value=i64_attr(1))
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(self, input: SSAValue, axis: int, num_newaxis: int | None = None):
        super().__init__(input, axis=axis, num_newaxis=num_newaxis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = list(data.get_shape())
        axis, rank = attrs["axis"], len(shape)
        if not -rank - 1 <= axis <= rank:
            raise RelayTypeError(
                f"'{cls.name}' axis {axis} is out of range [{-rank - 1}, {rank}] "
                f"for an input of rank {rank}"
            )
        axis %= rank + 1
        count = attrs["num_newaxis"]
        if count < 0:
            raise RelayTypeError(f"'{cls.name}' num_newaxis must be >= 0, got {count}")
        return [TensorType(data.element_type, shape[:axis] + [1] * count + shape[axis:])]


@irdl_op_definition
class FullOp(RelayOp):
    """A tensor of ``shape`` filled with the scalar operand ``fill_value``,
    converted to ``dtype`` (default: the fill value's dtype).

    ```mlir
    %z = relay.full %v {shape = array<i64: 2, 3>, dtype = "float32"} : (tensor<i64>) -> tensor<2x3xf32>
    ```
    """

    name = "relay.full"
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    fill_value = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)
    dtype = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("fill_value")

    def __init__(self, fill_value: SSAValue, shape: Sequence[int], dtype: str | None = None):
        super().__init__(fill_value, shape=shape, dtype=dtype)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        fill = tensor_type(cls, operand_types[0], "fill_value")
        if fill.get_shape():
            raise RelayTypeError(
                f"'{cls.name}' fill_value must be a scalar tensor, got shape "
                f"{shape_str(fill.get_shape())}"
            )
        shape = list(attrs["shape"])
        if any(d < 0 for d in shape):
            raise RelayTypeError(f"'{cls.name}' shape {shape} has a negative size")
        dtype = attrs.get("dtype")
        element = fill.element_type if dtype is None else dtype_element_type(cls.name, dtype)
        return [TensorType(element, shape)]
