"""Computes of the layout ops."""

from __future__ import annotations

from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.topi import layout

COMPUTES: dict[str, ComputeFn] = {
    "relay.broadcast_to": lambda ins, attrs, outs: layout.broadcast_to(ins[0], attrs["shape"]),
    "relay.tile": lambda ins, attrs, outs: layout.tile(ins[0], attrs["reps"]),
    "relay.reverse_sequence": lambda ins, attrs, outs: layout.reverse_sequence(
        *ins, attrs["seq_axis"], attrs["batch_axis"]
    ),
    "relay.nn.pad": lambda ins, attrs, outs: layout.pad(
        *ins, attrs["pad_width"], attrs["pad_mode"]
    ),
    "relay.nn.depth_to_space": lambda ins, attrs, outs: layout.depth_to_space(
        ins[0], attrs["block_size"], attrs["mode"]
    ),
    "relay.nn.space_to_depth": lambda ins, attrs, outs: layout.space_to_depth(
        ins[0], attrs["block_size"], attrs["mode"]
    ),
}
