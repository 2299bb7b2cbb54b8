"""Keeping activations blocked ``NCHW<c>c`` between convs: the rules that
move a ``relay.layout_transform(y, NCHW<c>c -> NCHW)`` down through the ops
after it and cancel it against the next conv's transform forward (TVM's
``ConvertLayout`` propagation). ``relay-int8-nchwc`` and
``relay-convert-layout`` give their convs blocked data and results between
two transforms; these rules, the same for any element type and block, do
the rest.

A transform back moves down through the elementwise ops after it (casts,
round, clip, relu, floor; the broadcasting binary ops: an epilogue's bias,
scale and zero point, a residual add), bias adds, channel concatenations of
such transforms (SqueezeNet's fire modules, Inception's and DenseNet's
blocks) and max and average pools (as 3-d pools with a window of 1 along
the block; float global pools too, :data:`GLOBAL_POOL_RULES`: the
classifier's pool then reads the blocked result, and only the pooled
``[N, C/c, 1, 1, c]`` is transformed back), converting their other
operand: a scalar stays, a per-channel ``[1, C, 1, 1]`` (or ``[C, 1, 1]``, or ``[C]`` of a bias add) is
transformed too (a constant: ``relay-fold-constant`` does it once), a value
that is itself such a transform is read before it, another tensor of the
full shape is transformed. Where a transform back meets the next conv's
transform forward, the two cancel: the activations stay blocked, and only
what still reads NCHW (the classifier) gets a transform back.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from xtvm.dialects.relay import (
    AddOp,
    AvgPool2dOp,
    AvgPool3dOp,
    BiasAddOp,
    CastOp,
    ClipOp,
    ConcatenateOp,
    DivideOp,
    FloorOp,
    GlobalAvgPool2dOp,
    GlobalMaxPool2dOp,
    LayoutTransformOp,
    MaximumOp,
    MaxPool2dOp,
    MaxPool3dOp,
    MinimumOp,
    MultiplyOp,
    ReluOp,
    ReshapeOp,
    RoundOp,
    SubtractOp,
)
from xtvm.layout import Layout
from xtvm.rewrite import Pat, Rule, rewrite


def blocked_channels(layout: str) -> int:
    """``c`` of a layout ``"NCHW<c>c"``, else 0."""
    try:
        parsed = Layout.parse(layout)
    except ValueError:
        return 0
    subs = parsed.axes[4:]
    if parsed.primal != "NCHW" or len(subs) != 1 or subs[0][0] != "c":
        return 0
    return subs[0][1]


def unblocking(op: Operation | None) -> int:
    """``c`` when ``op`` is ``layout_transform(NCHW<c>c -> NCHW)``, else 0."""
    if not isinstance(op, LayoutTransformOp) or op.dst_layout.data != "NCHW":
        return 0
    return blocked_channels(op.src_layout.data)


DATA_BLOCKS = (16, 8, 4)
"""Input-channel blocks of a conv's blocked data, most preferred first."""


def data_block(x: SSAValue, multiple: int = 1) -> int:
    """The block a conv reads ``x`` in: the one it already has if it is a
    transform back from blocked data (a block that is a multiple of
    ``multiple``: the int8 convs' 4-byte words), else the largest of
    :data:`DATA_BLOCKS` that divides its channels; 0 for none."""
    channels = x.type.get_shape()[1]
    if (c := unblocking(x.owner)) and c % multiple == 0 and channels % c == 0:
        return c
    return next((c for c in DATA_BLOCKS if channels % c == 0), 0)


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
    if unblocking(y.owner) and y.owner.src_layout.data == layout:
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
    return unblocking(lt) > 0 and _operand_kind(y, lt.src_layout.data, nchw) is not None


def _sink_binary(
    x: SSAValue, y: SSAValue, lt: LayoutTransformOp, root: Operation
) -> list[Operation]:
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
    layouts = {op.src_layout.data if unblocking(op := v.owner) else None for v in inputs}
    rank = len(root.result.type.get_shape())
    return rank == 4 and root.attrs["axis"] % 4 == 1 and len(layouts) == 1 and None not in layouts


def _sink_concat(root: ConcatenateOp) -> list[Operation]:
    layout = root.operands[0].owner.src_layout.data
    joined = ConcatenateOp([v.owner.data for v in root.operands], axis=1)
    return [joined, LayoutTransformOp(joined.result, layout, "NCHW")]


