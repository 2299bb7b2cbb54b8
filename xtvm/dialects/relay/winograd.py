"""Winograd convolution F(m, 3) (TVM's ``contrib_conv2d_winograd_weight_transform``
and ``contrib_conv2d_winograd_without_weight_transform``), for 3x3 stride-1
float convs on blocked ``NCHW<c>c`` activations (docs/winograd.md).

The ``conv2d-winograd`` rewrite (``relay-alter-op-layout``) replaces such a
conv of a constant weight by the weight transform, which
``relay-fold-constant`` evaluates at compile time, and the conv on the
transformed weight, whose kernel (:mod:`xtvm.topi.x86.conv2d_winograd`) does
the input transform, the ``a·a`` GEMMs and the output transform
(``a = m + 2``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    functional_format,
    int_array,
    is_float,
    shape_str,
    tensor_type,
    window_output_size,
)
from xtvm.dialects.relay.packed import data_channel_block

TILE_SIZES = (2, 4)
"""The output tile sizes ``m`` of F(m, 3) the ops take."""


def _tile(cls: type[RelayOp], attrs: Mapping[str, Any]) -> int:
    m = attrs["tile_size"]
    if m not in TILE_SIZES:
        raise RelayTypeError(f"'{cls.name}' tile_size must be one of {TILE_SIZES}, got {m}")
    return m


def _static_float(cls: type[RelayOp], ty: TensorType, what: str) -> None:
    """A float ``what`` of static shape (a Winograd conv is made for a
    constant weight and static data; its tiles and blocks are fixed)."""
    if not is_float(ty.element_type):
        raise RelayTypeError(f"'{cls.name}' expects a float {what}, got {ty.element_type}")
    if DYNAMIC_INDEX in ty.get_shape():
        raise RelayTypeError(
            f"'{cls.name}' expects a {what} of static shape, got {shape_str(ty.get_shape())}"
        )


@irdl_op_definition
class WinogradWeightTransformOp(RelayOp):
    """``U = G g G^T`` of each 3x3 filter ``g`` of an ``OIHW`` weight ``[K, C,
    3, 3]``, laid out ``[a, a, K/block, C, block]`` (``a = tile_size + 2``):
    for each of the ``a x a`` GEMMs, the ``block`` output channels of one
    input channel are one vector row. ``block`` divides ``K``.

    ```mlir
    %u = relay.nn.contrib_conv2d_winograd_weight_transform %w {tile_size = 4 : i64, block = 16 : i64} : (tensor<32x16x3x3xf32>) -> tensor<6x6x2x16x16xf32>
    ```
    """

    name = "relay.nn.contrib_conv2d_winograd_weight_transform"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    tile_size = prop_def(IntegerAttr)
    block = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("weight")

    def __init__(self, weight: SSAValue, tile_size: int, block: int):
        super().__init__(weight, tile_size=tile_size, block=block)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        weight = tensor_type(cls, operand_types[0], "weight")
        _static_float(cls, weight, "weight")
        m, block = _tile(cls, attrs), attrs["block"]
        shape = weight.get_shape()
        if len(shape) != 4 or tuple(shape[2:]) != (3, 3) or block < 1 or shape[0] % block:
            raise RelayTypeError(
                f"'{cls.name}' expects a weight [K, C, 3, 3] with block {block} dividing K, "
                f"got {shape_str(shape)}"
            )
        k, c = shape[:2]
        return [TensorType(weight.element_type, [m + 2, m + 2, k // block, c, block])]


@irdl_op_definition
class Conv2dWinogradOp(RelayOp):
    """A 3x3 stride-1 conv of blocked data ``[N, C/c, H, W, c]``
    (``data_layout`` ``"NCHW<c>c"``) with zero ``padding`` ``[top, left,
    bottom, right]`` by Winograd F(``tile_size``, 3), on a weight transformed
    by ``relay.nn.contrib_conv2d_winograd_weight_transform`` (``[a, a, K/b,
    C, b]``); the result is blocked by the weight's ``b``: ``[N, K/b, OH,
    OW, b]``. Its kernel's output stage fuses the epilogue (bias, relu,
    residual add) as the packed conv's does.

    ```mlir
    %y = relay.nn.contrib_conv2d_winograd_without_weight_transform %x, %u {tile_size = 4 : i64, padding = array<i64: 1, 1, 1, 1>, data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xf32>, tensor<6x6x2x16x16xf32>) -> tensor<1x2x8x8x16xf32>
    ```
    """

    name = "relay.nn.contrib_conv2d_winograd_without_weight_transform"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    tile_size = prop_def(IntegerAttr)
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    data_layout = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        tile_size: int,
        data_layout: str,
        padding: Sequence[int] | None = None,
    ):
        super().__init__(
            data,
            weight,
            tile_size=tile_size,
            padding=padding,
            data_layout=data_layout,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        _static_float(cls, data, "data")
        _static_float(cls, weight, "weight")
        if data.element_type != weight.element_type:
            raise RelayTypeError(
                f"'{cls.name}' data and weight differ in element type: "
                f"{data.element_type} and {weight.element_type}"
            )
        m = _tile(cls, attrs)
        chans = data_channel_block(cls, attrs["data_layout"], multiple=1)
        ds, ws = data.get_shape(), weight.get_shape()
        if not chans or len(ds) != 5 or ds[4] != chans:
            raise RelayTypeError(
                f"'{cls.name}' expects blocked data [N, C/c, H, W, c] (data_layout "
                f"'NCHW<c>c'), got {shape_str(ds)} with '{attrs['data_layout']}'"
            )
        a = m + 2
        if len(ws) != 5 or tuple(ws[:2]) != (a, a) or ws[3] != ds[1] * chans:
            raise RelayTypeError(
                f"'{cls.name}' expects a transformed weight [{a}, {a}, K/b, {ds[1] * chans}, b] "
                f"for tile_size {m} and data {shape_str(ds)}, got {shape_str(ws)}"
            )
        top, left, bottom, right = attrs["padding"]
        if min(top, left, bottom, right) < 0:
            raise RelayTypeError(f"'{cls.name}' padding must be >= 0, got {list(attrs['padding'])}")
        oh = window_output_size(cls.name, "height", ds[2], top, bottom, 3, 1, 1)
        ow = window_output_size(cls.name, "width", ds[3], left, right, 3, 1, 1)
        return [TensorType(data.element_type, [ds[0], ws[2], oh, ow, ws[4]])]
