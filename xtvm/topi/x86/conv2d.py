"""conv2d on a packed weight, register-blocked for x86 (TVM's
``conv2d_NCHWc`` inner kernel), on NCHW or on blocked activations.

The weight is packed ``OIHW<b>o`` (``[O/b, C/groups, KH, KW, b]``, ``b``
output channels = one vector register, innermost). On NCHW activations
(grouped convs, and every conv where ``relay-convert-layout`` does not run)
the inner kernel broadcasts one input pixel at a time. The convolution reads weight element
``[f // b, c, ky, kx, f % b]``; once output channel ``f`` is split into
``(fo, fi)`` by ``b``, ``tir-simplify`` turns those indices into ``fo`` and
``fi``.

In a fused kernel the convolution's reduction is attached to the epilogue's
loop nest (bias, folded batch norm, residual add, relu), and the schedule
tiles a row of ``R`` output pixels by ``b`` channels, accumulates the tile in
registers, then applies the epilogue to the tile while it is hot. On stride-1
rows that ``R`` (about one register) divides, the vectors run along the row
(:func:`pixel_vectors`)::

    parallel for (n, fo, y) fused:
      for xo:                                    # R-pixel tiles of the row
        acc[b][R] = 0
        for rc, ry, rx:                          # the reduction
          for fi in b (unrolled):                # one FMA per channel:
            for xi in R (vectorized):            #   acc[fi] += in[rc, y+ry, x+rx : +R] * w[fo, rc, ry, rx, fi]
        for fi in b (unrolled):
          for xi in R (vectorized):              # out[n, f, y, x : +R] = epilogue(acc[fi])

otherwise across the channel block (``acc[R][b]``, one FMA per pixel with
the input broadcast and ``w[fo, rc, ry, rx, :]`` a vector; the write-back
then transposes the tile lane by lane into the NCHW rows).

The zero padding is its own (parallel) loop nest before, so the reduction
reads no guarded elements.

Blocked activations (TVM's ``conv2d_NCHWc``: data ``NCHW<c>c``, ``[N, C/c,
H, W, c]``, result ``NCHW<b>c``, :func:`conv2d_nchwc`) need neither
orientation's compromise: each reduction step broadcasts one input channel
of one pixel against a weight row, and the tile of ``R`` pixels by one or
two ``b``-channel blocks is stored as whole vectors (a pixel's ``b``
channels are adjacent)::

    parallel for (n, fo, y) fused:
      for xo:
        acc[oc][R][b] = 0
        for rco, ry, rx, rci:                      # in[n, rco, y+ry, x+rx, rci]
          for foi in oc (unrolled):
            for xi in R (unrolled):
              for fi in b (vectorized):            # acc += bcast(in) * w[fo, rco·c + rci, ry, rx, :]
        for foi, xi (unrolled):
          for fi in b (vectorized):                # out[n, fo, y, x, :] = epilogue(acc[foi][xi])

On planes up to 56x56 the reduction runs ``rco, rci, ry, rx`` instead
(:func:`window_inner`: the weight rows in memory order), and on rows of
112 pixels or more the tile is 2 rows of 4 pixels (:func:`two_row_tile`),
the row tiles outermost and the padding computed under each (knob
``pad_rows``): its padded input rows are written just before the tile's
blocks read them, in cache, instead of by a parallel nest of its own over
the whole plane (VGG's 224x224x64 input is 12.8 MB)::

    parallel for yo:                             # 2 output rows
      T_pad[.., 2yo : 2yo + 4, :, :] = pad(in)   # the 4 input rows they read
      for fo, xo: (the register tile as above)

Neighbouring row tiles both write the two rows they share, with the same
values.

NCHW data with a blocked result (a stem's 3 channels, ``blocked_result``)
runs the same schedule over ``(rc, ry, rx)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from xtvm import te
from xtvm.autotvm.dispatch import current_config
from xtvm.schedule import CacheWriteLoops
from xtvm.te.expr import PrimExpr
from xtvm.te.symbolic import is_static
from xtvm.topi.x86.config import lanes, row_block, use_threads
from xtvm.topi.x86.dynamic import schedule_dynamic_injective
from xtvm.topi.x86.injective import schedule_injective
from xtvm.topi.x86.tiling import reduction_flops, tile_candidates, vectorize_tile


def pad_nchw(data: te.Tensor, padding: Sequence[int]) -> te.Tensor:
    """``data`` with zero borders ``[top, left, bottom, right]``, materialized
    (its own loop nest)."""
    top, left, bottom, right = padding
    if not any(padding):
        return data
    n, c, h, w = data.shape

    def fcompute(b: PrimExpr, ch: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        inside = (y >= top) & (y < top + h) & (x >= left) & (x < left + w)
        return te.if_then_else(inside, data[b, ch, y - top, x - left], te.const(0, data.dtype))

    shape = (n, c, h + top + bottom, w + left + right)
    return te.compute(shape, fcompute, name="T_pad", tag="pad", attrs={"materialize": True})


def pad_blocked(data: te.Tensor, padding: Sequence[int]) -> te.Tensor:
    """Blocked ``data`` ``[N, C/c, H, W, c]`` with zero borders ``[top,
    left, bottom, right]``, materialized (as :func:`pad_nchw`). Branch-free,
    so that a pixel's ``c`` channels are one vector: a border pixel reads
    pixel ``(0, 0)`` (a valid address) and selects zeros."""
    top, left, bottom, right = padding
    if not any(padding):
        return data
    n, cb, h, w, c = data.shape

    def fcompute(b: PrimExpr, g: PrimExpr, y: PrimExpr, x: PrimExpr, j: PrimExpr) -> PrimExpr:
        inside = (y >= top) & (y < top + h) & (x >= left) & (x < left + w)
        zero = te.const(0, "int32")
        row, column = te.eager_select(inside, y - top, zero), te.eager_select(inside, x - left, zero)
        return te.eager_select(inside, data[b, g, row, column, j], te.const(0, data.dtype))

    shape = (n, cb, h + top + bottom, w + left + right, c)
    return te.compute(shape, fcompute, name="T_pad", tag="pad", attrs={"materialize": True})


def window_positions(
    padded: te.Tensor, kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int]
) -> tuple[int, int]:
    """Output height and width of a kernel sliding over padded NCHW data."""
    oh, ow = (
        (size - (k - 1) * d - 1) // s + 1
        for size, k, s, d in zip(padded.shape[2:], kernel, strides, dilation)
    )
    return oh, ow


def schedule_padding(sch, conv: te.Tensor) -> None:
    """Run the materialized zero padding that ``conv`` reads (if any) in parallel."""
    padded = conv.op.input_tensors[0]
    if padded.op.attrs.get("materialize"):
        if is_static(padded.shape):
            # blocked: a pixel's channels are one row, inside the border or not
            schedule_injective(sch, padded, vectorize=padded.ndim == 5)
        else:
            schedule_dynamic_injective(sch, padded, vectorize=False)


def conv2d_packed(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    blocked_result: bool = False,
) -> te.Tensor:
    """2-d convolution: data ``[N, C, H, W]``, weight packed ``OIHW<b>o``
    (``[O/b, C/groups, KH, KW, b]``) → ``[N, O, OH, OW]``, or with
    ``blocked_result`` ``[N, O/b, OH, OW, b]`` (``groups = 1``). Blocked
    data ``[N, C/c, H, W, c]`` always gives the blocked result
    (:func:`conv2d_nchwc`)."""
    if data.ndim == 5 and weight.ndim == 5 and groups == 1:
        return conv2d_nchwc(data, weight, strides, padding, dilation)
    if data.ndim != 4 or weight.ndim != 5 or (blocked_result and groups != 1):
        raise ValueError(
            f"conv2d_packed: data {list(data.shape)} must be 4-d and the packed "
            f"weight {list(weight.shape)} 5-d"
        )
    n, c = data.shape[:2]
    blocks, cg, kh, kw, b = weight.shape
    o = blocks * b
    (sh, sw), (dh, dw) = strides, dilation
    if c != cg * groups or (o // groups) % b:
        raise ValueError(
            f"conv2d_packed: groups={groups} does not fit data {list(data.shape)} and "
            f"packed weight {list(weight.shape)}"
        )
    padded = pad_nchw(data, padding)
    oh, ow = window_positions(padded, (kh, kw), strides, dilation)
    per_group = o // groups
    rc = te.reduce_axis((0, cg), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")

    def product_sum(i: PrimExpr, fo: PrimExpr, fi: PrimExpr, y: PrimExpr, x: PrimExpr):
        # the group of channel fo·b + fi, through its block
        channel = rc if groups == 1 else (fo // (per_group // b)) * cg + rc
        pixel = padded[i, channel, y * sh + ry * dh, x * sw + rx * dw]
        return te.sum(pixel * weight[fo, rc, ry, rx, fi], axis=[rc, ry, rx])

    attrs = {"schedule": schedule_conv2d_packed, "block": b, "stride_w": sw}
    if blocked_result:
        return te.compute(
            (n, blocks, oh, ow, b),
            lambda i, fo, y, x, fi: product_sum(i, fo, fi, y, x),
            name="T_conv2d_packed",
            tag="conv2d_packed",
            attrs=attrs,
        )
    # f // b and f % b: tir-simplify turns them into fo and fi once f is split by b
    return te.compute(
        (n, o, oh, ow),
        lambda i, f, y, x: product_sum(i, f // b, f % b, y, x),
        name="T_conv2d_packed",
        tag="conv2d_packed",
        attrs=attrs,
    )


def conv2d_nchwc(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> te.Tensor:
    """The conv on blocked activations (TVM's ``conv2d_NCHWc``): data
    ``[N, C/c, H, W, c]``, weight packed ``OIHW<b>o`` (``[O/b, C, KH, KW,
    b]``) → ``[N, O/b, OH, OW, b]``, reduced over ``(C/c, KH, KW, c)`` so
    that consecutive steps read adjacent input channels of one pixel."""
    blocks, cw, kh, kw, b = weight.shape
    n, outer, _, _, chans = data.shape
    if cw != outer * chans:
        raise ValueError(
            f"conv2d_packed: blocked data {list(data.shape)} (NCHW<c>c) does not fit the "
            f"packed weight {list(weight.shape)}"
        )
    (sh, sw), (dh, dw) = strides, dilation
    padded = pad_blocked(data, padding)
    oh, ow = window_positions(padded, (kh, kw), strides, dilation)
    rco = te.reduce_axis((0, outer), name="rco")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    rci = te.reduce_axis((0, chans), name="rci")

    def fcompute(i: PrimExpr, fo: PrimExpr, y: PrimExpr, x: PrimExpr, fi: PrimExpr) -> PrimExpr:
        pixel = padded[i, rco, y * sh + ry * dh, x * sw + rx * dw, rci]
        kernel = weight[fo, rco * chans + rci, ry, rx, fi]
        return te.sum(pixel * kernel, axis=[rco, ry, rx, rci])

    return te.compute(
        (n, blocks, oh, ow, b),
        fcompute,
        name="T_conv2d_packed",
        tag="conv2d_packed",
        attrs={"schedule": schedule_conv2d_packed, "block": b, "stride_w": sw},
    )


def pixel_vectors(width: int, row: int, stride: int, block: int) -> bool:
    """Whether the tile's vectors run along the output row (one per output
    channel, the weights broadcast) rather than across the channel block (one
    per pixel, the input broadcast). Along the row the input loads and the
    output stores are contiguous, so stride-1 rows that fill a register
    about as well as the channel block does (``row`` dividing ``width``; at
    least 14 of 16 lanes, or ``block`` lanes when the block is narrower, as
    for 1000 classes) take that orientation; it also spares the write-back
    the lane-by-lane transposition (a third of ResNet-50's compile time)."""
    return stride == 1 and width % row == 0 and row >= min(14, block)


def two_blocks(row: int, blocks: int) -> bool:
    """Whether a tile whose vectors run across the channel block takes two
    blocks of channels (``tile_oc = 2``): when the blocks pair up and the
    ``2 * row`` accumulators fill at most half of AVX-512's 32 registers.
    Each broadcast input pixel then feeds two FMAs (7-pixel rows: ResNet's
    and DenseNet's 7x7 layers, 3x3 convs ~18% faster); a 13-pixel row's 26
    accumulators ran twice as slow."""
    return blocks % 2 == 0 and 2 * row <= 16 and lanes() >= 16


def schedule_conv2d_packed(sch, conv: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The register-blocked schedule (see the module) of the kernel's one
    output, whose loop nest computes ``conv`` (attached) and its epilogue.

    It is also the AutoTVM template ``conv2d_packed``: its knobs (the row
    tile ``tile_ow``, output rows ``tile_oh`` and channel blocks ``tile_oc``
    per register tile, the ``vectors`` orientation, ``unroll_kw`` of the
    kernel's columns) default to the hand-written choices, which an
    untuned build gets exactly (``tile_oc`` 2 where :func:`two_blocks`, on
    blocked results where :func:`blocked_tile` says so)."""
    if len(outputs) != 1:
        return  # several outputs: the default loop nests (correct, not tiled)
    (out,) = outputs
    cfg = current_config()
    cfg.add_flop(reduction_flops(conv))
    if out.ndim == 5:
        _schedule_blocked(sch, cfg, conv, out)
        return
    n, f, y, x = sch.get_loops(out.name)
    height, width, block = out.shape[2], out.shape[3], conv.op.attrs["block"]
    stride, kw = conv.op.attrs["stride_w"], conv.op.input_tensors[1].shape[3]
    row = row_block(width)
    tile_ow = cfg.define_split(
        "tile_ow", width, candidates=tile_candidates(width, row), default=[-1, row]
    )
    rows = cfg.define_knob("tile_oh", [d for d in (1, 2, 4) if height % d == 0], default=1)
    blocks = out.shape[1] // block
    default = "pixel" if pixel_vectors(width, row, stride, block) else "channel"
    oc = cfg.define_knob(
        "tile_oc",
        [k for k in (1, 2) if blocks % k == 0],
        default=2 if default == "channel" and two_blocks(row, blocks) else 1,
    )
    vectors = cfg.define_knob(
        "vectors", ["pixel", "channel"] if stride == 1 else ["channel"], default=default
    )
    unroll_kw = cfg.define_knob("unroll_kw", [0, 1] if kw > 1 else [0], default=0)
    fo, *fc, fi = sch.split(f, [None, oc, block] if oc > 1 else [None, block])
    xo, xi = tile_ow.apply(sch, x)
    yo, *yi = sch.split(y, [None, rows]) if rows > 1 else [y]
    if vectors == "pixel":
        sch.reorder(n, fo, yo, xo, *fc, *yi, fi, xi)
        tile = sch.fuse(n, fo, yo)
        nests = sch.cache_write(out.name, xo)
        vectorize_tile(sch, nests)
    else:
        sch.reorder(n, fo, yo, xo, *fc, *yi, xi, fi)
        tile = sch.fuse(n, fo, yo)
        nests = sch.cache_write(out.name, xo)
        *outer, pixels, channels = nests.writeback
        sch.reorder(channels, pixels)  # store whole rows of the tile
        vectorize_tile(sch, replace(nests, writeback=[*outer, channels, pixels]))
    if unroll_kw:
        _unroll_kw(sch, conv, nests)
    if use_threads():
        sch.parallel(tile)
    schedule_padding(sch, conv)


def _reduction_loops(sch, conv: te.Tensor, nests: CacheWriteLoops) -> list:
    """The reduction's loops of the update nest, outermost first (``rc, ry,
    rx`` or ``rco, ry, rx, rci``: above the tile loops)."""
    update = sch.get_loops(nests.update[0].block)
    end = len(update) - len(nests.update)
    return update[end - len(conv.op.reduce_axis) : end]


def _unroll_kw(sch, conv: te.Tensor, nests: CacheWriteLoops, window_inner: bool = False) -> None:
    """Unroll the reduction's ``rx`` loop (the third reduction loop, the
    fourth once :func:`window_inner` put ``rci`` second)."""
    sch.unroll(_reduction_loops(sch, conv, nests)[3 if window_inner else 2])


def blocked_tile(width: int, blocks: int) -> tuple[int, bool]:
    """The blocked schedule's default register tile: ``(R, two)``, ``R``
    pixels of a row by one block, or by two blocks when ``two``.

    Where the blocks pair up (and AVX-512 has 32 registers), a tile of
    5-9 pixels by two blocks (:func:`row_block` with limit 9: 7 on ResNet's
    14-, 28- and 7-pixel rows, 8 on 56, 9 on 27, 5 on 55) beats a
    9-16-pixel row by one block: each broadcast input channel feeds two
    FMAs and each weight row ``R``, 9 loads per 14 FMAs instead of 15; the
    2R accumulators, R broadcasts and 2 weight rows fit in 32 registers.
    Side by side on Zen 5, 1 thread (old -> new): 3x3 256-channel on 14x14
    1.16 -> 1.03 ms, 3x3 128-channel on 28x28 1.34 -> 1.07, 1x1 1024 ->
    256 on 14x14 0.48 -> 0.44, 3x3 64-channel on 56x56 1.13 -> 1.06;
    SqueezeNet's widths: 3x3 32 -> 128 on 27x27 0.260 -> 0.233 (R 9 ->
    9), 64 -> 256 on 13x13 (R 13 -> 9, a partial last tile) 0.235 ->
    ~0.22, 16 -> 64 on 55x55 (R 11 -> 5) 0.268 -> 0.256. Four blocks (28
    accumulators at R = 7) spill: the broadcasts, shared by four FMAs,
    take registers of their own; 2.3x slower (``tile_oc = 4`` stays a
    knob, for narrower rows). A row no length in 5-9 divides is cut into
    tiles of about equal length rather than 9s and a short rest: SqueezeNet's
    13-pixel rows as 7 + 6, its 3x3 convs on 13x13 0.223 -> 0.213 ms and its
    classifier 0.795 -> 0.755 ms (docs/squeezenet.md)."""
    if blocks % 2 == 0 and lanes() >= 16:
        row = row_block(width, 9)
        if width % row:  # no divisor in 5-9: tiles of about equal length (13 -> 7 + 6)
            row = -(-width // -(-width // row))
        return row, True
    row = row_block(width)
    return row, two_blocks(row, blocks)


WINDOW_INNER_PLANE = 56 * 56
"""Output planes up to this many pixels reduce with the kernel window
innermost (:func:`window_inner`)."""


def window_inner(height: int, width: int, window: int) -> bool:
    """Whether the blocked conv reduces in the order ``(rco, rci, ry, rx)``
    (the kernel window innermost) rather than ``(rco, ry, rx, rci)``.

    The packed weight is ``[O/b, C, KH, KW, b]``: with the window innermost
    the tile reads its weight rows in memory order (64-byte steps) instead
    of ``KH·KW·64`` bytes apart, and each broadcast input pixel serves the
    ``KW`` window columns that reach it. That pays where each weight row
    serves few pixels, i.e. on small planes, whose convs are bound by
    streaming the weights in (a model's weights do not stay in cache
    between runs). Side by side on Zen 5 (1 thread, caches flushed between
    runs, as in a model): 3x3 512 -> 512 on 7x7 1.55 -> 1.04 ms, on 14x14
    4.35 -> 3.75, on 28x28 15.1 -> 14.8; on 56x56 equal alone (256 and 64
    channels) and ~4% faster in VGG-19 under load; on 112x112 (128
    channels) ~2% slower. A 1x1 conv has no window."""
    return window > 1 and height * width <= WINDOW_INNER_PLANE


def two_row_tile(height: int, width: int, pair: bool, window: int) -> bool:
    """Whether the blocked conv's default tile is 2 rows of 4 pixels by two
    blocks, its window columns unrolled, instead of one row of
    :func:`blocked_tile`'s ``R`` pixels: on wide planes (at least 112
    pixels a row, VGG's 64- and 128-channel layers) of a conv with a
    window. The same 16 accumulators; each tile reads a 4 x 6 patch of
    input pixels instead of 3 x 10. Side by side on Zen 5 (1 thread,
    caches flushed): 3x3 64 -> 64 on 224x224 16.8 -> 16.1 ms, 128 -> 128
    on 112x112 16.8 -> 16.2; on 56x56 equal."""
    return pair and window > 1 and width >= 112 and width % 4 == 0 and height % 2 == 0


def _schedule_blocked(sch, cfg, conv: te.Tensor, out: te.Tensor) -> None:
    """The blocked result ``[N, O/b, OH, OW, b]`` (see the module): a tile
    of ``tile_ow`` pixels of ``tile_oh`` rows by ``tile_oc`` (1, 2 or 4)
    blocks, by default :func:`blocked_tile`'s, its vectors across the
    block (the one orientation: the ``vectors`` knob is fixed to
    ``"channel"``), written back as whole vectors. With ``pad_rows`` (by
    default where :func:`two_row_tile`) the parallel loop is the row tiles
    and the materialized padding is computed under it (``compute_at``):
    3x3 64 -> 64 on 224x224 ~5% faster at one thread, 128 -> 128 on
    112x112 ~3% (Zen 5, interleaved with the separate nest); at two
    threads the kernel also loses a parallel region and its barrier. On
    small planes the rows outermost would stream the whole weight once a
    row (3x3 512 -> 512 on 14x14 7% slower), so they keep the padding
    apart."""
    n, fo, y, x, fi = sch.get_loops(out.name)
    height, width, blocks = out.shape[2], out.shape[3], out.shape[1]
    kh, kw = conv.op.input_tensors[1].shape[2:4]
    # the window of blocked data (NCHW data, a stem's, reduces over (rc, ry, rx))
    window = kh * kw if len(conv.op.reduce_axis) == 4 else 1
    row, pair = blocked_tile(width, blocks)
    two_rows = two_row_tile(height, width, pair, window)
    if two_rows:
        row = 4
    tile_ow = cfg.define_split(
        "tile_ow", width, candidates=tile_candidates(width, row), default=[-1, row]
    )
    rows = cfg.define_knob(
        "tile_oh", [d for d in (1, 2, 4) if height % d == 0], default=2 if two_rows else 1
    )
    oc = cfg.define_knob(
        "tile_oc",
        [k for k in (1, 2, 4) if blocks % k == 0],
        default=2 if pair else 1,
    )
    cfg.define_knob("vectors", ["channel"], default="channel")
    unroll_kw = cfg.define_knob(
        "unroll_kw", [0, 1] if kw > 1 else [0], default=int(two_rows)
    )
    inner = cfg.define_knob(
        "window_inner", [0, 1] if window > 1 else [0], default=int(window_inner(height, width, window))
    )
    padded = conv.op.input_tensors[0]
    can_pad_rows = window > 1 and bool(padded.op.attrs.get("materialize")) and is_static(padded.shape)
    pad_rows = cfg.define_knob(
        "pad_rows", [0, 1] if can_pad_rows else [0], default=int(can_pad_rows and two_rows)
    )
    foo, *foi = sch.split(fo, [None, oc]) if oc > 1 else [fo]
    xo, xi = tile_ow.apply(sch, x)
    yo, *yi = sch.split(y, [None, rows]) if rows > 1 else [y]
    if pad_rows:
        # rows outermost (parallel), every block of a row tile under it
        sch.reorder(n, yo, foo, xo, *foi, *yi, xi, fi)
        tile = yo
    else:
        sch.reorder(n, foo, yo, xo, *foi, *yi, xi, fi)
        tile = sch.fuse(n, foo, yo)
    nests = sch.cache_write(out.name, xo)
    vectorize_tile(sch, nests)
    if inner:
        rco, ry, rx, rci = _reduction_loops(sch, conv, nests)
        sch.reorder(rco, rci, ry, rx)
    if unroll_kw:
        _unroll_kw(sch, conv, nests, window_inner=bool(inner))
    if pad_rows:
        # the padded input rows of the row tile, just before its blocks read them
        *_, channels = sch.compute_at(padded.name, tile)
        sch.vectorize(channels)
    if use_threads():
        sch.parallel(tile)
    if not pad_rows:
        schedule_padding(sch, conv)
