"""Relay → TIR: each primitive function (or single relay op) becomes a
``tir.prim_func`` built from its TOPI computes.

* ``base``: the compute-row signature and the lowering's error;
* ``tensor``, ``nn``, ``transform``: one row per relay op (op name → compute),
  by category as the relay dialect;
* ``kernel``: relay function bodies → te → ``tir.prim_func``;
* ``convert_relay_to_tir``: the pass ``convert-relay-to-tir``.
"""

from xtvm.lowering.relay_to_tir.convert_relay_to_tir import ConvertRelayToTirPass
from xtvm.lowering.relay_to_tir.kernel import COMPUTES, GRAPH_OPS

__all__ = ["COMPUTES", "GRAPH_OPS", "ConvertRelayToTirPass"]
