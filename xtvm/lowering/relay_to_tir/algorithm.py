"""Lowerings of ``relay.topk``, ``relay.cumsum`` and ``relay.cumprod``."""

from __future__ import annotations

from xtvm import topi
from xtvm.dialects.relay.algorithm import CumprodOp, CumsumOp, TopKOp
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of

PATTERNS = [
    lower(
        TopKOp,
        lambda ins, attrs, outs: topi.topk(ins[0], attrs["k"], attrs["axis"], attrs["is_ascend"]),
    ),
    lower(
        CumsumOp,
        lambda ins, attrs, outs: topi.cumsum(
            ins[0], attrs["axis"], attrs["exclusive"], attrs["reverse"]
        ),
    ),
    lower(
        CumprodOp,
        lambda ins, attrs, outs: topi.cumprod(
            ins[0], attrs["axis"], attrs["exclusive"], attrs["reverse"]
        ),
    ),
]
OPS = ops_of(PATTERNS)
