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
elementwise ops after it (the requantize epilogue: bias add, casts, scale,
round, zero point, clip; the residual add) and channel concatenations of
such transforms (SqueezeNet's fire modules) and max pools (as 3-d pools
with a window of 1 along the block), converting their other operand:
a scalar stays, a per-channel ``[1, C, 1, 1]`` (or ``[C]`` of a bias add)
is transformed too (a constant: ``relay-fold-constant`` does it once), a
value that is itself such a transform is read before it, another tensor of
the full shape is transformed. Where a transform back meets the next conv's
transform forward, the two cancel: the activations stay blocked, and only
what still reads NCHW (a pool, the classifier) gets a transform back.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects.relay import (
    AddOp,
    BiasAddOp,
    CastOp,
    ClipOp,
    ConstOp,
    ConcatenateOp,
    Conv2dInt8PackedOp,
    DivideOp,
    FloorOp,
    LayoutTransformOp,
    MaxPool2dOp,
    MaxPool3dOp,
    MaximumOp,
    MinimumOp,
    MultiplyOp,
    PadOp,
    ReluOp,
    ReshapeOp,
    RoundOp,
    SubtractOp,
)
from xtvm.constants import numpy_from_const
from xtvm.dtypes import element_type
from xtvm.layout import Layout
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite

DATA_BLOCKS = (16, 8, 4)
"""Input-channel blocks of the blocked data, most preferred first (whole
4-byte words of channels, a vector's bytes at most)."""


def _blocked(layout: str) -> int:
    """``c`` of a layout ``"NCHW<c>c"`` (``c`` a multiple of 4), else 0."""
    try:
        parsed = Layout.parse(layout)
    except ValueError:
        return 0
    subs = parsed.axes[4:]
    if parsed.primal != "NCHW" or len(subs) != 1 or subs[0][0] != "c" or subs[0][1] % 4:
        return 0
    return subs[0][1]


def _unblocking(op: Operation | None) -> int:
    """``c`` when ``op`` is ``layout_transform(NCHW<c>c -> NCHW)``, else 0."""
    if not isinstance(op, LayoutTransformOp) or op.dst_layout.data != "NCHW":
        return 0
    return _blocked(op.src_layout.data)


def _data_block(x: SSAValue) -> int:
    """The block the conv reads ``x`` in: the one it already has if it is
    a transform back from blocked data, else the largest that divides its
    channels; 0 for fewer than 4 or a channel count not a multiple of 4."""
    channels = x.type.get_shape()[1]
    if (c := _unblocking(x.owner)) and channels % c == 0:
        return c
    return next((c for c in DATA_BLOCKS if channels % c == 0), 0)


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


def _inverse(x: SSAValue, inner: LayoutTransformOp, root: LayoutTransformOp) -> bool:
    return (
        inner.src_layout.data == root.dst_layout.data
        and inner.dst_layout.data == root.src_layout.data
    )


def _sink_unary(x: SSAValue, lt: LayoutTransformOp, root: Operation) -> list[Operation]:
    moved = type(root)(x, **root.attrs)
    return [moved, LayoutTransformOp(moved.results[0], lt.src_layout.data, "NCHW")]


def _operand_kind(y: SSAValue, layout: str, nchw: list[int]) -> str | None:
    """How ``y``, an operand broadcasting against an NCHW tensor of shape
    ``nchw``, becomes an operand of the blocked op: ``"scalar"`` (as it
    is), ``"unblocked"`` (a transform back from ``layout``: read before
    it), ``"full"`` or ``"per-channel"`` (transformed); None when its shape
    allows none."""
    shape = list(y.type.get_shape())
    if len(shape) > 4:
        return None
    if all(d == 1 for d in shape):
        return "scalar"
    if _unblocking(y.owner) and y.owner.src_layout.data == layout:
        return "unblocked"
    if shape == nchw:
        return "full"
    if len(shape) >= 3 and shape[-3:] == [nchw[1], 1, 1] and all(d == 1 for d in shape[:-3]):
        return "per-channel"
    return None


def _operand_in(y: SSAValue, layout: str, nchw: list[int]) -> tuple[list[Operation], SSAValue]:
    """``y`` as an operand of the blocked op (see :func:`_operand_kind`),
    with the ops that make it."""
    kind = _operand_kind(y, layout, nchw)
    if kind == "scalar":
        return [], y
    if kind == "unblocked":
        return [], y.owner.data
    ops: list[Operation] = []
    if kind == "per-channel" and len(y.type.get_shape()) != 4:
        ops.append(ReshapeOp(y, [1, nchw[1], 1, 1]))
        y = ops[-1].results[0]
    ops.append(LayoutTransformOp(y, "NCHW", layout))
    return ops, ops[-1].results[0]


def _sinkable_binary(x: SSAValue, y: SSAValue, lt: LayoutTransformOp) -> bool:
    nchw = list(lt.result.type.get_shape())
    return _unblocking(lt) > 0 and _operand_kind(y, lt.src_layout.data, nchw) is not None


def _sink_binary(x: SSAValue, y: SSAValue, lt: LayoutTransformOp, root: Operation) -> list[Operation]:
    layout = lt.src_layout.data
    ops, other = _operand_in(y, layout, list(lt.result.type.get_shape()))
    lhs_blocked = root.operands[0] == lt.result
    operands = (x, other) if lhs_blocked else (other, x)
    moved = type(root)(*operands, **root.attrs)
    return [*ops, moved, LayoutTransformOp(moved.results[0], layout, "NCHW")]


