"""Lowering of the Winograd ops (``relay.nn.contrib_conv2d_winograd_*``) to
their x86 te ops (:mod:`xtvm.topi.x86.conv2d_winograd`); the conv's carries
its schedule. The weight transform of a constant weight never gets here
(``relay-fold-constant`` evaluates it at compile time); its compute takes
a weight that is not constant (the default injective schedule)."""

from __future__ import annotations

from xtvm.dialects.relay.winograd import Conv2dWinogradOp, WinogradWeightTransformOp
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.passes.relay.winograd import workload_flop
from xtvm.topi.x86.conv2d_winograd import conv2d_winograd, winograd_weight_transform

PATTERNS = [
    lower(
        WinogradWeightTransformOp,
        lambda ins, attrs, outs: winograd_weight_transform(
            ins[0], attrs["tile_size"], attrs["block"]
        ),
    ),
    lower(
        Conv2dWinogradOp,
        lambda ins, attrs, outs: conv2d_winograd(
            ins[0],
            ins[1],
            attrs["padding"],
            attrs["tile_size"],
            workload_flop(attrs.get("workload", "")),
        ),
    ),
]
OPS = ops_of(PATTERNS)
