"""Lowering of ``relay.reinterpret``."""

from __future__ import annotations

from xtvm.dialects.relay.bitcast import ReinterpretOp
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi.bitcast import reinterpret

PATTERNS = [lower(ReinterpretOp, lambda ins, attrs, outs: reinterpret(ins[0], attrs["dtype"]))]
OPS = ops_of(PATTERNS)
