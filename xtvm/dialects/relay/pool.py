"""Pooling on channel-first data (``NCW``, ``NCHW``, ``NCDHW``):
``relay.nn.max_pool{1,2,3}d``, ``relay.nn.avg_pool{1,2,3}d``,
``relay.nn.max_pool2d_with_argmax``, ``relay.nn.global_max_pool2d``,
``relay.nn.global_avg_pool2d``.

The windowed pools share :class:`PoolOp`, generic in the number of spatial
axes ``N``; a concrete op fixes ``N`` (``SPATIAL``) and the defaults of its
window attributes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    bool_attr,
    functional_format,
    int_array,
    int_tuple,
    shape_str,
    tensor_type,
    window_output_size,
)

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_AXIS_NAMES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def channel_first(op_name: str, value: Attribute, spatial: int) -> TensorType:
    """``value`` as a ranked tensor of rank ``spatial + 2`` (batch, channels,
    spatial axes), or a type error naming the layout."""
    data = tensor_type(op_name, value, "data")
    if len(data.get_shape()) != spatial + 2:
        raise RelayTypeError(
            f"'{op_name}' expects {spatial + 2}-d data ({_LAYOUTS[spatial]}), "
            f"got {shape_str(data.get_shape())}"
        )
    return data


class PoolOp(RelayOp):
    """Base of the windowed pools over ``N = SPATIAL`` spatial axes (TVM's
    attribute names):

    * ``pool_size``: the window, ``N`` values;
    * ``strides``, ``dilation``: ``N`` values (default 1);
    * ``padding``: ``2N`` values, the padding before each spatial axis then
      after each (``[top, left, bottom, right]`` in 2-d; default 0), each
      smaller than the (dilated) window along its axis, so that every window
      meets the data;
    * ``ceil_mode``: round the output size up, keeping a last partial window
      unless it would start in the trailing padding (ONNX rule).

    ```mlir
    %y = relay.nn.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    %z = relay.nn.max_pool1d %v {pool_size = array<i64: 2>} : (tensor<1x3x32xf32>) -> tensor<1x3x31xf32>
    ```
    """

    SPATIAL: ClassVar[int] = 2
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    pool_size = prop_def(DenseArrayBase)
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    ceil_mode = prop_def(BoolAttr, default_value=bool_attr(False))
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(
        self,
        data: SSAValue,
        pool_size: Sequence[int],
        strides: Sequence[int] | None = None,
        dilation: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        ceil_mode: bool | None = None,
        **flags: bool | None,
    ):
        """The pool; the flags of a subclass (``count_include_pad``,
        ``column_major``) are passed by name."""
        super().__init__(
            data,
            pool_size=pool_size,
            strides=strides,
            dilation=dilation,
            padding=padding,
            ceil_mode=ceil_mode,
            **flags,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        n = cls.SPATIAL
        data = channel_first(cls.name, operand_types[0], n)
        shape = data.get_shape()
        window = int_tuple(cls.name, "pool_size", attrs["pool_size"], n, 1)
        strides = int_tuple(cls.name, "strides", attrs["strides"], n, 1)
        dilation = int_tuple(cls.name, "dilation", attrs["dilation"], n, 1)
        pad = int_tuple(cls.name, "padding", attrs["padding"], 2 * n, 0)
        spans = [(k - 1) * d + 1 for k, d in zip(window, dilation)]
        if any(p >= spans[i % n] for i, p in enumerate(pad)):
            raise RelayTypeError(
                f"'{cls.name}' padding {list(pad)} must be smaller than the pool window "
                f"{list(window)}" + (f" (dilated: {spans})" if spans != list(window) else "")
            )
        out = [
            window_output_size(
                cls.name,
                _AXIS_NAMES[n][i],
                shape[2 + i],
                pad[i],
                pad[n + i],
                window[i],
                strides[i],
                dilation[i],
                attrs["ceil_mode"],
                pool=True,
            )
            for i in range(n)
        ]
        return [TensorType(data.element_type, [*shape[:2], *out])]


class Pool1dOp(PoolOp):
    """Base of the 1-d pools (``NCW``; ``padding`` is ``[left, right]``)."""

    SPATIAL: ClassVar[int] = 1
    strides = prop_def(DenseArrayBase, default_value=int_array([1]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0]))


class Pool3dOp(PoolOp):
    """Base of the 3-d pools (``NCDHW``; ``padding`` is ``[front, top, left,
    back, bottom, right]``)."""

    SPATIAL: ClassVar[int] = 3
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1, 1]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0, 0, 0]))


class AvgPoolOp(PoolOp):
    """Base of the average pools: the mean over each window. The divisor
    counts the window's elements inside the data, or, with
    ``count_include_pad``, inside data and ``padding`` (never the part a
    ``ceil_mode`` window reaches beyond the padding), as onnxruntime.

    ```mlir
    %y = relay.nn.avg_pool2d %x {pool_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
    ```
    """

    count_include_pad = prop_def(BoolAttr, default_value=bool_attr(False))

    def __init__(
        self,
        data: SSAValue,
        pool_size: Sequence[int],
        strides: Sequence[int] | None = None,
        dilation: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        ceil_mode: bool | None = None,
        count_include_pad: bool | None = None,
    ):
        super().__init__(
            data,
            pool_size,
            strides,
            dilation,
            padding,
            ceil_mode,
            count_include_pad=count_include_pad,
        )


@irdl_op_definition
class MaxPool1dOp(Pool1dOp):
    """Maximum over each window of ``NCW`` data; padding never wins."""

    name = "relay.nn.max_pool1d"


@irdl_op_definition
class MaxPool2dOp(PoolOp):
    """Maximum over each window of ``NCHW`` data; padding never wins (it acts
    as ``-inf``).

    ```mlir
    %y = relay.nn.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
    """

    name = "relay.nn.max_pool2d"


@irdl_op_definition
class MaxPool2dWithArgmaxOp(PoolOp):
    """:class:`MaxPool2dOp` that also gives the ``int64`` position of each
    window's maximum in the flattened input (ONNX ``MaxPool``'s ``Indices``;
    PyTorch's ``max_pool2d_with_indices``): ``((n * C + c) * H + h) * W +
    w``, or with ``column_major`` ``((n * C + c) * W + w) * H + h``. Padding
    never wins; among equal maxima the first in the window (row-major) does.

    ```mlir
    %y, %i = relay.nn.max_pool2d_with_argmax %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
    ```
    """

    name = "relay.nn.max_pool2d_with_argmax"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    result = result_def(TensorType)  # redeclared: the results in order
    indices = result_def(TensorType)
    column_major = prop_def(BoolAttr, default_value=bool_attr(False))

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        (values,) = super().infer(operand_types, attrs)
        return [values, TensorType(i64, values.get_shape())]


@irdl_op_definition
class MaxPool3dOp(Pool3dOp):
    """Maximum over each window of ``NCDHW`` data; padding never wins."""

    name = "relay.nn.max_pool3d"


@irdl_op_definition
class AvgPool1dOp(AvgPoolOp, Pool1dOp):
    """Mean over each window of ``NCW`` data (see :class:`AvgPoolOp`)."""

    name = "relay.nn.avg_pool1d"


@irdl_op_definition
class AvgPool2dOp(AvgPoolOp):
    """Mean over each window of ``NCHW`` data (see :class:`AvgPoolOp`)."""

    name = "relay.nn.avg_pool2d"


@irdl_op_definition
class AvgPool3dOp(AvgPoolOp, Pool3dOp):
    """Mean over each window of ``NCDHW`` data (see :class:`AvgPoolOp`)."""

    name = "relay.nn.avg_pool3d"


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
    assembly_format = functional_format("data")

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = channel_first(cls.name, operand_types[0], 2)
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
