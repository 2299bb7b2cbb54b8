"""``conv2d-winograd``, a rule of ``relay-alter-op-layout``: a 3x3 stride-1
float conv of a constant weight becomes the Winograd conv F(m, 3)
(``relay.nn.contrib_conv2d_winograd_without_weight_transform``, on blocked
``NCHW16c`` data between two ``relay.layout_transform``, which
``relay-convert-layout`` cancels against its neighbours' as it does a packed
conv's) on ``relay.nn.contrib_conv2d_winograd_weight_transform`` of the
weight, which ``relay-fold-constant`` evaluates at compile time.

Without tuning records, the shape classes where the kernel measured faster
than the direct blocked kernel take it (:func:`winograd_tile`; the table is
in docs/winograd.md). Every conv the kernel can run (:func:`winograd_tiles`)
has several implementations, the direct conv and F(m, 3) for each allowed
``m``, and the current dispatch context chooses among them
(``DispatchContext.conv2d_tile``, TVM's ``DispatchContext.current.query``
in its ``_alter_conv2d_layout``): under ``apply_history_best`` the fastest
measured implementation of the conv's workload (:func:`conv2d_workload`),
during task extraction each in turn.

``conv2d-winograd-stride2``: a stride-2 float conv of a constant weight
with an odd ``k x k`` kernel, ``k`` 5 or 7 (ResNet-50's 7x7 stem), and at
most 4 input channels is, after space-to-depth, a stride-1 conv with an
``r x r`` kernel (``r = (k + 1) / 2``: 3 or 4) on 4x the channels, one
block of ``NCHW<4C>c`` (the data zero-padded to an even height and width
and split by row and column parity: ``x'[c·4 + 2i + j, y, x] = xpad[c,
2y + i, 2x + j]``; the weight likewise, ``w'[o, c·4 + 2i + j, p, q] = w[o,
c, 2p + i, 2q + j]``, zero where ``2p + i`` or ``2q + j`` is ``k``), which
runs as Winograd F(m, r), the space-to-depth done by relay ops (one
injective kernel on the data, folded on the weight). F(4,4) on the stem's
12 channels does a quarter of the 7x7 stride-2 conv's multiplies. The direct kernel stays the hand-written
choice: the rule fires only when a dispatch context (tuning records, task
extraction) chooses a tile for the conv's workload, which stays the
stride-2 conv's (docs/winograd.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Operation, SSAValue

from xtvm.constants import dense_from_numpy
from xtvm.dialects.relay import (
    ConstOp,
    Conv2dOp,
    LayoutTransformOp,
    PadOp,
    RelayOp,
    SpaceToDepthOp,
)
from xtvm.dialects.relay.winograd import (
    KERNEL_SIZES,
    Conv2dWinogradOp,
    WinogradWeightTransformOp,
)
from xtvm.rewrite import Pat, Rule, rewrite

BLOCK = 16
"""Channels of the data and output blocks (one AVX-512 register of f32)."""

MAX_WEIGHT_ELEMENTS = 1 << 20
"""Largest conv weight (elements) that takes Winograd without tuning
records, and :data:`MAX_F43_WEIGHT_ELEMENTS` the largest that takes F(4,3)
there (larger ones F(2,3)). The transformed weight is (m+2)^2/9 times the
conv's (4x for F(4,3), 1.8x for F(2,3)), and the build, the linker and
the library hold every weight: with F(4,3) for all, VGG-19's build peaked
at 1,792 MB, with these bounds at about 1,470 (issue 14's bound is 1.5 GB;
1,409 without Winograd). ResNet-50's default Winograd convs (up to 256 x
256 x 3 x 3 = 0.6 M) are under them."""

MAX_F43_WEIGHT_ELEMENTS = 1 << 18

MAX_TUNED_WEIGHT_ELEMENTS = 1 << 22
"""Largest conv weight (elements) whose Winograd implementations tuning
measures and records may choose (both tiles): 512 x 512 x 3 x 3 = 2.4 M,
ResNet-50's and VGG-19's largest 3x3 convs, fit. The memory bounds above
are the hand-written choice's; a build under records takes a larger
transformed weight only for a conv the records measured faster with it
(ResNet-50's 512-channel 7x7 conv alone: direct 920 us, F(2,3) 651,
F(4,3) 1,331; its 256-channel 14x14 one: 930, 444, 380; 1 thread, Zen 5)."""


def winograd_tiles(
    channels: int, out_channels: int, height: int, width: int, lanes: int
) -> tuple[int, ...]:
    """The ``m`` of F(m, 3) the kernel may run a 3x3 stride-1 conv with (empty:
    the direct kernel only): the AVX-512 register tile, whole 16-channel
    blocks, a weight of at most :data:`MAX_TUNED_WEIGHT_ELEMENTS`, an ``m``
    at most the output's smaller side; not :func:`winograd_tile`'s size
    thresholds and memory bounds, which are the hand-written choice that
    tuning records may overrule."""
    if lanes < BLOCK or channels % BLOCK or out_channels % BLOCK:
        return ()
    if channels * out_channels * 9 > MAX_TUNED_WEIGHT_ELEMENTS:
        return ()
    return tuple(m for m in (2, 4) if m <= min(height, width))


def winograd_tile(
    channels: int, out_channels: int, height: int, width: int, lanes: int
) -> int | None:
    """The output tile ``m`` of F(m, 3) for a 3x3 stride-1 conv of
    ``channels`` → ``out_channels`` on a ``height x width`` output, or None
    for the direct kernel: F(4,3) on planes of at least 28 pixels a side,
    F(2,3) from 14 (and on larger planes for a weight above
    :data:`MAX_F43_WEIGHT_ELEMENTS`), the direct kernel on smaller planes
    (7x7: no gain), for weights above :data:`MAX_WEIGHT_ELEMENTS` and for
    channels that are not whole blocks; AVX-512 only (16 f32 lanes, the
    GEMM's register tile of 2 x 9 vectors).

    Any number of blocks pays once the kernel's large buffers keep their
    pages between calls (``xtvm.runtime.allocator``): against the direct
    kernel, one conv (+ relu) alone, 1 thread, Zen 5: 64 -> 64 on 56x56
    2.29x, on 224x224 1.53x, 64 -> 128 on 112x112 1.88x, 16 -> 64 on 55x55
    1.63x, 32 -> 128 on 27x27 1.55x, 128 -> 32 on 56x56 1.85x and on 28x28
    2.06x, 48 -> 64 on 28x28 2.17x (docs/winograd.md)."""
    weight = channels * out_channels * 9
    if weight > MAX_WEIGHT_ELEMENTS:
        return None
    tiles = winograd_tiles(channels, out_channels, height, width, lanes)
    if weight > MAX_F43_WEIGHT_ELEMENTS:
        tiles = tuple(m for m in tiles if m != 4)
    side = min(height, width)
    if side >= 28 and 4 in tiles:
        return 4
    if side >= 14 and 2 in tiles:
        return 2
    return None


def conv2d_workload(op: Operation) -> str:
    """The workload of a conv, independent of its implementation and of the
    ops fused with it: the NCHW data shape, the OIHW weight shape, strides,
    padding, dilation, groups and element type, e.g. ``conv2d f32
    data=1x64x56x56 weight=64x64x3x3 strides=1x1 padding=1x1x1x1
    dilation=1x1 groups=1``. The same for a ``relay.nn.conv2d``, the
    ``relay.nn.contrib_conv2d_packed`` (NCHW or blocked data) and the
    Winograd conv it becomes, so that tuning records of either
    implementation name the conv they are for."""
    from xtvm.dialects.relay.packed import Conv2dPackedOp

    a = type(op).with_defaults(op.attrs)
    xs = list(op.operands[0].type.get_shape())
    ws = list(op.operands[1].type.get_shape())
    if len(xs) == 5:  # blocked data [N, C/c, H, W, c]
        xs = [xs[0], xs[1] * xs[4], xs[2], xs[3]]
    if isinstance(op, Conv2dWinogradOp):  # [a, a, K/b, C, b]
        if a["workload"]:  # another conv's form (space-to-depth)
            return a["workload"]
        r = ws[0] - a["tile_size"] + 1
        ws, a = [ws[2] * ws[4], ws[3], r, r], a | {"strides": (1, 1), "dilation": (1, 1)}
        a["groups"] = 1
    elif isinstance(op, Conv2dPackedOp):  # [O/b, C/groups, KH, KW, b]
        ws = [ws[0] * ws[4], *ws[1:4]]
    elif not isinstance(op, Conv2dOp):
        raise TypeError(f"conv2d_workload: '{op.name}' is not a 2-d convolution")

    def dims(values) -> str:
        return "x".join(str(int(v)) for v in values)

    return (
        f"conv2d {op.operands[0].type.element_type} data={dims(xs)} weight={dims(ws)} "
        f"strides={dims(a['strides'])} padding={dims(a['padding'])} "
        f"dilation={dims(a['dilation'])} groups={int(a['groups'])}"
    )


def _workload_fields(workload: str) -> dict[str, str]:
    """The ``name=value`` fields of a :func:`conv2d_workload` (after ``conv2d
    <dtype>``)."""
    return dict(f.split("=") for f in workload.split()[2:])


def workload_flop(workload: str) -> float | None:
    """The FLOPs of the direct conv a :func:`conv2d_workload` names, ``2 · N
    · K · C/groups · KH · KW · OH · OW`` (None for no workload, "")."""
    if not workload:
        return None
    fields = _workload_fields(workload)
    n, _, h, w = (int(v) for v in fields["data"].split("x"))
    k, cg, kh, kw = (int(v) for v in fields["weight"].split("x"))
    sh, sw = (int(v) for v in fields["strides"].split("x"))
    top, left, bottom, right = (int(v) for v in fields["padding"].split("x"))
    dh, dw = (int(v) for v in fields["dilation"].split("x"))
    oh = (h + top + bottom - dh * (kh - 1) - 1) // sh + 1
    ow = (w + left + right - dw * (kw - 1) - 1) // sw + 1
    return 2.0 * n * k * cg * kh * kw * oh * ow


def winograd_kernel_size(workload: str) -> int:
    """The ``r`` of the F(m, r) a Winograd implementation of the conv a
    :func:`conv2d_workload` names runs: its kernel size, or for a stride-2
    conv (``conv2d-winograd-stride2``) that of its space-to-depth form."""
    fields = _workload_fields(workload)
    k = int(fields["weight"].split("x")[2])
    return (k + 1) // 2 if fields["strides"] == "2x2" else k


def _constant(value: SSAValue, depth: int = 8) -> bool:
    """Whether ``value`` is computed from constants only (a weight that
    ``relay-fold-constant`` will fold, e.g. scaled by a folded batch norm)."""
    op = value.owner
    if isinstance(op, ConstOp):
        return True
    return (
        depth > 0
        and isinstance(op, RelayOp)
        and bool(op.operands)
        and all(_constant(o, depth - 1) for o in op.operands)
    )


def _tile(x: SSAValue, w: SSAValue, root: Conv2dOp, lanes: int) -> int | None:
    """The F(m, 3) tile of the conv (None: direct): the current dispatch
    context's choice among :func:`winograd_tiles`, by default
    :func:`winograd_tile`'s."""
    tiles = _tiles(x, w, root, lanes)
    if not tiles:
        return None
    out = root.result.type.get_shape()
    default = winograd_tile(x.type.get_shape()[1], w.type.get_shape()[0], out[2], out[3], lanes)
    return _chosen(root, tiles, default)


def _chosen(root: Conv2dOp, tiles: Sequence[int], default: int | None) -> int | None:
    """The current dispatch context's choice among the direct conv and F(m, r)
    for ``m`` in ``tiles`` (None: direct), ``default`` without a context."""
    from xtvm.autotvm.dispatch import DIRECT, DispatchContext  # not loaded by xtvm-opt's start

    context = DispatchContext.current()
    if context is None:
        return default
    chosen = context.conv2d_tile(conv2d_workload(root), (DIRECT, *tiles), default or DIRECT)
    return chosen or None


def _plain_f32_conv(x: SSAValue, w: SSAValue, root: Conv2dOp, strides: int) -> bool:
    """Whether the conv is what both Winograd forms start from: f32 data and
    weight, an f32 result, the given stride, no dilation, one group, 4-D
    static shapes and a constant weight."""
    a = root.attrs
    xs, ws, out = x.type.get_shape(), w.type.get_shape(), root.result.type.get_shape()
    return (
        str(x.type.element_type) == "f32"
        and x.type.element_type == w.type.element_type
        and a.get("out_dtype") in (None, "float32")
        and tuple(a["strides"]) == (strides, strides)
        and tuple(a["dilation"]) == (1, 1)
        and a["groups"] == 1
        and len(ws) == 4
        and len(xs) == 4
        and min(*xs, *out) >= 1
        and _constant(w)
    )


def _tiles(x: SSAValue, w: SSAValue, root: Conv2dOp, lanes: int) -> tuple[int, ...]:
    if not _plain_f32_conv(x, w, root, 1) or tuple(w.type.get_shape()[2:]) != (3, 3):
        return ()
    xs, ws, out = x.type.get_shape(), w.type.get_shape(), root.result.type.get_shape()
    return winograd_tiles(xs[1], ws[0], out[2], out[3], lanes)


def conv2d_winograd(
    x: SSAValue,
    w: SSAValue,
    m: int,
    padding: Sequence[int],
    workload: str | None = None,
    channels: int = BLOCK,
) -> list[Operation]:
    """The Winograd conv F(m, r) of NCHW ``x`` by the weight ``w``, on
    ``x`` blocked by ``channels``, between layout transforms."""
    layout = f"NCHW{channels}c"
    u = WinogradWeightTransformOp(w, m, BLOCK)
    u.result.name_hint = f"{w.name_hint}_winograd" if w.name_hint else None
    blocked = LayoutTransformOp(x, "NCHW", layout)
    conv = Conv2dWinogradOp(blocked.result, u.result, m, layout, padding, workload)
    out = f"NCHW{BLOCK}c"
    return [u, blocked, conv, LayoutTransformOp(conv.result, out, "NCHW")]


S2D_CHANNELS = BLOCK // 4
"""The most input channels of a stride-2 conv that space-to-depth takes
(its 4x as many channels are one block, of at most 16)."""


def _stride2_tiles(x: SSAValue, w: SSAValue, root: Conv2dOp, lanes: int) -> tuple[int, ...]:
    """The ``m`` of F(m, r) the space-to-depth form of a stride-2 conv may
    take (empty: not eligible; see the module)."""
    if lanes < BLOCK or not _plain_f32_conv(x, w, root, 2):
        return ()
    xs, ws, out = x.type.get_shape(), w.type.get_shape(), root.result.type.get_shape()
    if (
        ws[2] != ws[3]
        or ws[2] % 2 == 0
        or (ws[2] + 1) // 2 not in KERNEL_SIZES
        or xs[1] > S2D_CHANNELS
        or ws[0] % BLOCK
    ):
        return ()
    return tuple(m for m in (2, 4) if m <= min(out[2], out[3]))


def _stride2_tile(x: SSAValue, w: SSAValue, root: Conv2dOp, lanes: int) -> int | None:
    """The F(m, r) tile of a stride-2 conv's space-to-depth form (None:
    direct): the current dispatch context's choice, the direct conv by
    default and without a context."""
    tiles = _stride2_tiles(x, w, root, lanes)
    return _chosen(root, tiles, None) if tiles else None


def _space_to_depth(value: SSAValue, zero: SSAValue, pads: Sequence[int]) -> list[Operation]:
    """``[N, C, H, W]`` zero-padded by ``pads`` (``[before, after]`` per
    axis: to an even height and width), then split by row and column parity:
    ``[N, 4·C, H'/2, W'/2]``, channel ``c·4 + 2i + j`` from rows ``i`` and
    columns ``j`` (mod 2)."""
    pad = PadOp(value, zero, pads)
    return [pad, SpaceToDepthOp(pad.results[0], 2, "CRD")]


def conv2d_winograd_stride2(x: SSAValue, w: SSAValue, root: Conv2dOp, m: int) -> list[Operation]:
    """The stride-2 conv as F(m, r) on its space-to-depth form (see the module)."""
    _, c, h, wd = x.type.get_shape()
    k = w.type.get_shape()[2]
    r = (k + 1) // 2
    _, _, oh, ow = root.result.type.get_shape()
    top, left, _, _ = root.attrs["padding"]
    hp, wp = 2 * (oh + r - 1), 2 * (ow + r - 1)  # the padded data the r x r conv reads
    zero = ConstOp(dense_from_numpy(np.array(0, np.float32)))
    data = _space_to_depth(x, zero.result, [0, 0, 0, 0, top, hp - h - top, left, wp - wd - left])
    weight = _space_to_depth(w, zero.result, [0, 0, 0, 0, 0, 2 * r - k, 0, 2 * r - k])
    weight[-1].results[0].name_hint = f"{w.name_hint}_s2d" if w.name_hint else None
    conv = conv2d_winograd(
        data[-1].results[0],
        weight[-1].results[0],
        m,
        (0, 0, 0, 0),
        conv2d_workload(root),
        channels=4 * c,
    )
    return [zero, *data, *weight, *conv]


def winograd_rules(lanes: int) -> list[Rule]:
    """The rules for registers of ``lanes`` f32 lanes (before ``conv2d-packed``)."""
    return [
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[lambda x, w, root: _tile(x, w, root, lanes) is not None],
            to=lambda x, w, root: conv2d_winograd(
                x, w, _tile(x, w, root, lanes), root.attrs["padding"]
            ),
            name="conv2d-winograd",
            doc="conv2d(x, w) = layout_transform(contrib_conv2d_winograd_without_weight_transform("
            "layout_transform(x, NCHW -> NCHW16c), contrib_conv2d_winograd_weight_transform(w)),"
            " NCHW16c -> NCHW) for an f32 3x3 stride-1 conv of a constant weight, its"
            " channels in and out whole 16-channel blocks, its weight at most 2^20"
            " elements, F(4,3) on outputs of at least 28x28 (weights up to 2^18),"
            " F(2,3) from 14x14, on AVX-512; under tuning records, the implementation"
            " (direct, F(2,3), F(4,3); weights up to 2^22 elements) measured fastest"
            " for the conv's workload",
        ),
        rewrite(
            Pat(Conv2dOp, "x", "w"),
            when=[lambda x, w, root: _stride2_tile(x, w, root, lanes) is not None],
            to=lambda x, w, root: conv2d_winograd_stride2(
                x, w, root, _stride2_tile(x, w, root, lanes)
            ),
            name="conv2d-winograd-stride2",
            doc="conv2d(x, w) with stride 2 = conv2d-winograd's form (F(m, r), no padding)"
            " of the r x r stride-1 conv of space_to_depth(pad(x)) by space_to_depth(pad(w))"
            " (4C channels, one NCHW<4C>c block, after the split by row and column parity;"
            " r = (k + 1) / 2) for an f32 conv of a constant k x k weight, k 5 or 7, at most"
            " 4 input channels, output channels whole 16-channel blocks, on AVX-512, when"
            " the dispatch context (tuning records, task extraction) chooses F(m, r) for the"
            " conv's workload (without one: the direct conv)",
        ),
    ]
