"""Lowering of ``relay.det``."""

from __future__ import annotations

from xtvm.dialects.relay.linalg import DetOp
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi.linalg import det

PATTERNS = [lower(DetOp, lambda ins, attrs, outs: det(ins[0]))]
OPS = ops_of(PATTERNS)
