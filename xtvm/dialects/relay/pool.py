"""Pooling on NCHW data: ``relay.nn.max_pool2d``, ``relay.nn.avg_pool2d``,
``relay.nn.global_max_pool2d``, ``relay.nn.global_avg_pool2d``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    bool_attr,
    int_array,
    int_tuple,
    shape_str,
    tensor_type,
    window_output_size,
)


def _nchw(op_name: str, value: Attribute) -> TensorType:
    data = tensor_type(op_name, value, "data")
    if len(data.get_shape()) != 4:
        raise RelayTypeError(
            f"'{op_name}' expects 4-d data (NCHW), got {shape_str(data.get_shape())}"
        )
    return data


class Pool2dOp(RelayOp):
    """Base of the windowed 2-d pools (TVM's attribute names).

    * ``pool_size``: the window ``[h, w]``;
    * ``strides``, ``dilation``: 2 values (default 1);
    * ``padding``: 4 values ``[top, left, bottom, right]`` (default 0), each
      smaller than the window along its axis;
    * ``ceil_mode``: round the output size up, keeping a last partial window
      unless it would start in the bottom/right padding (ONNX rule).

    ```mlir
    %y = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    pool_size = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    ceil_mode = prop_def(BoolAttr, default_value=bool_attr(False))
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$data attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        data: SSAValue,
        pool_size: Sequence[int],
        strides: Sequence[int] = (1, 1),
        dilation: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        ceil_mode: bool = False,
    ):
        self._build(data, pool_size, strides, dilation, padding, ceil_mode, {})

    def _build(
        self,
        data: SSAValue,
        pool_size: Sequence[int],
        strides: Sequence[int],
        dilation: Sequence[int],
        padding: Sequence[int],
        ceil_mode: bool,
        flags: Mapping[str, bool],
    ) -> None:
        windows = {"pool_size": pool_size, "strides": strides, "dilation": dilation}
        attrs: dict[str, Any] = {k: tuple(v) for k, v in windows.items()}
        attrs |= {"padding": tuple(padding), "ceil_mode": ceil_mode, **flags}
        props: dict[str, Attribute] = {
            name: bool_attr(v) if isinstance(v, bool) else int_array(v) for name, v in attrs.items()
        }
        (ty,) = self.infer([data.type], attrs)
        super().__init__(operands=[data], result_types=[ty], properties=props)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        attrs = cls.with_defaults(attrs)
        data = _nchw(cls.name, operand_types[0])
        n, c, h, w = data.get_shape()
        window = int_tuple(cls.name, "pool_size", attrs["pool_size"], 2, 1)
        strides = int_tuple(cls.name, "strides", attrs["strides"], 2, 1)
        dilation = int_tuple(cls.name, "dilation", attrs["dilation"], 2, 1)
        pad = int_tuple(cls.name, "padding", attrs["padding"], 4, 0)
        if any(p >= window[i % 2] for i, p in enumerate(pad)):
            raise RelayTypeError(
                f"'{cls.name}' padding {list(pad)} must be smaller than the pool window "
                f"{list(window)}"
            )
        ceil = attrs["ceil_mode"]
        oh = window_output_size(
            cls.name, "height", h, pad[0], pad[2], window[0], strides[0], dilation[0], ceil
        )
        ow = window_output_size(
            cls.name, "width", w, pad[1], pad[3], window[1], strides[1], dilation[1], ceil
        )
        return [TensorType(data.element_type, [n, c, oh, ow])]


@irdl_op_definition
class MaxPool2dOp(Pool2dOp):
    """Maximum over each window; padding never wins (it acts as ``-inf``).

    ```mlir
    %y = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
    """

    name = "relay.nn.max_pool2d"


@irdl_op_definition
class AvgPool2dOp(Pool2dOp):
    """Mean over each window. The divisor counts the window's elements inside
    the data, or, with ``count_include_pad``, inside data and ``padding``
    (never the part a ``ceil_mode`` window reaches beyond the padding), as
    onnxruntime.

    ```mlir
    %y = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
    ```
    """

    name = "relay.nn.avg_pool2d"
    count_include_pad = prop_def(BoolAttr, default_value=bool_attr(False))

    def __init__(
        self,
        data: SSAValue,
        pool_size: Sequence[int],
        strides: Sequence[int] = (1, 1),
        dilation: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        ceil_mode: bool = False,
        count_include_pad: bool = False,
    ):
        flags = {"count_include_pad": count_include_pad}
        self._build(data, pool_size, strides, dilation, padding, ceil_mode, flags)


class GlobalPool2dOp(RelayOp):
    """Base of the global pools: ``[N, C, H, W]`` → ``[N, C, 1, 1]``.

    ```mlir
    %y = relay.nn.global_avg_pool2d %x : (tensor<1x512x7x7xf32>) -> tensor<1x512x1x1xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$data attr-dict `:` functional-type(operands, results)"

    def __init__(self, data: SSAValue):
        (ty,) = self.infer([data.type], {})
        super().__init__(operands=[data], result_types=[ty])

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _nchw(cls.name, operand_types[0])
        n, c, _, _ = data.get_shape()
        return [TensorType(data.element_type, [n, c, 1, 1])]


@irdl_op_definition
class GlobalMaxPool2dOp(GlobalPool2dOp):
    """Maximum over each channel's ``H x W`` plane."""

    name = "relay.nn.global_max_pool2d"


@irdl_op_definition
class GlobalAvgPool2dOp(GlobalPool2dOp):
    """Mean over each channel's ``H x W`` plane."""

    name = "relay.nn.global_avg_pool2d"
