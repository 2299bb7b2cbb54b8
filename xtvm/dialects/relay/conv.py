"""Convolutions on channel-first data: ``relay.nn.conv{1,2,3}d`` and the
transposed ``relay.nn.conv{1,2,3}d_transpose``.

Each family shares one base class, generic in the number of spatial axes
``N``; a concrete op fixes ``N`` (``SPATIAL``) and the defaults of its
window attributes. Layouts are TVM's defaults: data ``NCW``/``NCHW``/
``NCDHW``; convolution weights ``OIW``/``OIHW``/``OIDHW``, transposed
convolution weights ``IOW``/``IOHW``/``IODHW`` (as ONNX ``ConvTranspose``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
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
    dtype_element_type,
    functional_format,
    i64_attr,
    int_array,
    int_tuple,
    same_element_type,
    shape_str,
    tensor_type,
    window_output_size,
)

_DYN = DYNAMIC_INDEX
_LAYOUTS = {1: ("NCW", "W"), 2: ("NCHW", "HW"), 3: ("NCDHW", "DHW")}
_AXIS_NAMES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


class _ConvBase(RelayOp):
    """What both convolution families share: operands, ``strides``,
    ``padding`` (``2N`` values: before each spatial axis, then after each),
    ``dilation``, ``groups`` and an optional ``out_dtype`` (the
    accumulation and result type, e.g. ``"int32"`` for ``int8`` operands;
    with it, integer data and weight may differ, ``uint8`` and ``int8``)."""

    SPATIAL: ClassVar[int] = 2
    WEIGHT_LAYOUT: ClassVar[str] = "OI"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    groups = prop_def(IntegerAttr, default_value=i64_attr(1))
    out_dtype = opt_prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    @classmethod
    def _checked(
        cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]
    ) -> tuple[TensorType, TensorType, Attribute]:
        """The checked data and weight, and the result element type."""
        n = cls.SPATIAL
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        if attrs.get("out_dtype") is not None and all(
            isinstance(t.element_type, IntegerType) for t in (data, weight)
        ):
            element = data.element_type  # integer operands may differ: u8 data, i8 weight
        else:
            element = same_element_type(cls.name, data, weight)
        ds, ws = data.get_shape(), weight.get_shape()
        if len(ds) != n + 2 or len(ws) != n + 2:
            layout, window = _LAYOUTS[n]
            raise RelayTypeError(
                f"'{cls.name}' expects {n + 2}-d data ({layout}) and a {n + 2}-d weight "
                f"({cls.WEIGHT_LAYOUT}{window}), got {shape_str(ds)} and {shape_str(ws)}"
            )
        int_tuple(cls.name, "strides", attrs["strides"], n, 1)
        int_tuple(cls.name, "dilation", attrs["dilation"], n, 1)
        if attrs["groups"] < 1:
            raise RelayTypeError(f"'{cls.name}' groups must be >= 1, got {attrs['groups']}")
        if attrs.get("out_dtype") is not None:
            element = dtype_element_type(cls.name, attrs["out_dtype"])
        return data, weight, element

    @classmethod
    def _check_groups(cls, what: str, channels: int, groups: int) -> None:
        if channels != _DYN and channels % groups:
            raise RelayTypeError(
                f"'{cls.name}' groups={groups} does not divide the {channels} {what} channels"
            )


class ConvOp(_ConvBase):
    """Base of the convolutions (cross-correlation, as TVM and ONNX ``Conv``).

    ``data`` is ``[N, C, *spatial]``, ``weight`` ``[O, C / groups, *kernel]``,
    the result ``[N, O, *out]`` with ``out = (in + before + after - ((k - 1)
    * dilation + 1)) // stride + 1`` per spatial axis. Attributes (TVM's
    names):

    * ``strides``, ``dilation``: ``N`` values (default 1);
    * ``padding``: ``2N`` values ``[before..., after...]`` (2-d: ``[top,
      left, bottom, right]``; default 0);
    * ``groups``: input and output channels split into ``groups`` independent
      convolutions (``groups = C = O`` is a depthwise convolution);
    * ``channels``, ``kernel_size``: optional, the weight's ``O`` and kernel
      window, checked when present;
    * ``out_dtype``: optional result dtype, the accumulation type; default
      the operands' dtype.

    ```mlir
    %y = relay.nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>) -> tensor<1x64x112x112xf32>
    %d = relay.nn.conv2d %x, %k {groups = 3 : i64} : (tensor<1x3x8x8xf32>, tensor<3x1x3x3xf32>) -> tensor<1x3x6x6xf32>
    %c = relay.nn.conv1d %s, %v {padding = array<i64: 1, 1>} : (tensor<1x4x16xf32>, tensor<8x4x3xf32>) -> tensor<1x8x16xf32>
    ```
    """

    channels = opt_prop_def(IntegerAttr)
    kernel_size = opt_prop_def(DenseArrayBase)

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        strides: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        dilation: Sequence[int] | None = None,
        groups: int | None = None,
        channels: int | None = None,
        kernel_size: Sequence[int] | None = None,
        out_dtype: str | None = None,
    ):
        super().__init__(
            data,
            weight,
            strides=strides,
            padding=padding,
            dilation=dilation,
            groups=groups,
            channels=channels,
            kernel_size=kernel_size,
            out_dtype=out_dtype,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, weight, element = cls._checked(operand_types, attrs)
        n = cls.SPATIAL
        strides, dilation, groups = attrs["strides"], attrs["dilation"], attrs["groups"]
        pad = int_tuple(cls.name, "padding", attrs["padding"], 2 * n, 0)
        ds, ws = data.get_shape(), weight.get_shape()
        c, o, i, kernel = ds[1], ws[0], ws[1], ws[2:]
        cls._check_groups("input", c, groups)
        cls._check_groups("output", o, groups)
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
        if kernel_size is not None and tuple(kernel_size) != tuple(kernel):
            raise RelayTypeError(
                f"'{cls.name}' kernel_size {list(kernel_size)} does not match the weight's "
                f"{shape_str(kernel)} window"
            )
        out = [
            _DYN
            if k == _DYN
            else window_output_size(
                cls.name, name, size, pad[a], pad[n + a], k, strides[a], dilation[a]
            )
            for a, (name, size, k) in enumerate(zip(_AXIS_NAMES[n], ds[2:], kernel))
        ]
        return [TensorType(element, [ds[0], o, *out])]


@irdl_op_definition
class Conv1dOp(ConvOp):
    """1-d convolution: data ``NCW``, weight ``OIW``, ``padding`` ``[left, right]``."""

    name = "relay.nn.conv1d"
    SPATIAL: ClassVar[int] = 1
    strides = prop_def(DenseArrayBase, default_value=int_array([1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1]))


@irdl_op_definition
class Conv2dOp(ConvOp):
    """2-d convolution: data ``NCHW``, weight ``OIHW``, ``padding`` ``[top,
    left, bottom, right]``."""

    name = "relay.nn.conv2d"


@irdl_op_definition
class Conv3dOp(ConvOp):
    """3-d convolution: data ``NCDHW``, weight ``OIDHW``, ``padding``
    ``[front, top, left, back, bottom, right]``."""

    name = "relay.nn.conv3d"
    SPATIAL: ClassVar[int] = 3
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0, 0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1, 1]))


class ConvTransposeOp(_ConvBase):
    """Base of the transposed convolutions (the gradient of a convolution
    with respect to its input; ONNX ``ConvTranspose``).

    ``data`` is ``[N, C, *spatial]``, ``weight`` ``[C, O / groups, *kernel]``,
    the result ``[N, O, *out]`` with ``out = (in - 1) * stride - before -
    after + (k - 1) * dilation + output_padding + 1`` per spatial axis: each
    input element scatters ``weight``'s window, scaled, at ``stride``
    spacing; ``padding`` then crops the full result and ``output_padding``
    (``N`` values) extends its end (ONNX asks for less than the stride or
    the dilation; more gives zeros, which ONNX's ``output_shape`` may need).

    ```mlir
    %y = relay.nn.conv2d_transpose %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
    ```
    """

    WEIGHT_LAYOUT: ClassVar[str] = "IO"
    output_padding = prop_def(DenseArrayBase, default_value=int_array([0, 0]))

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        strides: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        output_padding: Sequence[int] | None = None,
        dilation: Sequence[int] | None = None,
        groups: int | None = None,
        out_dtype: str | None = None,
    ):
        super().__init__(
            data,
            weight,
            strides=strides,
            padding=padding,
            dilation=dilation,
            output_padding=output_padding,
            groups=groups,
            out_dtype=out_dtype,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, weight, element = cls._checked(operand_types, attrs)
        n = cls.SPATIAL
        strides, dilation, groups = attrs["strides"], attrs["dilation"], attrs["groups"]
        pad = int_tuple(cls.name, "padding", attrs["padding"], 2 * n, 0)
        extra = int_tuple(cls.name, "output_padding", attrs["output_padding"], n, 0)
        ds, ws = data.get_shape(), weight.get_shape()
        c, i, o_per_group, kernel = ds[1], ws[0], ws[1], ws[2:]
        cls._check_groups("input", c, groups)
        if c != _DYN and i != _DYN and i != c:
            raise RelayTypeError(
                f"'{cls.name}' weight {shape_str(ws)} has {i} input channels, "
                f"but data {shape_str(ds)} has {c}"
            )
        out = []
        for a, (size, k) in enumerate(zip(ds[2:], kernel)):
            if _DYN in (size, k):
                out.append(_DYN)
                continue
            full = (size - 1) * strides[a] + (k - 1) * dilation[a] + 1 + extra[a]
            if full - pad[a] - pad[n + a] < 1:
                raise RelayTypeError(
                    f"'{cls.name}' padding {list(pad)} crops the whole {_AXIS_NAMES[n][a]} "
                    f"({full}) of the output"
                )
            out.append(full - pad[a] - pad[n + a])
        channels = _DYN if o_per_group == _DYN else o_per_group * groups
        return [TensorType(element, [ds[0], channels, *out])]


@irdl_op_definition
class Conv1dTransposeOp(ConvTransposeOp):
    """1-d transposed convolution: data ``NCW``, weight ``IOW``."""

    name = "relay.nn.conv1d_transpose"
    SPATIAL: ClassVar[int] = 1
    strides = prop_def(DenseArrayBase, default_value=int_array([1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1]))
    output_padding = prop_def(DenseArrayBase, default_value=int_array([0]))


@irdl_op_definition
class Conv2dTransposeOp(ConvTransposeOp):
    """2-d transposed convolution: data ``NCHW``, weight ``IOHW``."""

    name = "relay.nn.conv2d_transpose"


@irdl_op_definition
class Conv3dTransposeOp(ConvTransposeOp):
    """3-d transposed convolution: data ``NCDHW``, weight ``IODHW``."""

    name = "relay.nn.conv3d_transpose"
    SPATIAL: ClassVar[int] = 3
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0, 0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1, 1]))
    output_padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0]))
