"""Depthwise conv2d for x86 (TVM's ``depthwise_conv2d_nchw`` x86 schedule,
with NCHW activations and an OIHW ``[C, 1, KH, KW]`` weight).

Each channel convolves alone, so there is no channel reduction to vectorize
over; the kernel vectorizes along the output row instead. In a fused kernel
the reduction is attached to the epilogue, and the schedule keeps a tile of
``rows × lanes`` output pixels in registers (each weight broadcast once per
tile row set; ``R`` pixels, about one register)::

    parallel for (n, c, yo) fused:
      for xo:
        acc[rows][R] = 0
        for ry, rx:
          for yi in rows (unrolled):
            for xi in R (vectorized):       acc[yi] += in[c, y+ry, x+rx] * w[c, ry, rx]
        for yi in rows (unrolled):
          for xi in R (vectorized):         out = epilogue(acc)

The zero padding is a separate parallel loop nest (the reduction reads no
guarded elements). Tiles divide the output when they can (``rows`` a divisor
of the height, the row tile one of the width, see ``config.row_block``); a
width with no divisor near the lanes ends in a guarded partial tile, which
runs as scalar code.
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.autotvm.dispatch import current_config
from xtvm.te.expr import PrimExpr
from xtvm.topi.x86.config import lanes, row_block, use_threads
from xtvm.topi.x86.conv2d import pad_nchw, schedule_padding, window_positions
from xtvm.topi.x86.tiling import reduction_flops, tile_candidates, vectorize_tile

ROWS = 4
"""Output rows of the register tile."""

NARROW_ROWS = 8
"""Output rows of the register tile on rows of at most 14 pixels (one
register): ShuffleNet's 7x7 planes took one row a tile (7 has no divisor
in 2-4) and 14x14 two; with up to 8 (7: the rows a tile's taps share are
loaded once) 544 channels on 7x7, 1 thread, 0.028 -> 0.015 ms and 272 on
14x14 0.024 -> 0.016 (onnxruntime 0.014 and 0.027). Wider rows keep 4: 7
rows of 28 pixels ran ~15% slower."""


def depthwise_conv2d_nchw(
    data: te.Tensor,
    weight: te.Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    out_dtype: str | None = None,
) -> te.Tensor:
    """Depthwise 2-d convolution: data ``[N, C, H, W]``, weight ``[C, 1, KH,
    KW]`` → ``[N, C, OH, OW]``, products accumulated in ``out_dtype``
    (default: the data's; ``"int32"`` for int8 operands, which may differ)."""
    acc = out_dtype or data.dtype
    n, c = data.shape[:2]
    o, one, kh, kw = weight.shape
    if o != c or one != 1:
        raise ValueError(
            f"depthwise_conv2d_nchw: weight {list(weight.shape)} must be [C, 1, KH, KW] "
            f"for data {list(data.shape)}"
        )
    (sh, sw), (dh, dw) = strides, dilation
    padded = pad_nchw(data, padding)
    oh, ow = window_positions(padded, (kh, kw), strides, dilation)
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")

    def fcompute(i: PrimExpr, ch: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        pixel = padded[i, ch, y * sh + ry * dh, x * sw + rx * dw]
        kernel = weight[ch, 0, ry, rx]
        if acc != data.dtype or acc != weight.dtype:
            pixel, kernel = te.cast(acc, pixel), te.cast(acc, kernel)
        return te.sum(pixel * kernel, axis=[ry, rx])

    return te.compute(
        (n, c, oh, ow),
        fcompute,
        name="T_depthwise_conv2d",
        tag="depthwise_conv2d_nchw",
        attrs={"schedule": schedule_depthwise_conv2d},
    )


def schedule_depthwise_conv2d(sch, conv: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The register-tiled schedule (see the module) of the kernel's one output.

    It is also the AutoTVM template ``depthwise_conv2d_nchw``: output rows
    (``tile_oh``) and the row tile (``tile_ow``) default to the
    hand-written choices."""
    if len(outputs) != 1:
        return
    (out,) = outputs
    cfg = current_config()
    cfg.add_flop(reduction_flops(conv))
    n, c, y, x = sch.get_loops(out.name)
    height, width = out.shape[2], out.shape[3]
    limit = NARROW_ROWS if width <= 14 else ROWS
    rows = max(d for d in range(1, limit + 1) if height % d == 0)
    row = row_block(width, lanes())
    rows = cfg.define_knob(
        "tile_oh",
        list(dict.fromkeys([rows, *(d for d in (1, 2, 4, 8) if height % d == 0)])),
        default=rows,
    )
    tile_ow = cfg.define_split(
        "tile_ow", width, candidates=tile_candidates(width, row), default=[-1, row]
    )
    yo, yi = sch.split(y, [None, rows])
    xo, xi = tile_ow.apply(sch, x)
    sch.reorder(n, c, yo, xo, yi, xi)
    tile = sch.fuse(n, c, yo)
    nests = sch.cache_write(out.name, xo)
    vectorize_tile(sch, nests)
    if use_threads():
        sch.parallel(tile)
    schedule_padding(sch, conv)
