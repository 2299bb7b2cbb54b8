"""Lowering of the Winograd conv (``relay.nn.contrib_conv2d_winograd_without_weight_transform``)
to its x86 te op (:mod:`xtvm.topi.x86.conv2d_winograd`), which carries its
schedule. The weight transform has no kernel: ``relay-fold-constant``
evaluates it at compile time (its reference is the only implementation)."""

from __future__ import annotations

from xtvm.dialects.relay.winograd import Conv2dWinogradOp
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi.x86.conv2d_winograd import conv2d_winograd

PATTERNS = [
    lower(
        Conv2dWinogradOp,
        lambda ins, attrs, outs: conv2d_winograd(
            ins[0], ins[1], attrs["padding"], attrs["tile_size"]
        ),
    ),
]
OPS = ops_of(PATTERNS)
