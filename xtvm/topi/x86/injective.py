"""The x86 schedules of the light kernels (TVM's ``schedule_injective`` and
``schedule_pool``): the loops above the row run in parallel (fused), and an
injective row is vectorized — split by the register's lanes when they divide
it, whole when it is short enough to be one (multi-register) vector, else
left to LLVM. A pool's or a reduction's row holds its reduction loops, so
it is only parallel.

:func:`schedule_default` applies them to a kernel made only of such ops
(the kernels no op schedule claims: elementwise chains, concatenations,
pools, reductions); any other kernel keeps its default loop nests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xtvm import te
from xtvm.target import MAX_VECTOR_LANES
from xtvm.te.operation import ComputeOp
from xtvm.te.placement import topological_order
from xtvm.topi.x86.config import lanes, use_threads

VECTOR_TAGS = frozenset({"injective", "elemwise", "broadcast"})
"""Ops whose output elements are each a function of inputs read at
computable indices: any of their loops may run in parallel or as vector lanes."""
PARALLEL_TAGS = VECTOR_TAGS | {"pool_max", "pool_avg", "pool_sum", "pad", "comm_reduce"}
"""Ops whose output elements are independent (their loops may run in parallel)."""


def schedule_injective(sch, tensor: te.Tensor, vectorize: bool = True) -> None:
    """Parallelize (and vectorize) the loop nest that stores ``tensor``."""
    *outer, row = sch.get_loops(tensor.name)
    extent = tensor.shape[-1]
    width = lanes()
    inner = None
    if vectorize and extent % width == 0 and extent > width:
        _, inner = sch.split(row, [None, width])
    elif vectorize and 1 < extent <= MAX_VECTOR_LANES:
        inner = row
    if outer and math.prod(tensor.shape[: len(outer)]) > 1 and use_threads():
        sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])
    if inner is not None:
        sch.vectorize(inner)


def schedule_default(sch, outputs: Sequence[te.Tensor]) -> bool:
    """Schedule a kernel of injective ops and pools (see the module); False,
    leaving the kernel as it is, when some op is neither."""
    ops = [t.op for t in topological_order(outputs) if isinstance(t.op, ComputeOp)]
    if not ops or any(op.tag not in PARALLEL_TAGS for op in ops):
        return False
    # a reduction may be attached inside an output's row: then no vectors
    reduces = any(op.reduce_axis for op in ops)
    for out in outputs:
        if not out.shape:
            continue
        schedule_injective(sch, out, vectorize=out.op.tag in VECTOR_TAGS and not reduces)
    return True
