"""Computes of the scatters."""

from __future__ import annotations

from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.topi import scatter

COMPUTES: dict[str, ComputeFn] = {
    "relay.scatter_elements": lambda ins, attrs, outs: scatter.scatter_elements(
        *ins, attrs["axis"], attrs["reduction"]
    ),
    "relay.scatter_nd": lambda ins, attrs, outs: scatter.scatter_nd(*ins, attrs["reduction"]),
}
