"""x86 schedules of kernels with dynamic shapes (extents that are shape
variables, docs/dynamic-shapes.md), where the static schedules' splits and
fusions of constant extents do not apply.

* a kernel of injective ops, pools and reductions (the kernels
  :func:`~xtvm.topi.x86.injective.schedule_default` takes when static): the
  loops above each output's row are fused (a dynamic batch outermost fuses
  with the static loops inside it) and run in parallel, and a static row is
  vectorized as in
  :func:`~xtvm.topi.x86.injective.schedule_injective`; a dynamic row is
  split into vector-wide chunks and a scalar tail
  (:meth:`xtvm.schedule.Schedule.split_tail`);
* a kernel whose output holds a packed dense (``dense_pack``, a dynamic
  number of rows): the static schedule's register tiles, ``ROW_BLOCK`` rows
  by one weight block (``b`` outputs in vector accumulators, the reduction
  inside, the fused epilogue written back from them), over the whole chunks
  of rows (``split_tail``), the weight blocks outermost and parallel; the
  last rows (fewer than ``ROW_BLOCK``) one row per tile;
* a packed conv2d (``conv2d_packed``, NCHWc) with a dynamic batch: the
  static schedule itself (``schedule_conv2d_packed``: its register tiles
  and default knobs; ``fuse`` takes a dynamic outermost loop, so the batch
  joins the parallel tile loop as it does statically);
* a matmul with run-time extents and its elementwise epilogue:
  :mod:`xtvm.topi.x86.dynamic_matmul`'s register tiles;
* a softmax along a last axis of run-time extent
  (:func:`xtvm.topi.dynamic.softmax_last_axis`: the row maximum, the
  materialized exponentials, their sum, the quotient): each stage's loops
  above the row in parallel, the exponentials' and the quotients' rows in
  vector-wide chunks and a scalar tail (``compute_at`` takes static
  extents only, so the stages stay four nests);
* any other kernel keeps its default loop nests.
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.target import MAX_VECTOR_LANES
from xtvm.te.operation import ComputeOp
from xtvm.te.placement import topological_order
from xtvm.topi.x86.config import lanes, use_threads
from xtvm.topi.x86.dense import ROW_BLOCK
from xtvm.topi.x86.dynamic_matmul import inner_loop, schedule_matmul_dynamic
from xtvm.topi.x86.injective import PARALLEL_TAGS, VECTOR_TAGS
from xtvm.topi.x86.tiling import vectorize_tile


def schedule_dynamic_injective(sch, tensor: te.Tensor, vectorize: bool) -> None:
    """Parallelize the outermost loop storing ``tensor`` and vectorize its row."""
    *outer, row = sch.get_loops(tensor.name)
    extent = tensor.shape[-1]
    width = lanes()
    inner = None
    if vectorize and isinstance(extent, int):
        if extent % width == 0 and extent > width:
            _, inner = sch.split(row, [None, width])
        elif 1 < extent <= MAX_VECTOR_LANES:
            inner = row
    elif vectorize:
        _, inner, _ = sch.split_tail(row, width)
    if outer and use_threads():
        # a dynamic batch fuses with the static loops inside it (as statically);
        # else the static loops before the first dynamic one fuse
        dims = tensor.shape[: len(outer)]
        static = next((k for k, d in enumerate(dims) if not isinstance(d, int)), len(dims))
        if len(outer) > 1 and all(isinstance(d, int) for d in dims[1:]):
            sch.parallel(sch.fuse(*outer))
        else:
            sch.parallel(sch.fuse(*outer[:static]) if static > 1 else outer[0])
    if inner is not None:
        sch.vectorize(inner)


def schedule_dense_pack_dynamic(sch, dense: te.Tensor, outputs: Sequence[te.Tensor]) -> bool:
    """The packed dense's register tiles over a dynamic number of rows (see
    the module); False when the kernel is not one output of a 2-d dense."""
    if len(outputs) != 1 or outputs[0].ndim != 2 or dense.ndim != 2:
        return False
    (out,) = outputs
    block = dense.op.attrs["block"]
    i, _ = sch.get_loops(out.name)
    io, ii, it = sch.split_tail(i, ROW_BLOCK)
    # whole chunks of rows: (jo, io, ii, ji), an ROW_BLOCK x block tile per (jo, io)
    jo, ji = sch.split(inner_loop(ii), [None, block])
    sch.reorder(jo, io, ii, ji)
    vectorize_tile(sch, sch.cache_write(out.name, io))
    # the last rows, one at a time: (it, jo_t, ji_t), a 1 x block tile per jo_t
    jo_t, _ = sch.split(inner_loop(it), [None, block])
    vectorize_tile(sch, sch.cache_write(out.name, jo_t))
    if use_threads():
        sch.parallel(jo)
        sch.parallel(jo_t)
    return True


SOFTMAX_STAGES = {"T_softmax_maxelem": False, "T_softmax_exp": True, "T_softmax_expsum": False}
"""The stages of ``softmax_last_axis`` before the quotient, and whether each
is elementwise (its row vectorized) rather than a reduction."""


def schedule_softmax_dynamic(sch, outputs: Sequence[te.Tensor]) -> bool:
    """Schedule a :func:`~xtvm.topi.dynamic.softmax_last_axis` kernel (see
    the module); False, changing nothing, for any other kernel."""
    if len(outputs) != 1 or outputs[0].op.name != "T_softmax_norm":
        return False
    stages = {t.op.name: t for t in topological_order(outputs) if isinstance(t.op, ComputeOp)}
    if set(stages) != {*SOFTMAX_STAGES, "T_softmax_norm"}:
        return False
    for name, elementwise in SOFTMAX_STAGES.items():
        if stages[name].shape:
            schedule_dynamic_injective(sch, stages[name], vectorize=elementwise)
    schedule_dynamic_injective(sch, outputs[0], vectorize=True)
    return True


def schedule_dynamic(sch, outputs: Sequence[te.Tensor]) -> bool:
    """Schedule a dynamic kernel: a packed dense, or injective ops, pools and
    reductions (see the module); False, leaving it as it is, for any other."""
    if schedule_matmul_dynamic(sch, outputs) or schedule_softmax_dynamic(sch, outputs):
        return True
    tensors = topological_order(outputs)
    dense = [t for t in tensors if isinstance(t.op, ComputeOp) and t.op.tag == "dense_pack"]
    if len(dense) == 1:
        return schedule_dense_pack_dynamic(sch, dense[0], outputs)
    conv = [t for t in tensors if isinstance(t.op, ComputeOp) and t.op.tag == "conv2d_packed"]
    if len(conv) == 1 and len(outputs) == 1 and all(isinstance(d, int) for d in conv[0].shape[1:]):
        conv[0].op.attrs["schedule"](sch, conv[0], list(outputs))
        return True
    ops = [t.op for t in tensors if isinstance(t.op, ComputeOp)]
    if not ops or any(op.tag not in PARALLEL_TAGS for op in ops):
        return False
    reduces = any(op.reduce_axis for op in ops)
    for out in outputs:
        if out.shape:
            schedule_dynamic_injective(sch, out, out.op.tag in VECTOR_TAGS and not reduces)
    return True
