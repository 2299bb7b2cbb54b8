"""Lowerings of the layout ops: broadcast, tile, reverse_sequence, pad and
the depth/space moves. (``relay.layout_transform`` is in ``packed``, as the
dialect defines it.)"""

from __future__ import annotations

from xtvm.dialects.relay.layout import (
    BroadcastToOp,
    DepthToSpaceOp,
    PadOp,
    ReverseSequenceOp,
    SpaceToDepthOp,
    TileOp,
)
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import layout

PATTERNS = [
    lower(BroadcastToOp, lambda ins, attrs, outs: layout.broadcast_to(ins[0], attrs["shape"])),
    lower(TileOp, lambda ins, attrs, outs: layout.tile(ins[0], attrs["reps"])),
    lower(
        ReverseSequenceOp,
        lambda ins, attrs, outs: layout.reverse_sequence(
            *ins, attrs["seq_axis"], attrs["batch_axis"]
        ),
    ),
    lower(PadOp, lambda ins, attrs, outs: layout.pad(*ins, attrs["pad_width"], attrs["pad_mode"])),
    lower(
        DepthToSpaceOp,
        lambda ins, attrs, outs: layout.depth_to_space(ins[0], attrs["block_size"], attrs["mode"]),
    ),
    lower(
        SpaceToDepthOp,
        lambda ins, attrs, outs: layout.space_to_depth(ins[0], attrs["block_size"], attrs["mode"]),
    ),
]
OPS = ops_of(PATTERNS)
