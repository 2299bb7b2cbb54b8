"""Packed layouts for fast CPU kernels: ``relay.layout_transform``,
``relay.nn.contrib_conv2d_packed``, ``relay.nn.contrib_dense_pack`` and
their int8 forms ``relay.nn.contrib_conv2d_int8_packed`` and
``relay.nn.contrib_dense_int8_packed`` (TVM's ``layout_transform``, ``nn.contrib_conv2d_NCHWc`` weight packing and
``nn.contrib_dense_pack``).

``relay-alter-op-layout`` rewrites ``conv2d``/``dense`` into the packed ops
with a ``layout_transform`` of the weight, which ``relay-fold-constant`` then
evaluates once at compile time: the kernels read weights whose output-channel
block is innermost, one vector register wide (see ``xtvm/topi/x86``).
Layout strings follow :mod:`xtvm.layout` (``"OIHW16o"``, ``"NK16n"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    functional_format,
    i64_attr,
    int_array,
    product,
    shape_str,
    tensor_type,
)
from xtvm.dialects.relay.conv import Conv2dOp
from xtvm.dialects.relay.nn import DenseOp
from xtvm.dtypes import element_type
from xtvm.layout import Layout, transform_shape


def _layout(cls: type[RelayOp], name: str, what: str) -> Layout:
    try:
        return Layout.parse(name)
    except ValueError as e:
        raise RelayTypeError(f"'{cls.name}' {what}: {e}") from None


def _unpacked(cls: type[RelayOp], weight: TensorType, layout: str, primal: str) -> TensorType:
    """The weight's type in its primal layout (``OIHW``, ``NK``)."""
    parsed = _layout(cls, layout, "kernel layout")
    if parsed.primal != primal:
        raise RelayTypeError(
            f"'{cls.name}' expects a packed {primal} weight layout, got '{layout}'"
        )
    try:
        extents = parsed.primal_shape(weight.get_shape())
    except ValueError as e:
        raise RelayTypeError(f"'{cls.name}' weight {shape_str(weight.get_shape())}: {e}") from None
    return TensorType(weight.element_type, [extents[a] for a in primal])


@irdl_op_definition
class LayoutTransformOp(RelayOp):
    """A tensor in layout ``src_layout`` rewritten in ``dst_layout`` (the same
    primal axes; sub-axes must divide their axis).

    ```mlir
    %p = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<32x8x3x3xf32>) -> tensor<2x8x3x3x16xf32>
    ```
    """

    name = "relay.layout_transform"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    src_layout = prop_def(StringAttr)
    dst_layout = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(self, data: SSAValue, src_layout: str, dst_layout: str):
        super().__init__(data, src_layout=src_layout, dst_layout=dst_layout)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        src, dst = attrs["src_layout"], attrs["dst_layout"]
        for name in (src, dst):
            _layout(cls, name, "layout")
        try:
            shape = transform_shape(data.get_shape(), src, dst)
        except ValueError as e:
            raise RelayTypeError(
                f"'{cls.name}' cannot take {shape_str(data.get_shape())} from '{src}' "
                f"to '{dst}': {e}"
            ) from None
        return [TensorType(data.element_type, shape)]


def data_channel_block(cls: type[RelayOp], layout: str, multiple: int = 4) -> int:
    """``c`` of a conv's data layout ``"NCHW<c>c"`` (a multiple of
    ``multiple``: 4 for the int8 convs, whole words of four channels), 0
    for ``"NCHW"``."""
    if layout == "NCHW":
        return 0
    parsed = _layout(cls, layout, "data layout")
    subs = parsed.axes[4:]
    if parsed.primal != "NCHW" or len(subs) != 1 or subs[0][0] != "c" or subs[0][1] % multiple:
        what = f" with c a multiple of {multiple}" if multiple > 1 else ""
        raise RelayTypeError(
            f"'{cls.name}' expects data layout 'NCHW' or 'NCHW<c>c'{what}, got '{layout}'"
        )
    return subs[0][1]


