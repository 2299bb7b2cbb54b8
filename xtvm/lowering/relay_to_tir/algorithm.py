"""Computes of ``relay.topk``, ``relay.cumsum`` and ``relay.einsum``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xtvm import te, topi
from xtvm.dialects.relay.einsum import EinsumOp, parse_einsum
from xtvm.lowering.relay_to_tir.base import ComputeFn


def _einsum(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
    sub = parse_einsum(EinsumOp.name, attrs["equation"], [t.shape for t in ins])
    return topi.einsum(ins, sub.inputs, sub.output, sub.sizes)


COMPUTES: dict[str, ComputeFn] = {
    "relay.topk": lambda ins, attrs, outs: topi.topk(
        ins[0], attrs["k"], attrs["axis"], attrs["is_ascend"]
    ),
    "relay.cumsum": lambda ins, attrs, outs: topi.cumsum(
        ins[0], attrs["axis"], attrs["exclusive"], attrs["reverse"]
    ),
    "relay.einsum": _einsum,
}
