"""u8 × s8 conv2d with s32 accumulation on AVX-512 VNNI (TVM's
``conv2d_NCHWc_int8`` with its ``dot_16x1x16_uint8_int8_int32`` tensor
intrinsic).

``vpdpbusd acc, a, b`` adds, in each of 16 i32 lanes, the four products of
the unsigned bytes of ``a`` with the signed bytes of ``b``. The kernel feeds
it four input channels at a time:

* the weight is packed at compile time ``OIHW<b>o4i`` as i32 words
  (``[O/b, C/4, KH, KW, b]``, byte ``k`` of a word = input channel
  ``4·c + k``; see ``relay.nn.contrib_conv2d_int8_packed``): one row of
  ``b = 16`` words is one zmm operand (``b = 8``, a ymm, when 16 does not
  divide the output channels);
* the (zero-padded) data is packed per call into the same words
  (``[N, C/4, H, W]`` i32, :func:`pack_words`), so one word of an input
  pixel is broadcast to the 16 lanes.

The reduction is written ``sum(vpdpbusd(0, data_word, weight_word))``, one
lane of the intrinsic per output channel; after ``cache_write`` the schedule
folds the accumulator's add into the call (:func:`accumulate_into_call`), so
each step of the reduction is a single ``vpdpbusd`` on the accumulator
register, and the vectorizer emits the intrinsic on ``<16 x i32>``::

    parallel for (n, fo, y) fused:
      for xo:                                    # R-pixel tiles of the row
        acc[R][16] = 0
        for rc4, ry, rx:
          for xi in R (unrolled):
            for fi in 16 (vectorized):           # acc[xi] = vpdpbusd(acc[xi], bcast(in[rc4, y+ry, x+rx]), w[fo, rc4, ry, rx, :])
        for xi in R (unrolled):
          for fi in 16 (vectorized):             # out[n, f, y, x] = epilogue(acc[xi])

The write-back runs across the channels too: the epilogue works on whole
vectors and each pixel's 16 channels are stored at their NCHW addresses
(transposing the tile lane by lane into rows cost more). A 1×1 stride-1
convolution over a plane of a multiple of 16 pixels (ResNet's 56² and 28²)
runs the vectors along the pixels instead (:func:`_schedule_pixel_vectors`),
so that the epilogue's loads and stores are whole rows.

The epilogue (zero-point corrections, requantization, clip and cast) runs
on the tile while it is hot, as for the float kernels. On targets without
VNNI the same kernel computes each lane with plain i32 arithmetic
(:func:`dot4`: correct, not fast; ``relay-alter-op-layout`` only packs for
VNNI targets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i32
from xdsl.ir import Operation, SSAValue

from xtvm import te
from xtvm.dialects.tir import PREFETCH, CallIntrinOp, ForOp, LoadOp
from xtvm.te.expr import PrimExpr
from xtvm.topi.x86.config import has_vnni, row_block, use_threads
from xtvm.topi.x86.conv2d import pad_nchw, schedule_padding, window_positions
from xtvm.topi.x86.injective import schedule_injective
from xtvm.topi.x86.tiling import vectorize_tile

VPDPBUSD = {16: "llvm.x86.avx512.vpdpbusd.512", 8: "llvm.x86.avx512.vpdpbusd.256"}
"""u8 × s8 dot products of 4-byte groups accumulated into 16 (zmm) or 8
(ymm, AVX-512 VL) i32 lanes, by the output-channel block."""


def little_endian_word(byte: Callable[[int], PrimExpr]) -> PrimExpr:
    """The i32 word whose byte ``k`` is ``byte(k)`` (an i32 in 0..255)."""
    word = byte(0)
    for k in range(1, 4):
        word = te.bitwise_or(word, te.shift_left(byte(k), te.const(8 * k, "int32")))
    return word


def pack_words(data: te.Tensor) -> te.Tensor:
    """``[N, C, ...]`` u8 → ``[N, ceil(C/4), ...]`` i32: the bytes of
    channels ``4·c .. 4·c+3`` (axis 1) in one little-endian word (channels
    past ``C`` zero), materialized (its own loop nest). NCHW data for the
    conv, ``[M, K]`` rows for the dense."""
    c = data.shape[1]
    groups = -(-c // 4)

    def fcompute(b: PrimExpr, g: PrimExpr, *rest: PrimExpr) -> PrimExpr:
        def byte(k: int) -> PrimExpr:
            channel = g * 4 + k
            value = te.cast("int32", data[(b, channel, *rest)])
            if groups * 4 - 4 + k >= c:  # the last group holds channels past C
                value = te.if_then_else(channel < c, value, te.const(0, "int32"))
            return value

        return little_endian_word(byte)

    return te.compute(
        (data.shape[0], groups, *data.shape[2:]),
        fcompute,
        name="T_pack_words",
        tag="pack",
        attrs={"materialize": True},
    )


def dot4(a: PrimExpr, b: PrimExpr) -> PrimExpr:
    """The portable ``vpdpbusd`` lane (targets without VNNI): the sum of the
    products of the unsigned bytes of ``a`` and the signed bytes of ``b``,
    in plain i32 shifts, masks and multiplies."""
    total: PrimExpr | None = None
    for k in range(4):
        u = te.bitwise_and(te.shift_right(a, te.const(8 * k, "int32")), te.const(255, "int32"))
        s = te.shift_left(b, te.const(24 - 8 * k, "int32")) if k < 3 else b
        product = u * te.shift_right(s, te.const(24, "int32"))
        total = product if total is None else total + product
    assert total is not None
    return total


def conv2d_int8_packed(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    blocked_result: bool = False,
    pad_value: int = 0,
) -> te.Tensor:
    """2-d convolution: u8 data ``[N, C, H, W]``, s8 weight packed
    ``OIHW<b>o4i`` as i32 words (``[O/b, ceil(C/4), KH, KW, b]``) →
    ``[N, O, OH, OW]`` i32, or with ``blocked_result`` ``[N, O/b, OH, OW,
    b]``. Blocked data ``[N, C/c, H, W, c]`` (``NCHW<c>c``) always gives
    the blocked result (:func:`conv2d_int8_nchwc`). The padding holds
    ``pad_value`` (a u8 zero point)."""
    if data.ndim == 5 and data.dtype == "uint8" and weight.ndim == 5:
        return conv2d_int8_nchwc(data, weight, strides, padding, dilation, pad_value)
    if data.ndim != 4 or weight.ndim != 5 or data.dtype != "uint8" or weight.dtype != "int32":
        raise ValueError(
            f"conv2d_int8_packed: data {list(data.shape)} {data.dtype} must be 4-d uint8 and "
            f"the packed weight {list(weight.shape)} {weight.dtype} 5-d int32"
        )
    blocks, groups, kh, kw, b = weight.shape
    if groups != -(-data.shape[1] // 4):
        raise ValueError(
            f"conv2d_int8_packed: the packed weight {list(weight.shape)} does not fit data "
            f"{list(data.shape)}"
        )
    (sh, sw), (dh, dw) = strides, dilation
    padded = _pad_u8(data, padding, pad_value) if pad_value else pad_nchw(data, padding)
    words = pack_words(padded)
    oh, ow = window_positions(words, (kh, kw), strides, dilation)
    rc = te.reduce_axis((0, groups), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")

    vnni = has_vnni()
    intrinsic = VPDPBUSD.get(b)
    if vnni and intrinsic is None:
        raise ValueError(f"conv2d_int8_packed: no VNNI form for blocks of {b} channels")

    def product_sum(i: PrimExpr, fo: PrimExpr, fi: PrimExpr, y: PrimExpr, x: PrimExpr):
        pixel = words[i, rc, y * sh + ry * dh, x * sw + rx * dw]
        kernel = weight[fo, rc, ry, rx, fi]
        if vnni:
            product = te.call_intrin("int32", intrinsic, te.const(0, "int32"), pixel, kernel)
        else:
            product = dot4(pixel, kernel)
        return te.sum(product, axis=[rc, ry, rx])

    attrs = {
        "schedule": schedule_conv2d_int8_packed,
        "block": b,
        "pointwise": (kh, kw, sh, sw) == (1, 1, 1, 1) and not any(padding),
        "block_bytes": 4 * groups * kh * kw * b,
    }
    if blocked_result:
        return te.compute(
            (data.shape[0], blocks, oh, ow, b),
            lambda i, fo, y, x, fi: product_sum(i, fo, fi, y, x),
            name="T_conv2d_int8",
            tag="conv2d_int8_packed",
            attrs=attrs | {"pointwise": False},
        )
    return te.compute(
        (data.shape[0], blocks * b, oh, ow),
        lambda i, f, y, x: product_sum(i, f // b, f % b, y, x),
        name="T_conv2d_int8",
        tag="conv2d_int8_packed",
        attrs=attrs,
    )


def _pad_u8(data: te.Tensor, padding: Sequence[int], value: int) -> te.Tensor:
    """NCHW u8 ``data`` with borders ``[top, left, bottom, right]`` of
    ``value``, materialized."""
    top, left, bottom, right = padding
    n, c, h, w = data.shape

    def fcompute(b: PrimExpr, ch: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        inside = (y >= top) & (y < top + h) & (x >= left) & (x < left + w)
        return te.if_then_else(inside, data[b, ch, y - top, x - left], te.const(value, "uint8"))

    shape = (n, c, h + top + bottom, w + left + right)
    return te.compute(shape, fcompute, name="T_pad", tag="pad", attrs={"materialize": True})


def blocked_words(
    data: te.Tensor, padding: Sequence[int], pad_value: int = 0, window: bool = False
) -> te.Tensor:
    """Blocked u8 ``[N, C/c, H, W, c]`` → i32 ``[N, C/c, H', W', c/4]``
    with zero borders ``[top, left, bottom, right]``: four adjacent
    channels a little-endian word. Padded, it is materialized (one pass,
    the borders written once); so it is for a ``window`` larger than one
    pixel: read in place under a 3×3 window, LLVM keeps four byte loads,
    shifts and ors per word (5× slower). Unpadded under a 1×1 window it is
    read where the reduction needs a word (no copy: LLVM merges the four
    byte loads into one word load, broadcast to the ``vpdpbusd``; it does
    not when they read a padded copy, hence the padded words are built
    here)."""
    top, left, bottom, right = padding
    n, cb, h, w, c = data.shape

    def fcompute(b: PrimExpr, g: PrimExpr, y: PrimExpr, x: PrimExpr, j: PrimExpr) -> PrimExpr:
        word = little_endian_word(
            lambda k: te.cast("int32", data[b, g, y - top, x - left, j * 4 + k])
        )
        if not any(padding):
            return word
        inside = (y >= top) & (y < top + h) & (x >= left) & (x < left + w)
        border = pad_value * 0x01010101 - (1 << 32 if pad_value >= 128 else 0)
        return te.if_then_else(inside, word, te.const(border, "int32"))

    shape = (n, cb, h + top + bottom, w + left + right, c // 4)
    attrs = {"materialize": True} if any(padding) or window else {}
    return te.compute(shape, fcompute, name="T_pack_words", tag="pack", attrs=attrs)


def conv2d_int8_nchwc(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    pad_value: int = 0,
) -> te.Tensor:
    """The int8 conv on blocked activations (TVM's ``conv2d_NCHWc_int8``):
    u8 data ``[N, C/c, H, W, c]`` (``c`` a multiple of 4), the weight as
    :func:`conv2d_int8_packed` → ``[N, O/b, OH, OW, b]`` i32.

    Input channels ``4·g .. 4·g+3`` are four adjacent bytes of a pixel's
    block (:func:`blocked_words` reads them as one word); each output pixel's
    ``b`` channels are one vector, stored whole by the epilogue."""
    blocks, groups, kh, kw, b = weight.shape
    n, outer, _, _, chans = data.shape
    if chans % 4 or groups != outer * chans // 4 or weight.dtype != "int32":
        raise ValueError(
            f"conv2d_int8_packed: blocked data {list(data.shape)} (NCHW<c>c, c a multiple of 4) "
            f"does not fit the packed weight {list(weight.shape)} {weight.dtype}"
        )
    (sh, sw), (dh, dw) = strides, dilation
    words = blocked_words(data, padding, pad_value, window=(kh, kw) != (1, 1))
    oh, ow = window_positions(words, (kh, kw), strides, dilation)
    words_a_block = chans // 4
    rco = te.reduce_axis((0, outer), name="rco")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    rci = te.reduce_axis((0, words_a_block), name="rci")
    vnni = has_vnni()
    intrinsic = VPDPBUSD.get(b)
    if vnni and intrinsic is None:
        raise ValueError(f"conv2d_int8_packed: no VNNI form for blocks of {b} channels")

    def fcompute(i: PrimExpr, fo: PrimExpr, y: PrimExpr, x: PrimExpr, fi: PrimExpr) -> PrimExpr:
        pixel = words[i, rco, y * sh + ry * dh, x * sw + rx * dw, rci]
        kernel = weight[fo, rco * words_a_block + rci, ry, rx, fi]
        if vnni:
            product = te.call_intrin("int32", intrinsic, te.const(0, "int32"), pixel, kernel)
        else:
            product = dot4(pixel, kernel)
        return te.sum(product, axis=[rco, ry, rx, rci])

    return te.compute(
        (n, blocks, oh, ow, b),
        fcompute,
        name="T_conv2d_int8",
        tag="conv2d_int8_packed",
        attrs={
            "schedule": schedule_conv2d_int8_packed,
            "block": b,
            "pointwise": False,
            "block_bytes": 4 * groups * kh * kw * b,
        },
    )


def accumulate_into_call(func, callee: str) -> int:
    """``acc + callee(0, a, b)`` → ``callee(acc, a, b)`` wherever the call's
    only use is that add (the tensorize step: the intrinsic accumulates
    itself). Returns how many calls were folded."""
    folded = 0
    for call in [op for op in func.walk() if isinstance(op, CallIntrinOp)]:
        if call.callee.data != callee or len(call.res) != 1 or not call.res[0].has_one_use():
            continue
        zero = call.args[0].owner
        if not (isinstance(zero, arith.ConstantOp) and zero.value.value.data == 0):
            continue
        add = next(iter(call.res[0].uses)).operation
        if not isinstance(add, arith.AddiOp):
            continue
        acc = add.lhs if add.rhs == call.res[0] else add.rhs
        fused = CallIntrinOp(callee, [acc, *call.args[1:]], [add.result.type])
        add.parent_block().insert_op_before(fused, add)
        add.result.replace_all_uses_with(fused.res[0])
        add.detach()
        add.erase()
        call.detach()
        call.erase()
        folded += 1
    return folded


def prefetch_next_block(func, callee: str, blocks: int = 1, locality: int = 1) -> int:
    """Before each reduction step's unrolled tile of ``callee`` calls, a
    prefetch (``prefetcht2`` at the default ``locality``) of the weight
    row the same step reads in each of the *next* tile's ``blocks`` output
    blocks (``weight[min(fo + blocks + k, last), ...]``, the weight the
    third operand of the calls). The blocks' weights are read once per
    inference each (7–15 MB in ResNet-50's 14² and 7² stages: from L3 or
    DRAM), so the first row of every block waited on them; now they arrive
    while the previous block computes. Returns how many prefetches were
    placed."""
    placed = 0
    for call in [op for op in func.walk() if isinstance(op, CallIntrinOp)]:
        if call.callee.data != callee or len(call.args) != 3:
            continue
        weight = call.args[2].owner
        lane = call.parent_op()
        if not (isinstance(weight, LoadOp) and isinstance(lane, ForOp)):
            continue
        tile = lane  # the outermost unrolled loop around the lane: the register tile
        while isinstance(up := tile.parent_op(), ForOp) and up.kind.data == "unrolled":
            tile = up
        if tile is lane:
            continue
        step = tile.parent_op()
        if not isinstance(step, ForOp) or any(
            isinstance(op, CallIntrinOp) and op.callee.data == PREFETCH
            for op in step.body.block.ops
        ):
            continue  # one prefetch a reduction step (the first call of its tile)
        hoisted = _hoisted_indices(weight, lane, tile)
        if hoisted is None:
            continue  # an index the tile computes otherwise: no prefetch (a hint only)
        ops, indices = hoisted
        index = IndexType()
        last = arith.ConstantOp(IntegerAttr(weight.buffer.type.get_shape()[0] - 1, index))
        hints = [arith.ConstantOp(IntegerAttr(v, i32)) for v in (0, locality, 1)]
        ops += [last, *hints]
        for ahead in range(blocks, 2 * blocks):
            offset = arith.ConstantOp(IntegerAttr(ahead, index))
            following = arith.AddiOp(indices[0], offset)
            clamped = arith.MinUIOp(following, last)
            load = LoadOp(weight.buffer, [clamped.result, *indices[1:]])
            prefetch = CallIntrinOp(PREFETCH, [load.res, *(h.result for h in hints)])
            ops += [offset, following, clamped, load, prefetch]
            placed += 1
        for op in ops:
            step.body.block.insert_op_before(op, tile)
    return placed


class _NotHoistable(Exception):
    """An index of the weight load is not integer arithmetic on values
    defined outside the tile."""


def _hoisted_indices(
    load: LoadOp, lane: ForOp, tile: ForOp
) -> tuple[list[Operation], list[SSAValue]] | None:
    """Copies of the index computations of ``load`` (inside the ``lane``
    loop, within ``tile``), to stand before ``tile``, with the lane index
    0: the first element of the row the load reads. Other loops of the tile
    the index reads keep their first iteration too. None when an index is
    computed by anything but constants, additions and multiplications."""
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    mapping: dict[SSAValue, SSAValue] = {lane.body.block.args[0]: zero.result}
    loop: Operation | None = lane
    while loop is not tile:
        loop = loop.parent_op()
        assert isinstance(loop, ForOp)
        mapping[loop.body.block.args[0]] = zero.result
    copies: list[Operation] = [zero]

    def value(v: SSAValue) -> SSAValue:
        if v in mapping:
            return mapping[v]
        owner = v.owner
        if not isinstance(owner, Operation) or not tile.is_ancestor(owner):
            return v
        if not isinstance(owner, arith.ConstantOp | arith.AddiOp | arith.MuliOp | arith.SubiOp):
            raise _NotHoistable
        copy = owner.clone(value_mapper={o: value(o) for o in owner.operands})
        copies.append(copy)
        for old, new in zip(owner.results, copy.results):
            mapping[old] = new
        return mapping[v]

    try:
        return copies, [value(i) for i in load.indices]
    except _NotHoistable:
        for op in reversed(copies):  # unplaced: drop their uses of the tile's values
            op.erase()
        return None


def _schedule_pixel_vectors(sch, conv: te.Tensor, out: te.Tensor) -> None:
    """A 1×1 stride-1 convolution over a plane of a multiple of ``b``
    pixels: the rows fused into one pixel axis (``tir-simplify`` folds the
    row and column back into its index), ``b`` pixels a vector, the weight
    word broadcast; the epilogue then loads and stores whole vectors of
    pixels::

        parallel for (n, fo) fused:
          for po:                                  # b-pixel tiles of the plane
            acc[b][b] = 0
            for rc4:
              for fi in b (unrolled):
                for pi in b (vectorized):          # acc[fi] = vpdpbusd(acc[fi], in[rc4, p : p+b], bcast(w[fo, rc4, 0, 0, fi]))
            for fi in b (unrolled):
              for pi in b (vectorized):            # out[n, f, p : p+b] = epilogue(acc[fi])
    """
    n, f, y, x = sch.get_loops(out.name)
    block = conv.op.attrs["block"]
    fo, fi = sch.split(f, [None, block])
    po, pi = sch.split(sch.fuse(y, x), [None, block])
    sch.reorder(n, fo, po, fi, pi)
    tile = sch.fuse(n, fo)
    vectorize_tile(sch, sch.cache_write(out.name, po))
    accumulate_into_call(sch.func, VPDPBUSD[block])
    if use_threads():
        sch.parallel(tile)
    words = conv.op.input_tensors[0]
    schedule_injective(sch, words)


TILE_WEIGHT_BYTES = 80 * 1024
"""The most weight bytes a register tile's two output blocks may read in
one reduction (all its steps), to be one tile. Measured up to 72 KB
(ResNet-50's 3×3 convs of 256 channels: two blocks 5–7 % faster than one,
though the pair no longer stays in Zen 5's 48 KB L1 across the rows);
larger pairs keep one block (not measured)."""


def tile_blocks(shape: Sequence[int], block_bytes: int) -> int:
    """Output blocks a register tile of the blocked schedule holds, for a
    result ``[N, O/b, OH, OW, b]`` whose packed weight has ``block_bytes``
    a block (``4 · C/4 · KH · KW · b``): 2 (an even number of blocks) when
    a row has at most 8 pixels (7² planes: one block's 7 accumulators
    leave ``vpdpbusd`` waiting on its latency) or when two blocks' weights
    fit in :data:`TILE_WEIGHT_BYTES` (each broadcast word then feeds two
    ``vpdpbusd``; the row is cut in tiles of at most 8 pixels, 16
    accumulators); else 1, a tile of up to 16 pixels."""
    if shape[1] % 2:
        return 1
    return 2 if shape[3] <= 8 or 2 * block_bytes <= TILE_WEIGHT_BYTES else 1


def _schedule_blocked(sch, conv: te.Tensor, out: te.Tensor) -> None:
    """Blocked data and result (:func:`conv2d_int8_nchwc`): an output row's
    pixels in register tiles of ``b``-channel vectors, each reduction step
    one word of a pixel broadcast against a weight row::

        parallel for (n, fo, y) fused:
          for xo:
            acc[B][R][b] = 0
            for rco, ry, rx, rci:
              prefetch(w[fo + B .. fo + 2B - 1, rco·c/4 + rci, ry, rx, 0])
              for foi in B, xi in R (unrolled):
                for fi in b (vectorized):    # acc[foi][xi] = vpdpbusd(acc[foi][xi], bcast(word), w[fo + foi, rco·c/4 + rci, ry, rx, :])
            for foi in B, xi in R (unrolled):
              for fi in b (vectorized):      # out[n, fo + foi, y, x, :] = epilogue(acc[foi][xi])

    ``B`` output blocks a tile (:func:`tile_blocks`; ``R`` up to 8 pixels
    with two blocks, up to 16 with one).
    """
    n, fo, y, x, fi = sch.get_loops(out.name)
    blocks = tile_blocks(out.shape, conv.op.attrs["block_bytes"])
    xo, xi = sch.split(x, [None, row_block(out.shape[3], 8 if blocks > 1 else 16)])
    if blocks > 1:
        fo, foi = sch.split(fo, [None, blocks])
        sch.reorder(n, fo, y, xo, foi, xi, fi)
    else:
        sch.reorder(n, fo, y, xo, xi, fi)
    vectorize_tile(sch, sch.cache_write(out.name, xo))
    accumulate_into_call(sch.func, VPDPBUSD[conv.op.attrs["block"]])
    if has_vnni():
        prefetch_next_block(sch.func, VPDPBUSD[conv.op.attrs["block"]], blocks)
    tile = sch.fuse(n, fo, y)
    if use_threads():
        sch.parallel(tile)
    words = conv.op.input_tensors[0]
    if words.ndim == 4:  # NCHW data: its words packed per call, as schedule_conv2d_int8_packed
        schedule_injective(sch, words)
        schedule_padding(sch, words)
    elif words.op.attrs.get("materialize"):
        _schedule_padded_words(sch, words)


def _schedule_padded_words(sch, words: te.Tensor) -> None:
    """The padded words of blocked data (:func:`blocked_words`): rows
    (``n``, block, ``y``) in parallel, each row's pixels a serial loop
    whose four words LLVM moves as one 16-byte vector. Fusing the pixels
    into the parallel loop too (``schedule_injective``) cost a division
    and a modulo a pixel, 6–12 % of a 3×3 conv over 56² (interleaved, one
    thread)."""
    b, g, y, _, _ = sch.get_loops(words.name)
    if use_threads():
        sch.parallel(sch.fuse(b, g, y))


def schedule_conv2d_int8_packed(sch, conv: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The register-blocked schedule (see the module) of the kernel's one
    output, whose loop nest computes ``conv`` (attached) and its epilogue."""
    if len(outputs) != 1:
        return  # several outputs: the default loop nests (correct, not tiled)
    (out,) = outputs
    if out.ndim == 5:
        _schedule_blocked(sch, conv, out)
        return
    n, f, y, x = sch.get_loops(out.name)
    width, block = out.shape[3], conv.op.attrs["block"]
    if conv.op.attrs["pointwise"] and (out.shape[2] * width) % block == 0:
        _schedule_pixel_vectors(sch, conv, out)
        return
    fo, fi = sch.split(f, [None, block])
    xo, xi = sch.split(x, [None, row_block(width)])
    sch.reorder(n, fo, y, xo, xi, fi)
    tile = sch.fuse(n, fo, y)
    vectorize_tile(sch, sch.cache_write(out.name, xo))
    accumulate_into_call(sch.func, VPDPBUSD[block])
    if use_threads():
        sch.parallel(tile)
    words = conv.op.input_tensors[0]
    schedule_injective(sch, words)
    schedule_padding(sch, words)
