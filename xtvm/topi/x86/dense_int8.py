"""u8 × s8 dense with s32 accumulation on AVX-512 VNNI (TVM's int8
``dense`` with the ``dot_16x1x16_uint8_int8_int32`` intrinsic), the dense
form of :mod:`xtvm.topi.x86.conv2d_int8`.

The weight is packed at compile time ``NK<b>n4k`` as i32 words (``[N/b,
ceil(K/4), b]``, byte ``k`` of a word = reduction element ``4·g + k``; see
``relay.nn.contrib_dense_int8_packed``), the data rows per call into the
same words (``[M, ceil(K/4)]``, :func:`~xtvm.topi.x86.conv2d_int8.pack_words`),
so one data word is broadcast to the ``b`` lanes of a ``vpdpbusd`` whose
other operand is a row of weight words. The schedule tiles ``mb`` rows by
``nb`` blocks of ``b`` outputs in registers (several independent
accumulators: a single row, ResNet's classifier, would otherwise wait on one
``vpdpbusd`` chain)::

    parallel for (mo, jo) fused:
      acc[mb][nb][b] = 0
      for g in ceil(K/4):
        for mi in mb, jc in nb (unrolled):
          for ji in b (vectorized):   # acc = vpdpbusd(acc, bcast(x[m, g]), w[jo·nb + jc, g, :])
      for mi, jc (unrolled):
        for ji in b (vectorized):     # out[m, j] = epilogue(acc)
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te.expr import PrimExpr
from xtvm.topi.x86.config import has_vnni, use_threads
from xtvm.topi.x86.conv2d_int8 import VPDPBUSD, accumulate_into_call, dot4, pack_words
from xtvm.topi.x86.injective import schedule_injective
from xtvm.topi.x86.tiling import vectorize_tile

ROW_BLOCK = 4
"""Rows of the register tile."""

ACCUMULATORS = 8
"""Vector accumulators of a tile (rows × blocks), enough independent
``vpdpbusd`` chains to hide its latency."""


def dense_int8_packed(data: te.Tensor, weight: te.Tensor) -> te.Tensor:
    """u8 data ``[M, K]`` · s8 weight packed ``NK<b>n4k`` as i32 words
    (``[N/b, ceil(K/4), b]``) → ``[M, N]`` i32."""
    if data.ndim != 2 or weight.ndim != 3 or data.dtype != "uint8" or weight.dtype != "int32":
        raise ValueError(
            f"dense_int8_packed: data {list(data.shape)} {data.dtype} must be [M, K] uint8 and "
            f"the packed weight {list(weight.shape)} {weight.dtype} [N/b, ceil(K/4), b] int32"
        )
    blocks, groups, b = weight.shape
    if groups != -(-data.shape[1] // 4):
        raise ValueError(
            f"dense_int8_packed: the packed weight {list(weight.shape)} does not fit data "
            f"{list(data.shape)}"
        )
    vnni = has_vnni()
    intrinsic = VPDPBUSD.get(b)
    if vnni and intrinsic is None:
        raise ValueError(f"dense_int8_packed: no VNNI form for blocks of {b} outputs")
    words = pack_words(data)
    rg = te.reduce_axis((0, groups), name="rg")

    def fcompute(i: PrimExpr, j: PrimExpr) -> PrimExpr:
        word, kernel = words[i, rg], weight[j // b, rg, j % b]
        if vnni:
            product = te.call_intrin("int32", intrinsic, te.const(0, "int32"), word, kernel)
        else:
            product = dot4(word, kernel)
        return te.sum(product, axis=rg)

    return te.compute(
        (data.shape[0], blocks * b),
        fcompute,
        name="T_dense_int8",
        tag="dense_int8_packed",
        attrs={"schedule": schedule_dense_int8_packed, "block": b},
    )


def schedule_dense_int8_packed(sch, dense: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The register-blocked schedule (see the module) of the kernel's one
    output, whose loop nest computes ``dense`` (attached) and its epilogue."""
    if len(outputs) != 1:
        return  # several outputs: the default loop nests (correct, not tiled)
    (out,) = outputs
    i, j = sch.get_loops(out.name)
    m, block = out.shape[0], dense.op.attrs["block"]
    rows = max(r for r in range(1, min(ROW_BLOCK, m) + 1) if m % r == 0)
    blocks = out.shape[1] // block
    nb = max(k for k in range(1, ACCUMULATORS // rows + 1) if blocks % k == 0)
    mo, mi = sch.split(i, [None, rows])
    jo, *jc, ji = sch.split(j, [None, nb, block] if nb > 1 else [None, block])
    sch.reorder(mo, jo, *jc, mi, ji)
    tile = sch.fuse(mo, jo)
    vectorize_tile(sch, sch.cache_write(out.name, tile))
    if has_vnni():
        accumulate_into_call(sch.func, VPDPBUSD[block])
    if use_threads():
        sch.parallel(tile)
    schedule_injective(sch, dense.op.input_tensors[0])
