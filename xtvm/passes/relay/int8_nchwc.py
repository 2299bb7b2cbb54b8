"""``relay-int8-nchwc``: keep a quantized network's u8 activations blocked
``NCHW<c>c`` from one int8 conv to the next (TVM's ``ConvertLayout`` to
``NCHWc`` for its ``conv2d_NCHWc_int8``).

``relay-alter-op-layout`` leaves ``relay.nn.contrib_conv2d_int8_packed`` on
NCHW data; its kernel then packs the data into words on every call and
stores each output pixel's channels ``H·W`` apart. This pass gives every
such conv (at least 4 input channels, a multiple of 4) blocked data and a
blocked result, between two ``relay.layout_transform``:

    conv(x) = layout_transform(conv'(layout_transform(x, NCHW -> NCHW16c)), NCHW16c -> NCHW)

(a stem conv, whose 3 input channels make no word, keeps NCHW data and
gives the blocked result: ``out_layout``)

and moves each ``layout_transform(y, NCHW<c>c -> NCHW)`` down through the
requantize epilogue (bias add, casts, scale, round, zero point, clip), the
residual add, channel concatenations (SqueezeNet's fire modules) and max
pools, cancelling it against the next conv's transform forward
(:mod:`xtvm.passes.relay.blocked_layout`, shared with the float convs'
``relay-convert-layout``): the activations stay blocked, and only what
still reads NCHW (a pool, the classifier) gets a transform back.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.constants import numpy_from_const
from xtvm.dialects.relay import ConstOp, Conv2dInt8PackedOp, LayoutTransformOp, PadOp, SumOp
from xtvm.dtypes import element_type
from xtvm.passes.relay.blocked_layout import SINK_RULES, data_block, unblocking
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite


def _data_block(x: SSAValue) -> int:
    """The block an int8 conv reads ``x`` in (:func:`data_block`: whole
    4-byte words of channels); 0 for fewer than 4 or a channel count not a
    multiple of 4."""
    return data_block(x, multiple=4)


def _nchw_int8_conv(x: SSAValue, root: Conv2dInt8PackedOp) -> bool:
    return (
        root.data_layout.data == "NCHW"
        and x.type.element_type == element_type("uint8")
        and len(x.type.get_shape()) == 4
        and _data_block(x) > 0
    )


def conv_nchwc(x: SSAValue, w: SSAValue, root: Conv2dInt8PackedOp) -> list[Operation]:
    data_layout = f"NCHW{_data_block(x)}c"
    blocked = LayoutTransformOp(x, "NCHW", data_layout)
    attrs = root.attrs
    conv = Conv2dInt8PackedOp(
        blocked.result,
        w,
        attrs["kernel_layout"],
        attrs["strides"],
        attrs["padding"],
        attrs["dilation"],
        data_layout,
        pad_value=attrs["pad_value"],
    )
    out_layout = f"NCHW{w.type.get_shape()[4]}c"
    return [blocked, conv, LayoutTransformOp(conv.result, out_layout, "NCHW")]


def _stem_int8_conv(x: SSAValue, root: Conv2dInt8PackedOp) -> bool:
    return (
        root.data_layout.data == "NCHW"
        and root.out_layout.data == ""
        and len(x.type.get_shape()) == 4
        and _data_block(x) == 0
    )


def conv_blocked_result(x: SSAValue, w: SSAValue, root: Conv2dInt8PackedOp) -> list[Operation]:
    attrs = root.attrs
    out_layout = f"NCHW{w.type.get_shape()[4]}c"
    conv = Conv2dInt8PackedOp(
        x,
        w,
        attrs["kernel_layout"],
        attrs["strides"],
        attrs["padding"],
        attrs["dilation"],
        out_layout=out_layout,
        pad_value=attrs["pad_value"],
    )
    return [conv, LayoutTransformOp(conv.result, out_layout, "NCHW")]


def _absorbable_pad(pad: PadOp, value: ConstOp, root: Conv2dInt8PackedOp) -> bool:
    """A constant-value pad of H and W only, feeding an unpadded NCHW conv."""
    widths = pad.attrs["pad_width"]
    return (
        root.data_layout.data == "NCHW"
        and not any(root.attrs["padding"])
        and pad.attrs["pad_mode"] == "constant"
        and len(widths) == 8
        and not any(widths[:4])
        and numpy_from_const(value).size == 1
    )


def conv_absorbing_pad(
    x: SSAValue, value: ConstOp, pad: PadOp, w: SSAValue, root: Conv2dInt8PackedOp
) -> list[Operation]:
    top, bottom, left, right = pad.attrs["pad_width"][4:]
    attrs = root.attrs
    return [
        Conv2dInt8PackedOp(
            x,
            w,
            attrs["kernel_layout"],
            attrs["strides"],
            [top, left, bottom, right],
            attrs["dilation"],
            out_layout=attrs["out_layout"] or None,
            pad_value=int(numpy_from_const(value).reshape(())),
        )
    ]


def _plane_sum(x: SSAValue, lt: LayoutTransformOp, root: SumOp) -> bool:
    """A sum over H and W, keeping them, of a transform back from blocked data."""
    return (
        unblocking(lt) > 0
        and root.keepdims.value.data
        and SumOp.reduced_axes(4, root.attrs) == [2, 3]
    )


def sum_blocked(x: SSAValue, lt: LayoutTransformOp, root: SumOp) -> list[Operation]:
    total = SumOp(x, axis=[2, 3], keepdims=True)
    return [total, LayoutTransformOp(total.result, lt.src_layout.data, "NCHW")]


RULES: list[Rule] = [
    rewrite(
        Pat(Conv2dInt8PackedOp, Pat(PadOp, "x", Pat(ConstOp, name="value"), name="pad"), "w"),
        when=[_absorbable_pad],
        to=conv_absorbing_pad,
        name="int8-conv-absorb-pad",
        doc="contrib_conv2d_int8_packed(pad(x, v) along H and W) = the conv padding x itself"
        " with pad_value = v (a quantized stem's zero point: the pad no longer widens the"
        " input quantize's rows)",
    ),
    rewrite(
        Pat(Conv2dInt8PackedOp, "x", "w"),
        when=[_nchw_int8_conv],
        to=conv_nchwc,
        name="int8-conv-nchwc",
        doc="contrib_conv2d_int8_packed(x: NCHW u8) = layout_transform(conv on"
        " layout_transform(x, NCHW -> NCHW<c>c), NCHW<b>c -> NCHW), c = the block x already"
        " has, else 16, 8 or 4 dividing C",
    ),
    rewrite(
        Pat(Conv2dInt8PackedOp, "x", "w"),
        when=[_stem_int8_conv],
        to=conv_blocked_result,
        name="int8-conv-blocked-result",
        doc="contrib_conv2d_int8_packed(x: NCHW u8 of channels not a multiple of 4, a stem's) ="
        " layout_transform(the conv with out_layout NCHW<b>c, NCHW<b>c -> NCHW)",
    ),
    rewrite(
        Pat(SumOp, Pat(LayoutTransformOp, "x", name="lt")),
        when=[_plane_sum],
        to=sum_blocked,
        name="sink-unblocking-plane-sum",
        doc="sum(layout_transform(x, NCHW<c>c -> NCHW), axis = [2, 3], keepdims) ="
        " layout_transform(sum(x, axis = [2, 3], keepdims), NCHW<c>c -> NCHW): the integer"
        " global average pool (avg-pool2d-global-integer) sums the blocked plane, exact in"
        " any order, and only the [N, C/c, 1, 1, c] sums are transformed back",
    ),
    *SINK_RULES,
]


@documents_rules(RULES)
@dataclass(frozen=True)
class Int8NchwcPass(ModulePass):
    """Run the int8 convs on blocked u8 activations and keep them blocked
    through the requantize epilogues and residual adds (see the module).

    Input: relay after ``relay-alter-op-layout``. Output: the same values;
    ``relay.nn.contrib_conv2d_int8_packed`` with ``data_layout =
    "NCHW<c>c"``, elementwise ops on blocked tensors, ``layout_transform``
    only where an NCHW consumer or producer remains.

    ```mlir
    %a = relay.nn.contrib_conv2d_int8_packed %x, %w1 {kernel_layout = "OIHW16o4i"} : (tensor<1x16x8x8xui8>, tensor<2x4x1x1x16xi32>) -> tensor<1x32x8x8xi32>
    %q = relay.cast %a {dtype = "uint8"} : (tensor<1x32x8x8xi32>) -> tensor<1x32x8x8xui8>
    %b = relay.nn.contrib_conv2d_int8_packed %q, %w2 {kernel_layout = "OIHW16o4i"} : (tensor<1x32x8x8xui8>, tensor<1x8x1x1x16xi32>) -> tensor<1x16x8x8xi32>
    // becomes
    %0 = relay.layout_transform %x {src_layout = "NCHW", dst_layout = "NCHW16c"} : (tensor<1x16x8x8xui8>) -> tensor<1x1x8x8x16xui8>
    %1 = relay.nn.contrib_conv2d_int8_packed %0, %w1 {kernel_layout = "OIHW16o4i", data_layout = "NCHW16c"} : (tensor<1x1x8x8x16xui8>, tensor<2x4x1x1x16xi32>) -> tensor<1x2x8x8x16xi32>
    %2 = relay.cast %1 {dtype = "uint8"} : (tensor<1x2x8x8x16xi32>) -> tensor<1x2x8x8x16xui8>
    %3 = relay.nn.contrib_conv2d_int8_packed %2, %w2 {kernel_layout = "OIHW16o4i", data_layout = "NCHW16c"} : (tensor<1x2x8x8x16xui8>, tensor<1x8x1x1x16xi32>) -> tensor<1x1x8x8x16xi32>
    %b = relay.layout_transform %3 {src_layout = "NCHW16c", dst_layout = "NCHW"} : (tensor<1x1x8x8x16xi32>) -> tensor<1x16x8x8xi32>
    ```
    """

    name = "relay-int8-nchwc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_rules(op, RULES)
