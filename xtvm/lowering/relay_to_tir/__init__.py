"""Relay → TIR: each primitive function (or single relay op) becomes a
``tir.prim_func`` built from its TOPI computes, by conversion patterns.

* ``base``: the compute signature and the lowering's error;
* ``tensor``, ``math``, ``nn``, ``conv``, ``packed``, ...: the category
  files, named like the relay dialect's; each declares ``PATTERNS``, one
  ``lower(op_class, compute)`` per op (or op family), and ``OPS``;
* ``patterns``: the rewrite patterns (an op's, a primitive function's, a
  kernel call's);
* ``kernel``: relay function bodies → te → ``tir.prim_func``;
* ``schedule``: the schedules a kernel's te ops name;
* ``convert_relay_to_tir``: the category list, the conversion target and the
  pass ``convert-relay-to-tir``.
"""

from xtvm.lowering.relay_to_tir.convert_relay_to_tir import (
    CATEGORIES,
    COMPUTES,
    PATTERNS,
    ConvertRelayToTirPass,
    populate_relay_to_tir_patterns,
)
from xtvm.lowering.relay_to_tir.kernel import GRAPH_OPS

__all__ = [
    "CATEGORIES",
    "COMPUTES",
    "GRAPH_OPS",
    "PATTERNS",
    "ConvertRelayToTirPass",
    "populate_relay_to_tir_patterns",
]
