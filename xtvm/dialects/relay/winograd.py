"""Winograd convolution F(m, r) (TVM's ``contrib_conv2d_winograd_weight_transform``
and ``contrib_conv2d_winograd_without_weight_transform``), for 3x3 stride-1
float convs on blocked ``NCHW<c>c`` activations, and 4x4 ones (``r = 4``:
a 7x7 stride-2 conv after space-to-depth, ``conv2d-winograd-stride2``)
(docs/winograd.md).

The ``conv2d-winograd`` rewrite (``relay-alter-op-layout``) replaces such a
conv of a constant weight by the weight transform, which
``relay-fold-constant`` evaluates at compile time, and the conv on the
transformed weight, whose kernel (:mod:`xtvm.topi.x86.conv2d_winograd`) does
the input transform, the ``a·a`` GEMMs and the output transform
(``a = m + r - 1``).
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
"""The output tile sizes ``m`` of F(m, r) the ops take."""

KERNEL_SIZES = (3, 4)
"""The kernel sizes ``r`` of F(m, r) the ops take (the reference's, which
does not import the dialect)."""


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
    """``U = G g G^T`` of each ``r x r`` filter ``g`` (``r`` 3 or 4) of an
    ``OIHW`` weight ``[K, C, r, r]``, laid out ``[a, a, K/block, C, block]``
    (``a = tile_size + r - 1``): for each of the ``a x a`` GEMMs, the
    ``block`` output channels of one input channel are one vector row.
    ``block`` divides ``K``.

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
        if (
            len(shape) != 4
            or shape[2] != shape[3]
            or shape[2] not in KERNEL_SIZES
            or block < 1
            or shape[0] % block
        ):
            raise RelayTypeError(
                f"'{cls.name}' expects a weight [K, C, r, r] with r in {KERNEL_SIZES} and block "
                f"{block} dividing K, got {shape_str(shape)}"
            )
        k, c, r = shape[:3]
        a = m + r - 1
        return [TensorType(weight.element_type, [a, a, k // block, c, block])]


@irdl_op_definition
class Conv2dWinogradOp(RelayOp):
    """An ``r x r`` stride-1 conv of blocked data ``[N, C/c, H, W, c]``
    (``data_layout`` ``"NCHW<c>c"``) with zero ``padding`` ``[top, left,
    bottom, right]`` by Winograd F(``tile_size``, r), on a weight transformed
    by ``relay.nn.contrib_conv2d_winograd_weight_transform`` (``[a, a, K/b,
    C, b]``, ``r = a - tile_size + 1``, 3 or 4); the result is blocked by the
    weight's ``b``: ``[N, K/b, OH, OW, b]``. Its kernel's output stage fuses
    the epilogue (bias, relu, residual add) as the packed conv's does.

    ``workload``, when not empty, is the workload
    (:func:`xtvm.passes.relay.winograd.conv2d_workload`) of the conv this one
    computes in another form: the 7x7 stride-2 conv that
    ``conv2d-winograd-stride2`` turned into a 4x4 stride-1 conv on
    space-to-depth data. Tuning records name that conv, and the kernel counts
    its FLOPs (so GFLOP/s compare with its direct kernel's).

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
    workload = prop_def(StringAttr, default_value=StringAttr(""))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        tile_size: int,
        data_layout: str,
        padding: Sequence[int] | None = None,
        workload: str | None = None,
    ):
        super().__init__(
            data,
            weight,
            tile_size=tile_size,
            padding=padding,
            data_layout=data_layout,
            workload=workload or None,
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
        r = ws[0] - m + 1 if ws else 0
        if len(ws) != 5 or ws[1] != ws[0] or r not in KERNEL_SIZES or ws[3] != ds[1] * chans:
            expected = " or ".join(
                f"[{m + k - 1}, {m + k - 1}, K/b, {ds[1] * chans}, b]" for k in KERNEL_SIZES
            )
            raise RelayTypeError(
                f"'{cls.name}' expects a transformed weight {expected} for tile_size {m} and "
                f"data {shape_str(ds)}, got {shape_str(ws)}"
            )
        top, left, bottom, right = attrs["padding"]
        if min(top, left, bottom, right) < 0:
            raise RelayTypeError(f"'{cls.name}' padding must be >= 0, got {list(attrs['padding'])}")
        oh = window_output_size(cls.name, "height", ds[2], top, bottom, r, 1, 1)
        ow = window_output_size(cls.name, "width", ds[3], left, right, r, 1, 1)
        return [TensorType(data.element_type, [ds[0], ws[2], oh, ow, ws[4]])]