def _sink_bias_add(x: SSAValue, b: SSAValue, lt: LayoutTransformOp) -> list[Operation]:
    layout = lt.src_layout.data
    channels = b.type.get_shape()[0]
    shaped = ReshapeOp(b, [1, channels, 1, 1])
    bias = LayoutTransformOp(shaped.result, "NCHW", layout)
    added = AddOp(x, bias.result)
    return [shaped, bias, added, LayoutTransformOp(added.result, layout, "NCHW")]


def _blocked_concat(root: ConcatenateOp) -> bool:
    """A channel concatenation of transforms back from one blocked layout."""
    inputs = list(root.operands)
    layouts = {op.src_layout.data if _unblocking(op := v.owner) else None for v in inputs}
    rank = len(root.result.type.get_shape())
    return rank == 4 and root.attrs["axis"] % 4 == 1 and len(layouts) == 1 and None not in layouts


def _sink_concat(root: ConcatenateOp) -> list[Operation]:
    layout = root.operands[0].owner.src_layout.data
    joined = ConcatenateOp([v.owner.data for v in root.operands], axis=1)
    return [joined, LayoutTransformOp(joined.result, layout, "NCHW")]


def _sink_max_pool(x: SSAValue, lt: LayoutTransformOp, root: MaxPool2dOp) -> list[Operation]:
    """The 2-d pool of blocked ``[N, C/c, H, W, c]`` data is a 3-d pool
    with a window of 1 along ``c``: the same maxima, each pixel's ``c``
    channels one vector."""
    a = root.attrs
    top, left, bottom, right = a["padding"]
    pool = MaxPool3dOp(
        x,
        [*a["pool_size"], 1],
        [*a["strides"], 1],
        [*a["dilation"], 1],
        [top, left, 0, bottom, right, 0],
        a["ceil_mode"],
    )
    return [pool, LayoutTransformOp(pool.result, lt.src_layout.data, "NCHW")]


def _blocked_source(name: str = "lt") -> Pat:
    return Pat(LayoutTransformOp, "x", name=name)


UNARY = (CastOp, RoundOp, ClipOp, ReluOp, FloorOp)
"""Elementwise ops of one operand a transform back moves through."""

COMMUTATIVE = (AddOp, MultiplyOp, MaximumOp, MinimumOp)
"""Broadcasting binary ops it moves through from either operand."""

LEFT_ONLY = (SubtractOp, DivideOp)
"""Broadcasting binary ops it moves through from the left operand."""


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
        Pat(LayoutTransformOp, Pat(LayoutTransformOp, "x", name="inner")),
        when=[_inverse],
        to="x",
        name="layout-transform-cancel",
        doc="layout_transform(layout_transform(x, A -> B), B -> A) = x",
    ),
    *[
        rewrite(
            Pat(op, _blocked_source()),
            when=[lambda lt: _unblocking(lt) > 0],
            to=_sink_unary,
            name=f"sink-unblocking-{op.name.split('.')[-1]}",
            doc=f"{op.name}(layout_transform(x, NCHW<c>c -> NCHW)) ="
            f" layout_transform({op.name}(x), NCHW<c>c -> NCHW)",
        )
        for op in UNARY
    ],
    *[
        rewrite(
            Pat(op, _blocked_source(), "y", commutative=op in COMMUTATIVE),
            when=[_sinkable_binary],
            to=_sink_binary,
            name=f"sink-unblocking-{op.name.split('.')[-1]}",
            doc=f"{op.name}(layout_transform(x, NCHW<c>c -> NCHW), y) ="
            f" layout_transform({op.name}(x, y'), NCHW<c>c -> NCHW), y a scalar, per-channel"
            " [1, C, 1, 1] or full-shape tensor (y' transformed) or such a transform back",
        )
        for op in (*COMMUTATIVE, *LEFT_ONLY)
    ],
    rewrite(
        Pat(ConcatenateOp),
        when=[_blocked_concat],
        to=_sink_concat,
        name="sink-unblocking-concatenate",
        doc="concatenate(layout_transform(x_i, NCHW<c>c -> NCHW), axis = 1) ="
        " layout_transform(concatenate(x_i, axis = 1), NCHW<c>c -> NCHW) (whole blocks)",
    ),
    rewrite(
        Pat(MaxPool2dOp, _blocked_source()),
        when=[lambda lt: _unblocking(lt) > 0],
        to=_sink_max_pool,
        name="sink-unblocking-max-pool2d",
        doc="max_pool2d(layout_transform(x, NCHW<c>c -> NCHW)) = layout_transform(max_pool3d(x)"
        " with a window, stride and dilation of 1 and no padding along c, NCHW<c>c -> NCHW)",
    ),
    rewrite(
        Pat(BiasAddOp, _blocked_source(), "b"),
        when=[lambda lt, root: _unblocking(lt) > 0 and root.attrs["axis"] in (1, -3)],
        to=_sink_bias_add,
        name="sink-unblocking-bias-add",
        doc="bias_add(layout_transform(x, NCHW<c>c -> NCHW), b) = layout_transform(x +"
        " layout_transform(reshape(b, [1, C, 1, 1]), NCHW -> NCHW<c>c), NCHW<c>c -> NCHW)",
    ),
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


