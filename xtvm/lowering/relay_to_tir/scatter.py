"""Lowerings of the scatters."""

from __future__ import annotations

from xtvm.dialects.relay.scatter import ScatterElementsOp, ScatterNdOp
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import scatter

PATTERNS = [
    lower(
        ScatterElementsOp,
        lambda ins, attrs, outs: scatter.scatter_elements(*ins, attrs["axis"], attrs["reduction"]),
    ),
    lower(
        ScatterNdOp, lambda ins, attrs, outs: scatter.scatter_nd(*ins, attrs["reduction"])
    ),
]
OPS = ops_of(PATTERNS)
