"""Convolution: ``relay.nn.conv2d`` (NCHW data, OIHW weight)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IntegerAttr,
    StringAttr,
    TensorType,
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
)
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    i64_attr,
    int_array,
    int_tuple,
    same_element_type,
    shape_str,
    tensor_type,
    window_output_size,
)
from xtvm.dialects.relay.tensor import dtype_element_type

_DYN = DYNAMIC_INDEX


@irdl_op_definition
class Conv2dOp(RelayOp):
    """2-d convolution (cross-correlation, as TVM and ONNX ``Conv``).

    ``data`` is ``[N, C, H, W]``, ``weight`` is ``[O, C / groups, KH, KW]``, the
    result ``[N, O, OH, OW]`` with ``OH = (H + top + bottom - ((KH - 1) *
    dilation_h + 1)) // stride_h + 1`` (likewise ``OW``). Attributes (TVM's
    names):

    * ``strides``, ``dilation``: 2 values ``[h, w]`` (default 1);
    * ``padding``: 4 values ``[top, left, bottom, right]`` (default 0);
    * ``groups``: input and output channels split into ``groups`` independent
      convolutions (``groups = C = O`` is a depthwise convolution);
    * ``channels``, ``kernel_size``: optional, the weight's ``O`` and
      ``[KH, KW]``, checked when present;
    * ``out_dtype``: optional result dtype (e.g. ``"int32"`` for ``int8``
      operands), the accumulation type; default the operands' dtype.

    ```mlir
    %y = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>) -> tensor<1x64x112x112xf32>
    %d = relay.nn.conv2d %x, %k {groups = 3 : i64} : (tensor<1x3x8x8xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x6x6xf32>
    ```
    """

    name = "relay.nn.conv2d"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    groups = prop_def(IntegerAttr, default_value=i64_attr(1))
    channels = opt_prop_def(IntegerAttr)
    kernel_size = opt_prop_def(DenseArrayBase)
    out_dtype = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$data `,` $weight attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        strides: Sequence[int] = (1, 1),
        padding: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
        groups: int = 1,
        channels: int | None = None,
        kernel_size: Sequence[int] | None = None,
        out_dtype: str | None = None,
    ):
        props: dict[str, Attribute] = {
            "strides": int_array(strides),
            "padding": int_array(padding),
            "dilation": int_array(dilation),
            "groups": i64_attr(groups),
        }
        attrs: dict[str, Any] = {
            "strides": tuple(strides),
            "padding": tuple(padding),
            "dilation": tuple(dilation),
            "groups": groups,
        }
        if channels is not None:
            props["channels"], attrs["channels"] = i64_attr(channels), channels
        if kernel_size is not None:
            props["kernel_size"] = int_array(kernel_size)
            attrs["kernel_size"] = tuple(kernel_size)
        if out_dtype is not None:
            props["out_dtype"], attrs["out_dtype"] = StringAttr(out_dtype), out_dtype
        (ty,) = self.infer([data.type, weight.type], attrs)
        super().__init__(operands=[data, weight], result_types=[ty], properties=props)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        attrs = cls.with_defaults(attrs)
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        element = same_element_type(cls.name, data, weight)
        ds, ws = data.get_shape(), weight.get_shape()
        if len(ds) != 4 or len(ws) != 4:
            raise RelayTypeError(
                f"'{cls.name}' expects 4-d data (NCHW) and a 4-d weight (OIHW), "
                f"got {shape_str(ds)} and {shape_str(ws)}"
            )
        strides = int_tuple(cls.name, "strides", attrs["strides"], 2, 1)
        dilation = int_tuple(cls.name, "dilation", attrs["dilation"], 2, 1)
        pad = int_tuple(cls.name, "padding", attrs["padding"], 4, 0)
        groups = attrs["groups"]
        if groups < 1:
            raise RelayTypeError(f"'{cls.name}' groups must be >= 1, got {groups}")
        n, c, h, w = ds
        o, i, kh, kw = ws
        if c != _DYN and c % groups:
            raise RelayTypeError(
                f"'{cls.name}' groups={groups} does not divide the {c} input channels"
            )
        if o != _DYN and o % groups:
            raise RelayTypeError(
                f"'{cls.name}' groups={groups} does not divide the {o} output channels"
            )
        if c != _DYN and i != _DYN and i * groups != c:
            raise RelayTypeError(
                f"'{cls.name}' weight {shape_str(ws)} has {i} input channels per group, "
                f"but data {shape_str(ds)} with groups={groups} needs {c // groups}"
            )
        if attrs.get("channels") is not None and o != _DYN and attrs["channels"] != o:
            raise RelayTypeError(
                f"'{cls.name}' channels={attrs['channels']} does not match the weight's "
                f"{o} output channels"
            )
        kernel_size = attrs.get("kernel_size")
        if kernel_size is not None and tuple(kernel_size) != (kh, kw):
            raise RelayTypeError(
                f"'{cls.name}' kernel_size {list(kernel_size)} does not match the weight's "
                f"{shape_str([kh, kw])} window"
            )
        if _DYN in (kh, kw):
            oh = ow = _DYN
        else:
            oh = window_output_size(
                cls.name, "height", h, pad[0], pad[2], kh, strides[0], dilation[0]
            )
            ow = window_output_size(
                cls.name, "width", w, pad[1], pad[3], kw, strides[1], dilation[1]
            )
        out_dtype = attrs.get("out_dtype")
        if out_dtype is not None:
            element = dtype_element_type(cls.name, out_dtype)
        return [TensorType(element, [n, o, oh, ow])]
