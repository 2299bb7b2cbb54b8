"""Computes of ``relay.arange``, ``relay.one_hot`` and ``relay.trilu``."""

from __future__ import annotations

from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.topi import creation

COMPUTES: dict[str, ComputeFn] = {
    # The result type holds the length.
    "relay.arange": lambda ins, attrs, outs: creation.arange(
        attrs["start"], attrs["step"], outs[0].get_shape()[0], attrs["dtype"]
    ),
    "relay.one_hot": lambda ins, attrs, outs: creation.one_hot(
        *ins, attrs["depth"], attrs["axis"]
    ),
    "relay.trilu": lambda ins, attrs, outs: creation.trilu(ins[0], attrs["upper"], attrs["k"]),
}
