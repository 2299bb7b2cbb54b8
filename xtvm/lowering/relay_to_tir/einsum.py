"""Lowering of ``relay.einsum``: the equation parsed against the operand
shapes, then one te reduction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xtvm import te, topi
from xtvm.dialects.relay.einsum import EinsumOp, parse_einsum
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of


def _einsum(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
    sub = parse_einsum(EinsumOp.name, attrs["equation"], [t.shape for t in ins])
    return topi.einsum(ins, sub.inputs, sub.output, sub.sizes)


PATTERNS = [lower(EinsumOp, _einsum)]
OPS = ops_of(PATTERNS)
