"""x86 schedule of a matmul kernel with run-time extents (a ``?`` sequence
length: ``1x?x64 · 64x256``, attention's ``?x16 · 16x?`` scores and
``?x? · ?x16`` context), with its fused elementwise epilogue.

The kernel's nest is ``(batch..., i, j)`` with the reduction over ``k``
inside (``te.create_prim_func`` inlines the matmul into the epilogue's
store). ``B[..., k, j]`` is contiguous along ``j``, so the columns are the
vector axis:

* the columns split into blocks of ``COLUMNS`` (``split`` when the extent
  is a static multiple, else ``split_tail``: whole blocks and a scalar tail
  of columns), and the blocks go outside the rows;
* inside a column block the rows split into chunks of ``ROWS``
  (``split_tail`` for a run-time extent): each chunk is a register tile of
  ``ROWS x COLUMNS`` accumulators (``cache_write``: one vector per row, the
  reduction inside, the epilogue applied on write-back), and the last rows
  (fewer than ``ROWS``) are tiles of one row;
* the batch loops (fused) run in parallel, or, with a batch of one, the
  column blocks.

``A[..., i, k]`` is broadcast, so one tile reads ``ROWS`` scalars and one
vector of ``B`` per step of ``k``. Only ``NN`` matmuls (no transposed
operand) of float32 take this schedule: a transposed ``B`` would need
gathers (``dense`` with a constant weight is packed by
``relay-alter-op-layout`` and has its own schedule).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xtvm import te
from xtvm.dialects.tir import ForOp
from xtvm.schedule import LoopRV, Schedule
from xtvm.te.operation import ComputeOp
from xtvm.te.placement import topological_order
from xtvm.te.symbolic import same_dims
from xtvm.topi.x86.config import lanes, use_threads
from xtvm.topi.x86.injective import PARALLEL_TAGS
from xtvm.topi.x86.tiling import vectorize_tile

ROWS = 8
"""Rows of a register tile (one vector accumulator each)."""


def inner_loop(loop: LoopRV) -> LoopRV:
    """The one loop directly inside ``loop`` (a LoopRV of the same block)."""
    (op,) = [o for o in loop.op.body.block.ops if isinstance(o, ForOp)]
    return LoopRV(op, loop.block)


def matmul_anchor(outputs: Sequence[te.Tensor]) -> te.Tensor | None:
    """The kernel's matmul when it is one float32 ``NN`` matmul with an
    elementwise epilogue of its shape and one output; else None."""
    if len(outputs) != 1:
        return None
    tensors = [t for t in topological_order(outputs) if isinstance(t.op, ComputeOp)]
    matmuls = [t for t in tensors if t.op.tag == "matmul"]
    if len(matmuls) != 1:
        return None
    (mm,) = matmuls
    (out,) = outputs
    if mm.dtype != "float32" or not mm.op.name.endswith("_NN") or mm.ndim < 2:
        return None
    if not same_dims(out.shape, mm.shape):
        return None
    others = [t for t in tensors if t is not mm]
    if any(t.op.tag not in PARALLEL_TAGS or t.op.reduce_axis for t in others):
        return None
    return mm


def _row_tiles(sch: Schedule, out: str, rows: LoopRV, extent: int | object) -> None:
    """Register tiles over ``rows`` (directly around a loop of one vector of
    columns): ``ROWS`` rows at a time, then the last rows one at a time."""
    if isinstance(extent, int) and extent % ROWS == 0:
        io, _ = sch.split(rows, [None, ROWS])
        vectorize_tile(sch, sch.cache_write(out, io))
        return
    io, _, it = sch.split_tail(rows, ROWS)
    vectorize_tile(sch, sch.cache_write(out, io))
    vectorize_tile(sch, sch.cache_write(out, it))


def schedule_matmul_dynamic(sch: Schedule, outputs: Sequence[te.Tensor]) -> bool:
    """Schedule the kernel (see the module); False, changing nothing, when
    it is not one ``NN`` matmul with an elementwise epilogue."""
    mm = matmul_anchor(outputs)
    if mm is None:
        return False
    (out,) = outputs
    *batch, i, j = sch.get_loops(out.name)
    m, n = mm.shape[-2], mm.shape[-1]
    width = lanes()
    sch.reorder(j, i)  # the column blocks outside the rows
    if isinstance(n, int) and n % width == 0:
        jo, ji = sch.split(j, [None, width])
    elif isinstance(n, int) and n < width:
        jo, ji = None, j
    else:
        jo, ji, _ = sch.split_tail(j, width)
    rows = inner_loop(ji)
    sch.reorder(rows, ji)
    _row_tiles(sch, out.name, rows, m)
    if not use_threads():
        return True
    static_batch = all(isinstance(d, int) for d in mm.shape[:-2])
    if batch and static_batch and math.prod(mm.shape[:-2]) > 1:
        sch.parallel(sch.fuse(*batch) if len(batch) > 1 else batch[0])
    elif batch and not static_batch:
        sch.parallel(batch[0])
    elif jo is not None:
        sch.parallel(jo)
    return True
