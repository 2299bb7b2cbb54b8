"""``relay-alter-op-layout``: give the heavy ops the weight layouts their x86
kernels read (TVM's ``AlterOpLayout`` with the x86 ``conv2d_alter_layout``
and ``dense_alter_layout`` hooks).

A float ``relay.nn.conv2d`` becomes ``relay.nn.contrib_conv2d_packed`` on a
``relay.layout_transform`` of its weight to ``OIHW<b>o``, and a 2-d float
``relay.nn.dense`` becomes ``relay.nn.contrib_dense_pack`` on ``NK<b>n``;
``b`` is :func:`xtvm.topi.x86.config.conv2d_block` / ``dense_block`` of the
target (one vector register of output channels; the pass option ``lanes``
sets the register's f32 lanes, 0 = those of ``Target.current()``). With constant weights,
``relay-fold-constant`` then packs them once at compile time. An f32 conv
whose groups' output channels the register does not divide has them
zero-padded to a multiple of it when its block would otherwise be under 4
channels (ShuffleNet's groups of 34) or the padding is small (SqueezeNet's
1000 classes): the padded channels are computed and sliced off
(``conv2d-packed-padded``). Such a slice of a conv's channels moves down
through the bias add, relu and global pool after it (``channel-slice-sink-*``:
the padded bias is zeros), so the epilogue fuses into the conv and, once
``relay-convert-layout`` has moved its transform back through the pool, only
the pooled ``[1, 1024, 1, 1]`` is sliced (SqueezeNet's classifier,
docs/squeezenet.md). A grouped 1x1 conv that the grouped kernel
takes (:func:`xtvm.topi.x86.config.takes_grouped_kernel`:
ShuffleNet's 4 groups of 34 and 68 channels on 28x28 and 14x14) is packed
with that kernel's block instead, a divisor of a group's channels (17: no
padded channels, ``conv2d-grouped-packed``); a channel shuffle after such
a conv (through its relu and per-channel scale and shift) becomes the
conv's ``out_shuffle``, its rows stored in the shuffled order
(``conv2d-grouped-shuffled``: no copy kernel). Convolutions whose block
would be under 4 channels otherwise (depthwise ones) keep the generic kernel.

On targets with AVX-512 VNNI, a ``conv2d`` of ``ui8`` data and an ``i8``
weight (or a constant one whose values fit in ``i8``) accumulating in ``i32`` (``groups = 1``, 16 or else 8 dividing the
output channels) becomes ``relay.nn.contrib_conv2d_int8_packed`` on the
weight packed ``OIHW16o4i`` (``OIHW8o4i``) into ``i32`` words (:func:`int8_words`), which
``relay-fold-constant`` also evaluates at compile time; a ``dense`` of the
same kind becomes ``relay.nn.contrib_dense_int8_packed`` on ``NK16n4k``
(``NK8n4k``). ``vpdpbusd`` multiplies unsigned bytes by signed ones, so
``i8`` data is first shifted into ``u8`` (``x + 128``) and the product
compensated by ``128 · Σ w`` per output, a constant (onnxruntime's and
oneDNN's s8 × s8 scheme); a padded conv pads the shifted data with 128. A grouped 8-bit conv is
split into one conv per group (concatenated), each then packed; depthwise
ones keep the depthwise kernel (:mod:`xtvm.topi.x86.depthwise`), which
accumulates 8-bit values in ``i32``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.constants import dense_from_numpy, numpy_from_const
from xtvm.dialects.relay import (
    AddOp,
    BiasAddOp,
    BitwiseAndOp,
    CastOp,
    ConcatenateOp,
    ConstOp,
    Conv2dInt8PackedOp,
    Conv2dOp,
    Conv2dPackedOp,
    DenseInt8PackedOp,
    DenseOp,
    DensePackOp,
    GlobalAvgPool2dOp,
    GlobalMaxPool2dOp,
    LayoutTransformOp,
    MultiplyOp,
    PadOp,
    ReluOp,
    ReshapeOp,
    StridedSliceOp,
    SubtractOp,
    SumOp,
    TransposeOp,
)
from xtvm.dialects.relay.base import is_float
from xtvm.passes.relay.winograd import winograd_rules
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite
from xtvm.topi.x86.config import (
    conv2d_block,
    dense_block,
    grouped_block,
    has_vnni,
    lanes,
    takes_grouped_kernel,
)

MIN_BLOCK = 4
"""Smallest output-channel block worth a packed kernel."""


def _conv_block(weight: SSAValue, root: Conv2dOp, vector_lanes: int) -> int:
    assert isinstance(weight.type, TensorType)
    return conv2d_block(weight.type.get_shape()[0] // root.attrs["groups"], vector_lanes)


def conv2d_packed(x: SSAValue, w: SSAValue, root: Conv2dOp, block: int) -> list[Operation]:
    layout = f"OIHW{block}o"
    packed = LayoutTransformOp(w, "OIHW", layout)
    packed.result.name_hint = f"{w.name_hint}_packed" if w.name_hint else None
    attrs = root.attrs
    conv = Conv2dPackedOp(
        x,
        packed.result,
        layout,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=attrs["groups"],
    )
    return [packed, conv]


MAX_PADDING = 1 / 8
"""Largest share of padded (computed, then dropped) output channels
``conv2d-packed-padded`` accepts when the conv would have packed without it."""


def _padded_channels(w: SSAValue, root: Conv2dOp, vector_lanes: int) -> int | None:
    """The output channels per group a float conv is padded to, so that a
    whole vector register of channels is one block: when ``lanes`` does not
    divide a group's channels (at least half a register of them) and either
    the block would be under ``MIN_BLOCK`` (the generic kernel) or the
    padding is at most ``MAX_PADDING`` of the padded channels (SqueezeNet's
    1000 classes: 8-channel blocks, half a register, without it); else None.
    A conv of one group on AVX-512 is padded to an even number of blocks
    when that too stays within ``MAX_PADDING``: the blocked kernel's tile
    then takes two blocks (:func:`xtvm.topi.x86.conv2d.blocked_tile`; 1000
    -> 1024 rather than 1008's 63 blocks: SqueezeNet's classifier conv
    0.83 -> 0.80 ms, 1 thread, docs/squeezenet.md)."""
    groups = root.attrs["groups"]
    per_group = w.type.get_shape()[0] // groups
    if str(w.type.element_type) != "f32":
        return None
    if per_group % vector_lanes == 0 or 2 * per_group < vector_lanes:
        return None
    padded = -(-per_group // vector_lanes) * vector_lanes
    block = _conv_block(w, root, vector_lanes)
    if block >= MIN_BLOCK and padded - per_group > MAX_PADDING * padded:
        return None
    pair = 2 * vector_lanes
    even = -(-per_group // pair) * pair
    if groups == 1 and vector_lanes >= 16 and even - per_group <= MAX_PADDING * even:
        return even
    return padded


def conv2d_packed_padded(
    x: SSAValue, w: SSAValue, root: Conv2dOp, vector_lanes: int
) -> list[Operation]:
    """The conv on its weight with each group's output channels zero-padded
    to :func:`_padded_channels` (constants once folded), packed with a
    whole register a block; the padded channels dropped from the output
    (a group at a time: reshape, slice, reshape)."""
    padded = _padded_channels(w, root, vector_lanes)
    assert padded is not None
    groups = root.attrs["groups"]
    o, cg, kh, kw = w.type.get_shape()
    per_group = o // groups
    grouped = ReshapeOp(w, [groups, per_group, cg, kh, kw])
    zero = _const(np.array(0, np.float32))
    width = [0] * 10
    width[3] = padded - per_group  # after axis 1: the group's channels
    pad = PadOp(grouped.result, zero.result, width)
    flat = ReshapeOp(pad.results[0], [groups * padded, cg, kh, kw])
    flat.result.name_hint = f"{w.name_hint}_padded" if w.name_hint else None
    ops: list[Operation] = [grouped, zero, pad, flat]
    ops += conv2d_packed(x, flat.result, root, vector_lanes)
    out = ops[-1].results[0]
    n, _, oh, ow = out.type.get_shape()
    if groups == 1:
        ops.append(StridedSliceOp(out, [0], [per_group], axes=[1]))
    else:
        split = ReshapeOp(out, [n, groups, padded, oh, ow])
        kept = StridedSliceOp(split.result, [0], [per_group], axes=[2])
        ops += [split, kept, ReshapeOp(kept.result, [n, o, oh, ow])]
    return ops


def _drops_padding(s: StridedSliceOp) -> bool:
    """Whether ``s`` keeps the first channels of an NCHW tensor and all of
    its other axes, dropping at most ``MAX_PADDING`` of the channels (what
    :func:`conv2d_packed_padded` leaves of a conv of one group): ops after
    it may as well run on the padded channels before it."""
    shape, kept = s.input.type.get_shape(), s.result.type.get_shape()
    a = s.attrs
    return (
        len(shape) == 4
        and a.get("axes") == (1,)
        and a["begin"] == (0,)
        and a.get("strides", (1,)) == (1,)
        and [shape[0], *shape[2:]] == [kept[0], *kept[2:]]
        and 0 < kept[1] <= shape[1]
        and shape[1] - kept[1] <= MAX_PADDING * shape[1]
    )


def _sunk_slice(moved: Operation, s: StridedSliceOp) -> list[Operation]:
    """``moved`` (the op after ``s``, now on ``s``'s input), then ``s`` on its result."""
    kept = s.result.type.get_shape()[1]
    return [moved, StridedSliceOp(moved.results[0], [0], [kept], axes=[1])]


def slice_sink_bias_add(x: SSAValue, b: SSAValue, s: StridedSliceOp) -> list[Operation]:
    """``bias_add`` on all of ``x``'s channels (``b`` zero-padded), then the slice."""
    zero = _const(np.array(0, np.float32))
    pad = PadOp(b, zero.result, [0, x.type.get_shape()[1] - b.type.get_shape()[0]])
    return [zero, pad, *_sunk_slice(BiasAddOp(x, pad.results[0], axis=1), s)]


def _grouped_block(x: SSAValue, w: SSAValue, root: Conv2dOp, vector_lanes: int) -> int | None:
    """The block :func:`conv2d_grouped` tiles an f32 conv by, when it takes
    the conv (:func:`takes_grouped_kernel`: a grouped 1x1 conv whose groups'
    channels the register does not divide), else None."""
    shape, (o, _, kh, kw) = x.type.get_shape(), w.type.get_shape()
    if str(w.type.element_type) != "f32" or not _takes_grouped(
        shape, o, (kh, kw), root.attrs, vector_lanes
    ):
        return None
    return grouped_block(o // root.attrs["groups"], shape[2], shape[3], vector_lanes)


def _takes_grouped(
    shape: Sequence[int], out_channels: int, kernel: Sequence[int], attrs, vector_lanes: int
) -> bool:
    """Whether the grouped kernel takes a conv of static NCHW data ``shape``
    and ``attrs`` (:func:`takes_grouped_kernel`, dilation 1)."""
    return (
        len(shape) == 4
        and all(d >= 0 for d in shape)
        and tuple(attrs["dilation"]) == (1, 1)
        and takes_grouped_kernel(
            attrs["groups"],
            shape[1],
            out_channels,
            kernel,
            attrs["strides"],
            attrs["padding"],
            shape[2],
            shape[3],
            vector_lanes,
        )
    )


PER_CHANNEL_OPS = (AddOp, SubtractOp, MultiplyOp)
"""Binary ops a channel shuffle moves through when the other operand is the
same for every pixel of a channel (a folded batch norm's scale and shift)."""


def _channel_shuffle(y: SSAValue, t: TransposeOp, root: ReshapeOp) -> int | None:
    """``G`` when ``root`` is a channel shuffle of ``y``: reshape ``[N, C,
    H, W]`` → ``[N, G, C/G, H, W]``, transpose axes 1 and 2, reshape back."""
    split = t.operands[0].type.get_shape()
    if (
        len(split) != 5
        or list(t.attrs.get("axes") or []) != [0, 2, 1, 3, 4]
        or y.type != root.result.type
        or list(y.type.get_shape()) != [split[0], split[1] * split[2], *split[3:]]
    ):
        return None
    return split[1]


def _per_channel(value: SSAValue, channels: int) -> bool:
    """A value that broadcasts against ``[N, C, H, W]`` along the channels
    only (``[C, 1, 1]``, ``[1, C, 1, 1]``) or not at all (all ones)."""
    shape = list(value.type.get_shape())
    if len(shape) > 4 or any(d != 1 for d in shape[-2:]) or any(d != 1 for d in shape[:-3]):
        return False
    return len(shape) < 3 or shape[-3] in (1, channels)


def _shuffle_chain(y: SSAValue, vector_lanes: int) -> list[Operation] | None:
    """The ops from a shuffled grouped conv to ``y`` (the conv first): a
    ``contrib_conv2d_packed`` that the grouped kernel takes, then relus and
    per-channel binary ops, each the only user of the one before."""
    chain: list[Operation] = []
    value = y
    while True:
        op = value.owner
        if not isinstance(op, Operation) or not value.has_one_use():
            return None
        chain.insert(0, op)
        if isinstance(op, Conv2dPackedOp):
            break
        if isinstance(op, ReluOp):
            value = op.operands[0]
        elif isinstance(op, PER_CHANNEL_OPS):
            channels = y.type.get_shape()[1]
            inner = [v for v in op.operands if v.type == y.type]
            other = [v for v in op.operands if v is not inner[0]] if inner else []
            if len(inner) != 1 or len(other) != 1 or not _per_channel(other[0], channels):
                return None
            value = inner[0]
        else:
            return None
    conv = chain[0]
    attrs = conv.attrs
    shape = conv.operands[0].type.get_shape()
    o, _, kh, kw, b = conv.operands[1].type.get_shape()
    if (
        attrs["out_shuffle"]
        or attrs["data_layout"] != "NCHW"
        or attrs["out_layout"]
        or not _takes_grouped(shape, o * b, (kh, kw), attrs, vector_lanes)
    ):
        return None
    return chain


def _shuffles_a_grouped_conv(
    y: SSAValue, t: TransposeOp, root: ReshapeOp, vector_lanes: int
) -> bool:
    chain = _shuffle_chain(y, vector_lanes)
    return chain is not None and _channel_shuffle(y, t, root) == chain[0].attrs["groups"]


def _shuffled(value: SSAValue, groups: int) -> list[Operation]:
    """A channel shuffle of a per-channel operand (none for one without a
    channel axis): its channels reordered as the shuffled conv's."""
    shape = list(value.type.get_shape())
    if len(shape) < 3 or shape[-3] == 1:
        return []
    axis = len(shape) - 3
    split = ReshapeOp(value, [*shape[:axis], groups, shape[axis] // groups, 1, 1])
    perm = list(range(len(shape) + 1))
    perm[axis], perm[axis + 1] = axis + 1, axis
    swap = TransposeOp(split.result, perm)
    return [split, swap, ReshapeOp(swap.result, shape)]


def conv2d_grouped_shuffled(y: SSAValue, vector_lanes: int) -> list[Operation]:
    """The shuffled chain: the conv with ``out_shuffle`` (its result already
    in the shuffled order), each per-channel operand shuffled the same way
    (constants, folded at compile time)."""
    conv, *rest = _shuffle_chain(y, vector_lanes)
    groups = conv.attrs["groups"]
    a = conv.attrs
    new = Conv2dPackedOp(
        *conv.operands,
        a["kernel_layout"],
        strides=a["strides"],
        padding=a["padding"],
        dilation=a["dilation"],
        groups=groups,
        out_shuffle=groups,
    )
    ops: list[Operation] = [new]
    value, old = new.result, conv.results[0]
    for op in rest:
        if isinstance(op, ReluOp):
            ops.append(ReluOp(value))
        else:
            operands = []
            for v in op.operands:
                if v is old:
                    operands.append(value)
                else:
                    moved = _shuffled(v, groups)
                    ops += moved
                    operands.append(moved[-1].results[0] if moved else v)
            ops.append(type(op)(*operands))
        value, old = ops[-1].results[0], op.results[0]
    return ops


def dense_pack(x: SSAValue, w: SSAValue, block: int) -> list[Operation]:
    layout = f"NK{block}n"
    packed = LayoutTransformOp(w, "NK", layout)
    packed.result.name_hint = f"{w.name_hint}_packed" if w.name_hint else None
    return [packed, DensePackOp(x, packed.result, layout)]


INT8_BLOCKS = (16, 8)
"""Output channels of an int8 conv block: 16 i32 lanes (one zmm register),
else 8 (one ymm)."""


def _const(array: np.ndarray) -> ConstOp:
    return ConstOp(dense_from_numpy(array))


def int8_words(w: SSAValue, layout: str) -> list[Operation]:
    """The ops that pack an ``OIHW`` (``NK``) i8 weight into ``layout``
    (``OIHW<b>o4i``, ``NK<b>n4k``) i32 words: axis 1 zero-padded to a
    multiple of 4, the four bytes of a group as ``(b0 & 255) + (b1 &
    255)·2^8 + (b2 & 255)·2^16 + b3·2^24`` (exact in i32: the top byte
    carries the sign)."""
    ops: list[Operation] = []
    shape = w.type.get_shape()
    primal = "OIHW" if len(shape) == 4 else "NK"
    if shape[1] % 4:
        zero = _const(np.array(0, np.int8))
        width = [0] * (2 * len(shape))
        width[3] = 4 - shape[1] % 4  # after axis 1
        ops += [zero, PadOp(w, zero.result, width)]
        w = ops[-1].results[0]
    grouped = LayoutTransformOp(w, primal, layout)
    wide = CastOp(grouped.result, "int32")
    mask = _const(np.array([255, 255, 255, -1], np.int32))
    masked = BitwiseAndOp(wide.result, mask.result)
    weights = _const(np.array([1, 1 << 8, 1 << 16, 1 << 24], np.int32))
    scaled = MultiplyOp(masked.result, weights.result)
    words = SumOp(scaled.result, axis=[len(shape) + 1])
    words.result.name_hint = f"{w.name_hint}_packed" if w.name_hint else None
    return [*ops, grouped, wide, mask, masked, weights, scaled, words]


def _int8_block(w: SSAValue) -> int | None:
    channels = w.type.get_shape()[0]
    return next((b for b in INT8_BLOCKS if channels % b == 0), None)


def _int8_weight(w: SSAValue) -> bool:
    """An ``i8`` weight, or a constant integer one whose values all fit in
    ``i8`` (a ``u8`` weight minus its zero point, folded: ``ConvInteger``)."""
    element = str(w.type.element_type)
    if element == "i8":
        return True
    if element not in ("i16", "i32", "i64") or not isinstance(w.owner, ConstOp):
        return False
    values = numpy_from_const(w.owner)
    return values.size > 0 and values.min() >= -128 and values.max() <= 127


def _narrowed_words(w: SSAValue, layout: str) -> list[Operation]:
    """The ops packing ``w`` into ``layout`` words, an integer weight whose
    values all fit in ``i8`` narrowed first (exact)."""
    narrowed: list[Operation] = []
    if str(w.type.element_type) != "i8":
        narrowed = [CastOp(w, "int8")]
        w = narrowed[0].results[0]
    return narrowed + int8_words(w, layout)


def conv2d_int8_packed(x: SSAValue, w: SSAValue, root: Conv2dOp) -> list[Operation]:
    layout = f"OIHW{_int8_block(w)}o4i"
    packing = _narrowed_words(w, layout)
    attrs = root.attrs
    conv = Conv2dInt8PackedOp(
        x,
        packing[-1].results[0],
        layout,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
    )
    return [*packing, conv]


def dense_int8_packed(x: SSAValue, w: SSAValue) -> list[Operation]:
    """The packed u8 × s8 dense; data of rank above 2 flattened to rows and
    the result shaped back."""
    layout = f"NK{_int8_block(w)}n4k"
    packing = _narrowed_words(w, layout)
    shape = x.type.get_shape()
    if len(shape) == 2:
        return [*packing, DenseInt8PackedOp(x, packing[-1].results[0], layout)]
    rows = ReshapeOp(x, [-1, shape[-1]])
    dense = DenseInt8PackedOp(rows.result, packing[-1].results[0], layout)
    back = ReshapeOp(dense.result, [*shape[:-1], w.type.get_shape()[0]])
    return [*packing, rows, dense, back]


def _int8_product(x: SSAValue, w: SSAValue, root: Operation, data: str) -> bool:
    """An ``i32`` product of ``data`` (``"ui8"``, ``"i8"``) values and an
    ``i8`` (or narrowable) weight that the VNNI kernels take."""
    return (
        str(x.type.element_type) == data
        and root.attrs.get("out_dtype") == "int32"
        and root.attrs.get("groups", 1) == 1
        and _int8_block(w) is not None
        and _int8_weight(w)
    )


def _u8_s8_conv(x: SSAValue, w: SSAValue, root: Conv2dOp) -> bool:
    return _int8_product(x, w, root, "ui8")


def _u8_s8_dense(x: SSAValue, w: SSAValue, root: DenseOp) -> bool:
    return _int8_product(x, w, root, "ui8") and all(d >= 0 for d in x.type.get_shape())


def _s8_s8(x: SSAValue, w: SSAValue, root: Operation) -> bool:
    return _int8_product(x, w, root, "i8")


def _shifted_u8(x: SSAValue) -> list[Operation]:
    """``x + 128`` of i8 ``x`` as u8 (exact: ``[-128, 127]`` → ``[0, 255]``)."""
    wide = CastOp(x, "int32")
    bias = _const(np.array(128, np.int32))
    moved = AddOp(wide.result, bias.result)
    return [wide, bias, moved, CastOp(moved.result, "uint8")]


def _weight_sums_times_128(w: SSAValue, axes: list[int]) -> list[Operation]:
    """``128 · Σ_axes w`` in ``i32`` (a constant for a constant weight)."""
    wide = CastOp(w, "int32")
    sums = SumOp(wide.result, axis=axes)
    bias = _const(np.array(128, np.int32))
    return [wide, sums, bias, MultiplyOp(sums.result, bias.result)]


def conv2d_s8_shifted(x: SSAValue, w: SSAValue, root: Conv2dOp) -> list[Operation]:
    """``conv(x, w) = conv(x + 128, w) - 128 · Σ_{c,kh,kw} w`` per output
    channel, ``x + 128`` in u8 and padded with 128 (``x``'s zero)."""
    shifted = _shifted_u8(x)
    data = shifted[-1].results[0]
    attrs = root.attrs
    top, left, bottom, right = attrs["padding"]
    padded: list[Operation] = []
    if any((top, left, bottom, right)):
        fill = _const(np.array(128, np.uint8))
        padded = [fill, PadOp(data, fill.result, [0, 0, 0, 0, top, bottom, left, right])]
        data = padded[-1].results[0]
    conv = Conv2dOp(
        data, w, strides=attrs["strides"], dilation=attrs["dilation"], out_dtype="int32"
    )
    sums = _weight_sums_times_128(w, [1, 2, 3])
    per_channel = ReshapeOp(sums[-1].results[0], [1, w.type.get_shape()[0], 1, 1])
    out = SubtractOp(conv.result, per_channel.result)
    return [*shifted, *padded, conv, *sums, per_channel, out]


MAX_SPLIT_GROUPS = 64
"""Most groups a grouped int8 conv is split into (one packed conv each)."""


def _grouped_int8_conv(x: SSAValue, w: SSAValue, root: Conv2dOp) -> bool:
    """A grouped (not depthwise) 8-bit conv accumulating in ``i32`` whose
    groups each have at least 4 input channels (one ``vpdpbusd`` word) and
    an int8 block of output channels."""
    groups = root.attrs["groups"]
    o, cg = w.type.get_shape()[:2]
    return (
        1 < groups <= MAX_SPLIT_GROUPS
        and cg >= 4
        and str(x.type.element_type) in ("ui8", "i8")
        and root.attrs.get("out_dtype") == "int32"
        and next((b for b in INT8_BLOCKS if (o // groups) % b == 0), None) is not None
        and _int8_weight(w)
    )


def conv2d_int8_split_groups(x: SSAValue, w: SSAValue, root: Conv2dOp) -> list[Operation]:
    """One ``groups = 1`` conv per group (its channels of ``x``, its rows of
    ``w``: constants once folded), concatenated along the channels; each then
    takes the packed kernel."""
    attrs = root.attrs
    groups = attrs["groups"]
    o, cg = w.type.get_shape()[:2]
    og = o // groups
    ops: list[Operation] = []
    parts: list[SSAValue] = []
    for k in range(groups):
        xs = StridedSliceOp(x, [k * cg], [(k + 1) * cg], axes=[1])
        ws = StridedSliceOp(w, [k * og], [(k + 1) * og], axes=[0])
        conv = Conv2dOp(
            xs.result,
            ws.result,
            strides=attrs["strides"],
            padding=attrs["padding"],
            dilation=attrs["dilation"],
            out_dtype="int32",
        )
        ops += [xs, ws, conv]
        parts.append(conv.result)
    return [*ops, ConcatenateOp(parts, axis=1)]


def dense_s8_shifted(x: SSAValue, w: SSAValue) -> list[Operation]:
    """``dense(x, w) = dense(x + 128, w) - 128 · Σ_k w`` per output, ``x +
    128`` in u8."""
    shifted = _shifted_u8(x)
    dense = DenseOp(shifted[-1].results[0], w, out_dtype="int32")
    sums = _weight_sums_times_128(w, [1])
    return [*shifted, dense, *sums, SubtractOp(dense.result, sums[-1].results[0])]


def _plain_float_conv(x: SSAValue, w: SSAValue, root: Conv2dOp) -> bool:
    return (
        is_float(x.type.element_type)
        and root.attrs.get("out_dtype") in (None, "float32")
        and x.type.element_type == w.type.element_type
    )


def _slice_source() -> Pat:
    return Pat(StridedSliceOp, "x", name="s")


SLICE_SINK_RULES: list[Rule] = [
    rewrite(
        Pat(BiasAddOp, _slice_source(), "b"),
        when=[
            lambda s, b, root: (
                _drops_padding(s)
                and root.attrs.get("axis", 1) in (1, -3)
                and str(b.type.element_type) == "f32"
            )
        ],
        to=slice_sink_bias_add,
        name="channel-slice-sink-bias-add",
        doc="bias_add(strided_slice(x, channels [0, K)), b) = strided_slice(bias_add(x,"
        " b zero-padded to x's channels), channels [0, K)) for an f32 NCHW x of which the"
        f" slice drops at most {MAX_PADDING:g} of the channels",
    ),
    *[
        rewrite(
            Pat(op, _slice_source()),
            when=[lambda s: _drops_padding(s)],
            to=lambda x, s, root: _sunk_slice(type(root)(x, **root.attrs), s),
            name=f"channel-slice-sink-{op.name.split('.')[-1].replace('_', '-')}",
            doc=f"{op.name}(strided_slice(x, channels [0, K))) = strided_slice({op.name}(x),"
            f" channels [0, K)) for an NCHW x of which the slice drops at most"
            f" {MAX_PADDING:g} of the channels",
        )
        for op in (ReluOp, GlobalAvgPool2dOp, GlobalMaxPool2dOp)
    ],
]
"""Move a slice that drops a padded conv's extra channels below the ops after it."""


def rules(vector_lanes: int, vnni: bool = True) -> list[Rule]:
    """The rewrites for registers of ``vector_lanes`` f32 lanes (and, with
    ``vnni``, AVX-512 VNNI's int8 dot products)."""
    int8 = [
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[_u8_s8_conv],
            to=conv2d_int8_packed,
            name="conv2d-int8-packed",
            doc="conv2d(x: u8, w: i8) -> i32 = contrib_conv2d_int8_packed(x, i32 words of"
            " layout_transform(w, OIHW -> OIHW<b>o4i)) for groups = 1, b = 16 (or 8)"
            " dividing O, on AVX-512 VNNI targets",
        ),
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[_s8_s8],
            to=conv2d_s8_shifted,
            name="conv2d-s8-shifted",
            doc="conv2d(x: i8, w: i8) -> i32 = conv2d(pad(u8(x + 128), 128), w) - 128 *"
            " sum(w) per output channel (then conv2d-int8-packed), on AVX-512 VNNI targets",
        ),
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[_grouped_int8_conv],
            to=conv2d_int8_split_groups,
            name="conv2d-int8-split-groups",
            doc="a grouped 8-bit conv (at least 4 input channels a group, b = 16 or 8 dividing"
            f" a group's outputs, at most {MAX_SPLIT_GROUPS} groups) = concatenate of one"
            " groups = 1 conv per group (then conv2d-int8-packed), on AVX-512 VNNI targets",
        ),
        rewrite(
            Pat(DenseOp, "x", "w"),
            when=[_u8_s8_dense],
            to=dense_int8_packed,
            name="dense-int8-packed",
            doc="dense(x: u8, w: i8) -> i32 = contrib_dense_int8_packed(x, i32 words of"
            " layout_transform(w, NK -> NK<b>n4k)), data of rank > 2 reshaped to rows,"
            " b = 16 (or 8) dividing N, on AVX-512 VNNI targets",
        ),
        rewrite(
            Pat(DenseOp, "x", "w"),
            when=[_s8_s8],
            to=dense_s8_shifted,
            name="dense-s8-shifted",
            doc="dense(x: i8, w: i8) -> i32 = dense(u8(x + 128), w) - 128 * sum_k(w)"
            " (then dense-int8-packed), on AVX-512 VNNI targets",
        ),
    ]
    return int8 * vnni + [
        *winograd_rules(vector_lanes),
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[
                _plain_float_conv,
                lambda x, w, root: _grouped_block(x, w, root, vector_lanes) is not None,
            ],
            to=lambda x, w, root: conv2d_packed(
                x, w, root, _grouped_block(x, w, root, vector_lanes)
            ),
            name="conv2d-grouped-packed",
            doc="conv2d(x, w) = contrib_conv2d_packed(x, layout_transform(w, OIHW -> OIHW<b>o))"
            " for an f32 grouped 1x1 conv (stride 1, no padding, rows of 14-32 pixels) whose"
            " lanes do not divide O/groups, b a divisor of O/groups (the grouped kernel's"
            " register tile of channels, its vectors along the rows: no padded channels)",
        ),
        rewrite(
            Pat(ReshapeOp, Pat(TransposeOp, Pat(ReshapeOp, "y"), name="t")),
            when=[lambda y, t, root: _shuffles_a_grouped_conv(y, t, root, vector_lanes)],
            to=lambda y: conv2d_grouped_shuffled(y, vector_lanes),
            name="conv2d-grouped-shuffled",
            doc="a channel shuffle (reshape [N, G, C/G, H, W], transpose axes 1 and 2,"
            " reshape back) of a grouped contrib_conv2d_packed that the grouped kernel takes,"
            " through relus and per-channel add/subtract/multiply = the conv with out_shuffle ="
            " G (each row stored where the shuffle puts it), the per-channel operands shuffled",
        ),
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[
                _plain_float_conv,
                lambda w, root: _padded_channels(w, root, vector_lanes) is not None,
            ],
            to=lambda x, w, root: conv2d_packed_padded(x, w, root, vector_lanes),
            name="conv2d-packed-padded",
            doc="conv2d(x, w) = the first O/groups channels of each group of"
            " contrib_conv2d_packed(x, w with each group's output channels zero-padded to P,"
            " a multiple of the lanes, packed OIHW<lanes>o) for an f32 conv whose lanes do"
            " not divide O/groups, when its block would be under 4 or the padding is at"
            " most 1/8 of P; with 16 lanes and one group, P a multiple of 32 (an even"
            " number of blocks) if that padding too is at most 1/8 of P",
        ),
        *SLICE_SINK_RULES,
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[
                _plain_float_conv,
                lambda w, root: _conv_block(w, root, vector_lanes) >= MIN_BLOCK,
            ],
            to=lambda x, w, root: conv2d_packed(x, w, root, _conv_block(w, root, vector_lanes)),
            name="conv2d-packed",
            doc="conv2d(x, w) = contrib_conv2d_packed(x, layout_transform(w, OIHW -> OIHW<b>o))"
            f" for a float conv whose block b is at least {MIN_BLOCK}",
        ),
        rewrite(
            Pat(DenseOp, "x", "w"),
            when=[
                lambda x, w: (
                    is_float(x.type.element_type)
                    and len(x.type.get_shape()) == 2
                    and dense_block(w.type.get_shape()[0], vector_lanes) >= MIN_BLOCK
                )
            ],
            to=lambda x, w: dense_pack(x, w, dense_block(w.type.get_shape()[0], vector_lanes)),
            name="dense-pack",
            doc="dense(x, w) = contrib_dense_pack(x, layout_transform(w, NK -> NK<b>n))"
            f" for a 2-d float dense whose block b is at least {MIN_BLOCK}",
        ),
    ]


@documents_rules(rules(vector_lanes=16))  # names and docs are the same for any lanes
@dataclass(frozen=True)
class AlterOpLayoutPass(ModulePass):
    """Pack the weights of float ``conv2d`` and ``dense`` (and of u8 × s8
    ``conv2d`` on VNNI targets) for the x86 kernels.

    Input: relay IR with exact types. Output: ``relay.nn.contrib_conv2d_packed``
    / ``relay.nn.contrib_dense_pack`` reading ``relay.layout_transform`` of the
    weights; every other value unchanged.

    ```mlir
    %y = relay.nn.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32>
    // becomes (16 lanes of f32: AVX-512)
    %w_packed = relay.layout_transform %w {src_layout = "OIHW", dst_layout = "OIHW16o"} : (tensor<32x8x3x3xf32>) -> tensor<2x8x3x3x16xf32>
    %y = relay.nn.contrib_conv2d_packed %x, %w_packed {kernel_layout = "OIHW16o", padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x3x3x16xf32>) -> tensor<1x32x8x8xf32>
    ```
    """

    name = "relay-alter-op-layout"

    lanes: int = 0
    """f32 lanes of a vector register; 0 = those of ``Target.current()``."""

    vnni: int = -1
    """1: pack u8 × s8 convs for AVX-512 VNNI, 0: do not, -1: if
    ``Target.current()`` has it."""

    conv2d_tile: int = -1
    """-1: each conv with several implementations (direct, Winograd) takes
    the current dispatch context's choice (the hand-written one without a
    context); 0: the direct conv; ``m``: Winograd F(m, r) wherever it is one
    of the conv's implementations (``ForceConv2dTile``, as task extraction
    does)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        vnni = has_vnni() if self.vnni < 0 else bool(self.vnni)
        if self.conv2d_tile < 0:
            apply_rules(op, rules(self.lanes or lanes(), vnni))
            return
        from xtvm.autotvm.dispatch import ForceConv2dTile  # not loaded by xtvm-opt's start

        with ForceConv2dTile(self.conv2d_tile):
            apply_rules(op, rules(self.lanes or lanes(), vnni))
