"""dense on a packed weight, register-blocked for x86 (TVM's
``dense_pack``).

The weight is packed ``NK<b>n`` (``[N/b, K, b]``); the product reads element
``[j // b, k, j % b]``, which ``tir-simplify`` turns into ``[jo, k, ji]``
once ``j`` is split by ``b``. The reduction is attached to the fused
epilogue; the schedule tiles ``mb`` rows by ``b`` outputs in registers::

    parallel for (mo, jo) fused:
        acc[mb][b] = 0
        for k:
          for mi in mb (unrolled):
            for ji in b (vectorized):  acc[mi] += x[m, k] * w[jo, k, :]
        for mi in mb (unrolled):
          for ji in b (vectorized):    out[m, j] = epilogue(acc)
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.autotvm.dispatch import current_config
from xtvm.te.expr import PrimExpr
from xtvm.topi.x86.config import use_threads
from xtvm.topi.x86.tiling import reduction_flops, tile_candidates, vectorize_tile

ROW_BLOCK = 8
"""Rows of the register tile (each row is one vector accumulator)."""


def dense_pack(data: te.Tensor, weight: te.Tensor) -> te.Tensor:
    """data ``[M, K]`` · weight packed ``NK<b>n`` (``[N/b, K, b]``) → ``[M, N]``."""
    if data.ndim != 2 or weight.ndim != 3 or data.shape[1] != weight.shape[1]:
        raise ValueError(
            f"dense_pack: data {list(data.shape)} must be [M, K] and the packed weight "
            f"{list(weight.shape)} [N/b, K, b]"
        )
    m, k = data.shape
    blocks, _, b = weight.shape
    rk = te.reduce_axis((0, k), name="rk")

    def fcompute(i: PrimExpr, j: PrimExpr) -> PrimExpr:
        return te.sum(data[i, rk] * weight[j // b, rk, j % b], axis=rk)

    return te.compute(
        (m, blocks * b),
        fcompute,
        name="T_dense_pack",
        tag="dense_pack",
        attrs={"schedule": schedule_dense_pack, "block": b},
    )


ACCUMULATORS = 8
"""Independent vector accumulators a tile needs at least: an FMA's latency
(4 cycles) times the FMAs a core starts a cycle (2)."""


def _divisors(n: int) -> set[int]:
    return {d for d in range(1, n + 1) if n % d == 0}


def column_blocks(rows: int, blocks: int) -> int:
    """Weight blocks a tile of ``rows`` rows takes by default: the largest
    divisor of ``blocks`` keeping ``rows x`` it within :data:`ACCUMULATORS`.
    A single row (a classifier at batch 1) with one block ran one chain of
    dependent FMAs, latency bound: 1000 classes from 544, 1024 and 2048
    features took 0.067, 0.129 and 0.264 ms (onnxruntime 0.035, 0.052,
    0.088); 5 blocks of 8 (125 = 5^3) give five chains."""
    return max(d for d in _divisors(blocks) if d * rows <= ACCUMULATORS)


def schedule_dense_pack(sch, dense: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The register-blocked schedule (see the module) of the kernel's one
    output, whose loop nest computes ``dense`` (attached) and its epilogue.

    It is also the AutoTVM template ``dense_pack``: rows per tile
    (``tile_m``) and weight blocks per tile (``tile_n``) default to the
    hand-written ``min(8, M)`` rows and :func:`column_blocks`."""
    if len(outputs) != 1:
        return
    (out,) = outputs
    cfg = current_config()
    cfg.add_flop(reduction_flops(dense))
    i, j = sch.get_loops(out.name)
    rows, block = min(ROW_BLOCK, out.shape[0]), dense.op.attrs["block"]
    tile_m = cfg.define_split(
        "tile_m",
        out.shape[0],
        candidates=tile_candidates(out.shape[0], rows, 1, 16),
        default=[-1, rows],
    )
    blocks = out.shape[1] // block
    default = column_blocks(rows, blocks)  # first: index 0 is the hand-written schedule
    nb = cfg.define_knob(
        "tile_n",
        list(dict.fromkeys([default, *sorted({1, 2, 4} & _divisors(blocks))])),
        default=default,
    )
    mo, mi = tile_m.apply(sch, i)
    jo, *jc, ji = sch.split(j, [None, nb, block] if nb > 1 else [None, block])
    sch.reorder(mo, jo, *jc, mi, ji)
    tile = sch.fuse(mo, jo)
    nests = sch.cache_write(out.name, tile)
    vectorize_tile(sch, nests)
    if use_threads():
        sch.parallel(tile)
