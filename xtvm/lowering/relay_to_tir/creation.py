"""Lowerings of ``relay.arange``, ``relay.one_hot`` and ``relay.trilu``."""

from __future__ import annotations

from xtvm.dialects.relay.creation import ArangeOp, OneHotOp, TriluOp
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import creation

PATTERNS = [
    # The result type holds the length.
    lower(
        ArangeOp,
        lambda ins, attrs, outs: creation.arange(
            attrs["start"], attrs["step"], outs[0].get_shape()[0], attrs["dtype"]
        ),
    ),
    lower(
        OneHotOp, lambda ins, attrs, outs: creation.one_hot(*ins, attrs["depth"], attrs["axis"])
    ),
    lower(TriluOp, lambda ins, attrs, outs: creation.trilu(ins[0], attrs["upper"], attrs["k"])),
]
OPS = ops_of(PATTERNS)