@irdl_op_definition
class Conv2dPackedOp(RelayOp):
    """``relay.nn.conv2d`` (NCHW data and result) on a weight packed in
    ``kernel_layout`` ``"OIHW<b>o"``: ``[O/b, C/groups, KH, KW, b]``.
    Attributes as ``relay.nn.conv2d``; ``b`` divides ``O / groups``.

    ``data_layout`` ``"NCHW<c>c"`` (``groups = 1``; TVM's
    ``conv2d_NCHWc``) takes the data blocked, ``[N, C/c, H, W, c]``, and
    gives the result blocked by the weight's ``b``: ``[N, O/b, OH, OW, b]``
    (``NCHW<b>c``), each pixel's ``b`` channels one vector
    (``relay-convert-layout`` keeps float activations so between the
    convs). ``out_layout = "NCHW<b>c"`` gives NCHW data (a stem's 3
    channels) the blocked result too. ``out_shuffle = groups`` (NCHW, a
    grouped conv) gives the result's channels in the order of a channel
    shuffle of ``groups`` groups (ShuffleNet's reshape to ``[N, G, O/G, H,
    W]``, transpose of axes 1 and 2, reshape back): result channel ``c``
    is the conv's channel ``(c % G)·O/G + c / G``.

    ```mlir
    %y = relay.nn.contrib_conv2d_packed %x, %p {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32>
    %z = relay.nn.contrib_conv2d_packed %b, %p {kernel_layout = "OIHW16o", data_layout = "NCHW8c"} : (tensor<1x1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x2x6x6x16xf32>
    ```
    """

    name = "relay.nn.contrib_conv2d_packed"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    kernel_layout = prop_def(StringAttr)
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    groups = prop_def(IntegerAttr, default_value=i64_attr(1))
    data_layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    out_layout = prop_def(StringAttr, default_value=StringAttr(""))
    out_shuffle = prop_def(IntegerAttr, default_value=i64_attr(0))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        kernel_layout: str,
        strides: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        dilation: Sequence[int] | None = None,
        groups: int | None = None,
        data_layout: str | None = None,
        out_layout: str | None = None,
        out_shuffle: int | None = None,
    ):
        super().__init__(
            data,
            weight,
            kernel_layout=kernel_layout,
            strides=strides,
            padding=padding,
            dilation=dilation,
            groups=groups,
            data_layout=data_layout,
            out_layout=out_layout,
            out_shuffle=out_shuffle,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        oihw = _unpacked(cls, weight, attrs["kernel_layout"], "OIHW")
        block = Layout.parse(attrs["kernel_layout"]).factor("O")
        if (oihw.get_shape()[0] // attrs["groups"]) % block:
            raise RelayTypeError(
                f"'{cls.name}' output-channel block {block} does not divide the "
                f"{oihw.get_shape()[0] // attrs['groups']} output channels of a group"
            )
        chans = data_channel_block(cls, attrs["data_layout"], multiple=1)
        out_layout = attrs["out_layout"]
        if out_layout not in ("", f"NCHW{block}c"):
            raise RelayTypeError(
                f"'{cls.name}' out_layout must be '' (as the data) or 'NCHW{block}c' (the "
                f"weight's block), got '{out_layout}'"
            )
        ds = data.get_shape()
        if chans and (len(ds) != 5 or ds[4] != chans or attrs["groups"] != 1):
            raise RelayTypeError(
                f"'{cls.name}' data {shape_str(ds)} must be [N, C/{chans}, H, W, {chans}] "
                f"({attrs['data_layout']}) with groups = 1"
            )
        shuffle = attrs.get("out_shuffle", 0)
        if shuffle and (chans or out_layout or shuffle != attrs["groups"] or shuffle < 2):
            raise RelayTypeError(
                f"'{cls.name}' out_shuffle = {shuffle} needs NCHW data and result and equals "
                f"the conv's groups ({attrs['groups']}), at least 2"
            )
        nchw = TensorType(data.element_type, [ds[0], ds[1] * chans, *ds[2:4]]) if chans else data
        conv_attrs = {k: attrs[k] for k in ("strides", "padding", "dilation", "groups")}
        (out,) = Conv2dOp.infer([nchw, oihw], conv_attrs)
        if not chans and not out_layout:
            return [out]
        n, o, oh, ow = out.get_shape()
        return [TensorType(out.element_type, [n, o // block, oh, ow, block])]


def _int8_block(cls: type[RelayOp], layout: str, primal: str = "OIHW") -> int:
    """``b`` of an int8 weight layout ``"OIHW<b>o4i"`` (``"NK<b>n4k"`` for
    ``primal = "NK"``): ``b`` output channels, then four reduction ones."""
    parsed = _layout(cls, layout, "weight layout")
    out, red = primal[0].lower(), primal[1].lower()
    subs = parsed.axes[len(primal) :]
    if parsed.primal != primal or [a for a, _ in subs] != [out, red] or subs[1][1] != 4:
        raise RelayTypeError(
            f"'{cls.name}' expects weight layout '{primal}<b>{out}4{red}', got '{layout}'"
        )
    return subs[0][1]


def _check_int8_operands(cls: type[RelayOp], data: TensorType, weight: TensorType) -> None:
    """The int8 kernels take ``ui8`` data and ``i32`` weight words."""
    if data.element_type != element_type("uint8") or weight.element_type != i32:
        raise RelayTypeError(
            f"'{cls.name}' takes ui8 data and an i32 packed weight, got "
            f"{data.element_type} and {weight.element_type}"
        )


@irdl_op_definition
class Conv2dInt8PackedOp(RelayOp):
    """``relay.nn.conv2d`` of ``ui8`` data (NCHW) and an ``i8`` weight, accumulated in ``i32`` (TVM's ``contrib_conv2d_NCHWc_int8``
    weight packing). The weight is packed ``kernel_layout`` ``"OIHW<b>o4i"``
    with the four input channels of a group in one ``i32`` word (byte ``k``,
    little-endian, holds input channel ``4·c + k``): ``[O/b, ceil(C/4), KH,
    KW, b]`` of ``i32``, input channels past ``C`` zero. One ``b``-word row is
    the weight operand of an AVX-512 VNNI ``vpdpbusd``. Attributes as
    ``relay.nn.conv2d`` (``groups = 1``); the result is ``i32``.

    ``data_layout`` ``"NCHW<c>c"`` (``c`` a multiple of 4; TVM's
    ``conv2d_NCHWc_int8``) takes the data blocked, ``[N, C/c, H, W, c]``, so
    that each 4-channel word is four adjacent bytes, and gives the result
    blocked by the weight's ``b``: ``[N, O/b, OH, OW, b]`` (``NCHW<b>c``),
    each pixel's ``b`` channels one vector (``relay-int8-nchwc`` keeps int8
    activations so between the convs). ``out_layout = "NCHW<b>c"`` gives
    NCHW data (too few channels to block, as a network's stem) the blocked
    result too. ``pad_value`` is the u8 value of the padding (0; a data
    zero point when ``relay-int8-nchwc`` absorbs the explicit pad of a
    quantized conv).

    ```mlir
    %y = relay.nn.contrib_conv2d_int8_packed %x, %p {kernel_layout = "OIHW16o4i", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x32x8x8xi32>
    %z = relay.nn.contrib_conv2d_int8_packed %b, %p {kernel_layout = "OIHW16o4i", data_layout = "NCHW8c"} : (tensor<1x1x8x8x8xui8>, tensor<2x2x3x3x16xi32>) -> tensor<1x2x6x6x16xi32>
    ```
    """

    name = "relay.nn.contrib_conv2d_int8_packed"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    kernel_layout = prop_def(StringAttr)
    strides = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    padding = prop_def(DenseArrayBase, default_value=int_array([0, 0, 0, 0]))
    dilation = prop_def(DenseArrayBase, default_value=int_array([1, 1]))
    data_layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    out_layout = prop_def(StringAttr, default_value=StringAttr(""))
    pad_value = prop_def(IntegerAttr, default_value=i64_attr(0))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    def __init__(
        self,
        data: SSAValue,
        weight: SSAValue,
        kernel_layout: str,
        strides: Sequence[int] | None = None,
        padding: Sequence[int] | None = None,
        dilation: Sequence[int] | None = None,
        data_layout: str | None = None,
        out_layout: str | None = None,
        pad_value: int | None = None,
    ):
        super().__init__(
            data,
            weight,
            kernel_layout=kernel_layout,
            strides=strides,
            padding=padding,
            dilation=dilation,
            data_layout=data_layout,
            out_layout=out_layout,
            pad_value=pad_value,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        block = _int8_block(cls, attrs["kernel_layout"])
        _check_int8_operands(cls, data, weight)
        chans = data_channel_block(cls, attrs["data_layout"])
        ds, ws = data.get_shape(), weight.get_shape()
        rank = 5 if chans else 4
        nchw = [ds[0], ds[1] * chans, *ds[2:4]] if chans and len(ds) == 5 else ds
        if (
            len(ds) != rank
            or (chans and ds[4] != chans)
            or len(ws) != 5
            or ws[4] != block
            or ws[1] != -(-nchw[1] // 4)
        ):
            raise RelayTypeError(
                f"'{cls.name}' data {shape_str(ds)} ({attrs['data_layout']}) does not fit the "
                f"packed weight {shape_str(ws)} ([O/{block}, ceil(C/4), KH, KW, {block}])"
            )
        oihw = TensorType(data.element_type, [product([ws[0], block]), nchw[1], ws[2], ws[3]])
        conv_attrs = {k: attrs[k] for k in ("strides", "padding", "dilation")}
        conv_attrs |= {"groups": 1, "out_dtype": "int32"}
        (out,) = Conv2dOp.infer([TensorType(data.element_type, nchw), oihw], conv_attrs)
        out_layout = attrs["out_layout"]
        if not 0 <= attrs["pad_value"] <= 255:
            raise RelayTypeError(
                f"'{cls.name}' pad_value must be a u8 value (0..255), got {attrs['pad_value']}"
            )
        if out_layout not in ("", f"NCHW{block}c"):
            raise RelayTypeError(
                f"'{cls.name}' out_layout must be '' (as the data) or 'NCHW{block}c' (the "
                f"weight's block), got '{out_layout}'"
            )
        if not chans and not out_layout:
            return [out]
        n, o, oh, ow = out.get_shape()
        return [TensorType(out.element_type, [n, ws[0], oh, ow, block])]


@irdl_op_definition
class DenseInt8PackedOp(RelayOp):
    """``relay.nn.dense`` of ``ui8`` data ``[M, K]`` and an ``i8`` weight,
    accumulated in ``i32`` (the VNNI form of TVM's int8 ``dense``). The
    weight is packed ``weight_layout`` ``"NK<b>n4k"`` with the four
    reduction elements of a group in one ``i32`` word (byte ``k``,
    little-endian, holds ``4·g + k``): ``[N/b, ceil(K/4), b]`` of ``i32``,
    elements past ``K`` zero; one ``b``-word row is the weight operand of a
    ``vpdpbusd``. The result is ``[M, N]`` ``i32``.

    ```mlir
    %y = relay.nn.contrib_dense_int8_packed %x, %p {weight_layout = "NK16n4k"} : (tensor<2x10xui8>, tensor<2x3x16xi32>) -> tensor<2x32xi32>
    ```
    """

    name = "relay.nn.contrib_dense_int8_packed"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    weight_layout = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    def __init__(self, data: SSAValue, weight: SSAValue, weight_layout: str):
        super().__init__(data, weight, weight_layout=weight_layout)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        weight = tensor_type(cls, operand_types[1], "weight")
        block = _int8_block(cls, attrs["weight_layout"], "NK")
        _check_int8_operands(cls, data, weight)
        ds, ws = data.get_shape(), weight.get_shape()
        if len(ds) != 2 or len(ws) != 3 or ws[2] != block or ws[1] != -(-ds[1] // 4):
            raise RelayTypeError(
                f"'{cls.name}' data {shape_str(ds)} ([M, K]) does not fit the packed weight "
                f"{shape_str(ws)} ([N/{block}, ceil(K/4), {block}])"
            )
        return [TensorType(i32, [ds[0], product([ws[0], block])])]


@irdl_op_definition
class DensePackOp(RelayOp):
    """``relay.nn.dense`` on a weight packed in ``weight_layout`` ``"NK<b>n"``:
    ``[N/b, K, b]``.

    ```mlir
    %y = relay.nn.contrib_dense_pack %x, %p {weight_layout = "NK16n"} : (tensor<1x64xf32>, tensor<4x64x16xf32>) -> tensor<1x64xf32>
    ```
    """

    name = "relay.nn.contrib_dense_pack"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    weight_layout = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "weight")

    def __init__(self, data: SSAValue, weight: SSAValue, weight_layout: str):
        super().__init__(data, weight, weight_layout=weight_layout)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        weight = tensor_type(cls, operand_types[1], "weight")
        nk = _unpacked(cls, weight, attrs["weight_layout"], "NK")
        return DenseOp.infer([operand_types[0], nk], {})
