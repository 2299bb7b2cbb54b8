"""LRN for x86: the generic compute (:func:`xtvm.topi.nn.lrn`, one
elementwise stage for the usual window sizes) with a row schedule that
suits it.

The default injective schedule makes a row of up to 64 elements one
vector; for LRN's long expression (five loads, selects, square roots, a
division) a 54- or 55-element vector spills and runs about six times
slower than LLVM's own 16-lane loop over the row. So: rows fused and
parallel, a row of at most :data:`WHOLE_ROW` elements one vector, a row the
register divides split by it, any other row left to LLVM's vectorizer.
"""

from __future__ import annotations

from collections.abc import Sequence

from xtvm import te
from xtvm.te import dtype as dt
from xtvm.topi.nn import lrn as generic_lrn
from xtvm.topi.x86.config import lanes, use_threads

WHOLE_ROW = 32
"""Longest row made one vector (measured on AlexNet's and GoogLeNet's LRN
rows: 26 and 27 elements gain, 54 and 55 lose)."""


def lrn(
    x: te.Tensor,
    size: int = 5,
    axis: int = 1,
    alpha: float = 1e-5,
    beta: float = 0.75,
    bias: float = 2.0,
) -> te.Tensor:
    """:func:`xtvm.topi.nn.lrn` with :func:`schedule_lrn`."""
    out = generic_lrn(x, size, axis, alpha, beta, bias)
    out.op.attrs["schedule"] = schedule_lrn
    return out


def schedule_lrn(sch, tensor: te.Tensor, outputs: Sequence[te.Tensor]) -> None:
    """The row schedule of the module on the kernel's output; a window
    summed by a reduction loop keeps its row serial (no vector body)."""
    for out in outputs:
        if not out.shape:
            continue
        *outer, row = sch.get_loops(out.name)
        if outer and use_threads():
            sch.parallel(sch.fuse(*outer) if len(outer) > 1 else outer[0])
        if any(getattr(t.op, "reduce_axis", None) for t in out.op.input_tensors):
            continue
        extent, width = out.shape[-1], lanes(dtype_bits=dt.bits(out.dtype))
        if 1 < extent <= WHOLE_ROW:
            sch.vectorize(row)
        elif extent % width == 0:
            _, inner = sch.split(row, [None, width])
            sch.vectorize(inner)