POOLS = {MaxPool2dOp: MaxPool3dOp, AvgPool2dOp: AvgPool3dOp}
"""The 2-d pools a transform back moves through, and the 3-d pool each
becomes on blocked data."""


def _sink_pool(x: SSAValue, lt: LayoutTransformOp, root: Operation) -> list[Operation]:
    """The 2-d pool of blocked ``[N, C/c, H, W, c]`` data is a 3-d pool
    with a window of 1 along ``c``: the same maxima (means: no padding
    along ``c``, so each window's divisor is the same), each pixel's ``c``
    channels one vector."""
    a = root.attrs
    top, left, bottom, right = a["padding"]
    flags = {"count_include_pad": a["count_include_pad"]} if "count_include_pad" in a else {}
    pool = POOLS[type(root)](
        x,
        [*a["pool_size"], 1],
        [*a["strides"], 1],
        [*a["dilation"], 1],
        [top, left, 0, bottom, right, 0],
        a["ceil_mode"],
        **flags,
    )
    return [pool, LayoutTransformOp(pool.result, lt.src_layout.data, "NCHW")]


GLOBAL_POOLS = {GlobalMaxPool2dOp: MaxPool3dOp, GlobalAvgPool2dOp: AvgPool3dOp}
"""The global pools a transform back moves through, and the 3-d pool each
becomes on blocked data."""


def _sink_global_pool(x: SSAValue, lt: LayoutTransformOp, root: Operation) -> list[Operation]:
    """The global pool of blocked ``[N, C/c, H, W, c]`` data is a 3-d pool
    with an ``H x W x 1`` window: ``[N, C/c, 1, 1, c]``, transformed back
    (``c`` values a pixel instead of the whole plane)."""
    _, _, height, width, _ = x.type.get_shape()
    pool = GLOBAL_POOLS[type(root)](x, [height, width, 1])
    return [pool, LayoutTransformOp(pool.result, lt.src_layout.data, "NCHW")]


def _blocked_source(name: str = "lt") -> Pat:
    return Pat(LayoutTransformOp, "x", name=name)


UNARY = (CastOp, RoundOp, ClipOp, ReluOp, FloorOp)
"""Elementwise ops of one operand a transform back moves through."""

COMMUTATIVE = (AddOp, MultiplyOp, MaximumOp, MinimumOp)
"""Broadcasting binary ops it moves through from either operand."""

LEFT_ONLY = (SubtractOp, DivideOp)
"""Broadcasting binary ops it moves through from the left operand."""


SINK_RULES: list[Rule] = [
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
            when=[lambda lt: unblocking(lt) > 0],
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
    *[
        rewrite(
            Pat(op, _blocked_source()),
            when=[lambda lt: unblocking(lt) > 0],
            to=_sink_pool,
            name=f"sink-unblocking-{op.name.split('.')[-1].replace('_', '-')}",
            doc=f"{op.name}(layout_transform(x, NCHW<c>c -> NCHW)) = layout_transform("
            f"{pool.name}(x) with a window, stride and dilation of 1 and no padding along c,"
            " NCHW<c>c -> NCHW)",
        )
        for op, pool in POOLS.items()
    ],
    rewrite(
        Pat(BiasAddOp, _blocked_source(), "b"),
        when=[lambda lt, root: unblocking(lt) > 0 and root.attrs["axis"] in (1, -3)],
        to=_sink_bias_add,
        name="sink-unblocking-bias-add",
        doc="bias_add(layout_transform(x, NCHW<c>c -> NCHW), b) = layout_transform(x +"
        " layout_transform(reshape(b, [1, C, 1, 1]), NCHW -> NCHW<c>c), NCHW<c>c -> NCHW)",
    ),
]
"""The layout-generic rules (see the module), in the order they are tried."""


GLOBAL_POOL_RULES: list[Rule] = [
    rewrite(
        Pat(op, _blocked_source()),
        when=[lambda lt: unblocking(lt) > 0],
        to=_sink_global_pool,
        name=f"sink-unblocking-{op.name.split('.')[-1].replace('_', '-')}",
        doc=f"{op.name}(layout_transform(x: [N, C/c, H, W, c], NCHW<c>c -> NCHW)) ="
        f" layout_transform({pool.name}(x) with an H x W x 1 window, NCHW<c>c -> NCHW)",
    )
    for op, pool in GLOBAL_POOLS.items()
]
"""Global pools of blocked float data (``relay-convert-layout`` only: the
classifier's pool; the int8 pass's blocks are integers, whose global mean
stays on NCHW)."""
