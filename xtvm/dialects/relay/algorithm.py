"""Sorting and scans (TVM's ``relay.op.algorithm`` and ``cumsum``):
``relay.topk``, ``relay.cumsum`` and ``relay.cumprod``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, BoolAttr, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    SameTypeOp,
    bool_attr,
    functional_format,
    i64_attr,
    normalize_axis,
    tensor_type,
)


@irdl_op_definition
class TopKOp(RelayOp):
    """The ``k`` largest elements along ``axis`` (default -1), or the ``k``
    smallest with ``is_ascend``, sorted, and their ``int64`` positions (TVM's
    ``topk`` with ``ret_type = "both"``; its index dtype is ``int32``, ONNX's
    ``int64``). Equal values keep their order: the lower position first.

    ```mlir
    %v, %i = relay.topk %x {k = 3 : i64, axis = 1 : i64} : (tensor<3x4xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
    ```
    """

    name = "relay.topk"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    k = prop_def(IntegerAttr)
    axis = prop_def(IntegerAttr, default_value=i64_attr(-1))
    is_ascend = prop_def(BoolAttr, default_value=bool_attr(False))
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(
        self, data: SSAValue, k: int, axis: int | None = None, is_ascend: bool | None = None
    ):
        super().__init__(data, k=k, axis=axis, is_ascend=is_ascend)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        shape = list(data.get_shape())
        if not shape:
            raise RelayTypeError(f"'{cls.name}' expects a tensor of rank >= 1, got a scalar")
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        k = attrs["k"]
        if k < 0 or (shape[axis] != DYNAMIC_INDEX and k > shape[axis]):
            raise RelayTypeError(
                f"'{cls.name}' k = {k} must be in [0, {shape[axis]}] (the size of axis {axis})"
            )
        shape[axis] = k
        return [TensorType(data.element_type, shape), TensorType(i64, shape)]


class ScanOp(SameTypeOp):
    """A running scan along ``axis`` (``relay.cumsum``, ``relay.cumprod``):
    ``exclusive`` leaves ``x[i]`` out of element ``i``, ``reverse`` scans
    from the end."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    axis = prop_def(IntegerAttr, default_value=i64_attr(0))
    exclusive = prop_def(BoolAttr, default_value=bool_attr(False))
    reverse = prop_def(BoolAttr, default_value=bool_attr(False))

    def __init__(
        self,
        input: SSAValue,
        axis: int | None = None,
        exclusive: bool | None = None,
        reverse: bool | None = None,
    ):
        super().__init__(input, axis=axis, exclusive=exclusive, reverse=reverse)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        rank = len(data.get_shape())
        if not rank:
            raise RelayTypeError(f"'{cls.name}' expects a tensor of rank >= 1, got a scalar")
        normalize_axis(cls.name, attrs["axis"], rank)
        return [data]


@irdl_op_definition
class CumsumOp(ScanOp):
    """Running sums along ``axis`` (TVM's ``cumsum``): ``y[i] = x[0] + ... +
    x[i]``; ``exclusive`` leaves ``x[i]`` out, ``reverse`` sums from the end
    (ONNX ``CumSum``'s attributes; TVM has ``exclusive`` only).

    ```mlir
    %y = relay.cumsum %x {axis = 1 : i64, exclusive = true} : tensor<2x3xf32>
    ```
    """

    name = "relay.cumsum"


@irdl_op_definition
class CumprodOp(ScanOp):
    """Running products along ``axis`` (ONNX ``CumProd``), with the
    attributes of ``relay.cumsum``: ``exclusive`` leaves ``x[i]`` out (a
    leading 1), ``reverse`` multiplies from the end.

    ```mlir
    %y = relay.cumprod %x {axis = 1 : i64, reverse = true} : tensor<2x3xf32>
    ```
    """

    name = "relay.cumprod"
