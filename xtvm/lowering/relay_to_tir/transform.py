"""Computes of shape and layout ops."""

from __future__ import annotations

from xtvm import topi
from xtvm.dialects.relay.transform import SplitOp
from xtvm.lowering.relay_to_tir.base import ComputeFn

COMPUTES: dict[str, ComputeFn] = {
    # The result type holds the resolved shape (no 0 or -1 left).
    "relay.reshape": lambda ins, attrs, outs: topi.reshape(ins[0], outs[0].get_shape()),
    "relay.transpose": lambda ins, attrs, outs: topi.transpose(ins[0], attrs.get("axes")),
    "relay.concatenate": lambda ins, attrs, outs: topi.concatenate(ins, attrs["axis"]),
    "relay.split": lambda ins, attrs, outs: topi.split(
        ins[0],
        SplitOp.bounds(ins[0].shape[attrs["axis"]], attrs["indices_or_sections"]),
        attrs["axis"],
    ),
    "relay.squeeze": lambda ins, attrs, outs: topi.squeeze(ins[0], attrs.get("axis")),
    "relay.expand_dims": lambda ins, attrs, outs: topi.expand_dims(
        ins[0], attrs["axis"], attrs["num_newaxis"]
    ),
    "relay.full": lambda ins, attrs, outs: topi.full(
        outs[0].get_shape(), attrs.get("dtype") or ins[0].dtype, ins[0]
    ),
}
