"""Grouped 1x1 convolutions on NCHW activations for x86 (AVX-512), without
padded output channels (ShuffleNet's pointwise group convs: 4 groups of 34
or 68 channels on 28x28 and 14x14 planes).

A group's output channels are rarely a multiple of the vector register (34
= 2 x 17), so a kernel whose vectors run across the channel block either
computes zero-padded channels and drops them (34 -> 48: 29% of the work
thrown away, then a slice) or takes blocks of 2-4 channels (one broadcast
weight for every loaded pixel row: load bound). Here the vectors run along
the pixels instead, and the block ``b`` (any divisor of a group's
channels, :func:`~xtvm.topi.x86.config.grouped_block`: 17 for ShuffleNet)
is the number of output channels a register tile unrolls. Each input
vector loaded feeds ``b`` FMAs, whose weights are broadcast from memory
(one operand of the FMA)::

    parallel for (n, fo, po) fused:
      acc[k][b] = 0                             # k vectors by b channels
      for rc:                                   # the group's input channels
        for pk in k (unrolled):
          for fi in b (unrolled):
            for pi in lanes (vectorized):       acc[pk][fi] += in[g·C/G + rc, p] * w[fo, rc, fi]
      for pk, fi (unrolled):
        for pi in lanes (vectorized):           out[n, f, p] = epilogue(acc[pk][fi])

When the register divides the plane (28x28 = 49 x 16) the pixels ``p``
are the flattened plane (``tir-simplify`` turns the fused index back into
one ramp) and the vectors whole registers; otherwise (14x14) a tile holds
``k`` output rows of :func:`~xtvm.topi.x86.config.row_block` pixels a
vector. Side by side (Zen 5, 1 thread, with the batch norm and residual
epilogue): 4 groups of 34 on 28x28 0.063 ms padded to 48 plus a slice ->
0.035 (onnxruntime 0.055); 4 groups of 68 on 14x14 in 4-channel blocks
0.071 -> 0.044 (onnxruntime 0.046). 28-pixel vectors (two registers a
row) legalize lane by lane in LLVM's x86 backend: never wider than the
register.

A shuffled result (``out_shuffle``, ``relay-alter-op-layout``'s
``conv2d-grouped-shuffled``: ShuffleNet's channel shuffle after the conv)
is the same tile, each row stored where the shuffle puts it.

The weight is packed ``OIHW<b>o`` like
:func:`xtvm.topi.x86.conv2d.conv2d_packed`'s, so
``relay.nn.contrib_conv2d_packed`` carries it;
:func:`~xtvm.topi.x86.config.takes_grouped_kernel` says which convs
``relay-alter-op-layout`` packs for it (``conv2d-grouped-packed``) and the
lowering sends here. See docs/shufflenet.md.
"""
from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.autotvm.dispatch import current_config
from xtvm.te.expr import PrimExpr
from xtvm.topi.x86.config import (
    grouped_flat,
    lanes,
    row_block,
    tile_vectors,
    use_threads,
)
from xtvm.topi.x86.tiling import reduction_flops, vectorize_tile


def conv2d_grouped(
    data: te.Tensor, weight: te.Tensor, groups: int, shuffle: bool = False
) -> te.Tensor:
    """Grouped 1x1 convolution, stride 1, no padding: data ``[N, C, H,
    W]``, weight packed ``OIHW<b>o`` (``[O/b, C/groups, 1, 1, b]``) →
    ``[N, O, H, W]``. With ``shuffle`` the result's channels come in the
    order of a channel shuffle of ``groups`` groups (channel ``c`` is the
    conv's ``(c % groups)·O/groups + c / groups``): the tile still
    computes adjacent channels of one group and stores each row where the
    shuffle puts it, so the shuffle costs no copy of its own."""
    if data.ndim != 4 or weight.ndim != 5:
        raise ValueError(
            f"conv2d_grouped: data {list(data.shape)} must be 4-d and the packed "
            f"weight {list(weight.shape)} 5-d"
        )
    n, c, h, w = data.shape
    blocks, cg, kh, kw, b = weight.shape
    o = blocks * b
    if (kh, kw) != (1, 1) or c != cg * groups or o % groups or (o // groups) % b:
        raise ValueError(
            f"conv2d_grouped: groups={groups} and a 1x1 kernel do not fit data "
            f"{list(data.shape)} and packed weight {list(weight.shape)}"
        )
    blocks_per_group = o // groups // b
    rc = te.reduce_axis((0, cg), name="rc")

    def product_sum(i: PrimExpr, g: PrimExpr, fo: PrimExpr, fi: PrimExpr, y, x) -> PrimExpr:
        pixel = data[i, g * cg + rc, y, x]
        return te.sum(pixel * weight[fo, rc, 0, 0, fi], axis=[rc])

    def fcompute(i: PrimExpr, f: PrimExpr, y: PrimExpr, x: PrimExpr) -> PrimExpr:
        # tir-simplify: the loop variables once the schedule splits f
        if shuffle:  # f = j·groups + g: channel j of group g
            g, j = f % groups, f // groups
            return product_sum(i, g, g * blocks_per_group + j // b, j % b, y, x)
        fo = f // b
        return product_sum(i, fo // blocks_per_group, fo, f % b, y, x)

    return te.compute(
        (n, o, h, w),
        fcompute,
        name="T_conv2d_grouped",
        tag="conv2d_grouped",
        attrs={
            "schedule": schedule_conv2d_grouped,
            "block": b,
            "shuffle": groups if shuffle else 0,
        },
    )


def schedule_conv2d_grouped(sch, conv: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The register tile of the module docstring on the kernel's one
    output (the conv's reduction attached to its epilogue), ``k`` from
    :func:`~xtvm.topi.x86.config.tile_vectors`. A shuffled result's
    channel loop ``j·G + g`` is split into ``(g, j)``, so that a tile's
    channels are adjacent ones of one group."""
    if len(outputs) != 1:
        return  # several outputs: the default loop nests (correct, not tiled)
    (out,) = outputs
    cfg = current_config()
    cfg.add_flop(reduction_flops(conv))
    n, f, y, x = sch.get_loops(out.name)
    height, width, block = out.shape[2], out.shape[3], conv.op.attrs["block"]
    flat = grouped_flat(height, width, lanes())
    k = tile_vectors(block, height, width, lanes())
    groups = conv.op.attrs["shuffle"]
    if groups:
        fo, fi, g = sch.split(f, [None, block, groups])
        outer = [g, fo]
    else:
        fo, fi = sch.split(f, [None, block])
        outer = [fo]
    if flat:
        pixels = sch.fuse(y, x)
        po, pk, pi = sch.split(pixels, [None, k, lanes()])
        sch.reorder(n, *outer, po, pk, fi, pi)
        tile = sch.fuse(n, *outer, po)
    else:
        yo, yi = sch.split(y, [None, k])
        xo, xi = sch.split(x, [None, row_block(width, lanes())])
        sch.reorder(n, *outer, yo, yi, xo, fi, xi)
        tile = sch.fuse(n, *outer, yo)
    nests = sch.cache_write(out.name, tile)
    vectorize_tile(sch, nests)
    if use_threads():
        sch.parallel(tile)
