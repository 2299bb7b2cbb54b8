"""Computes of elementwise maths, ``relay.cast`` and ``relay.shape_of``."""

from __future__ import annotations

from xtvm import topi
from xtvm.lowering.relay_to_tir.base import ComputeFn

COMPUTES: dict[str, ComputeFn] = {
    "relay.add": lambda ins, attrs, outs: topi.add(*ins),
    "relay.subtract": lambda ins, attrs, outs: topi.subtract(*ins),
    "relay.multiply": lambda ins, attrs, outs: topi.multiply(*ins),
    "relay.divide": lambda ins, attrs, outs: topi.divide(*ins),
    "relay.floor_mod": lambda ins, attrs, outs: topi.floor_mod(*ins),
    "relay.trunc_mod": lambda ins, attrs, outs: topi.trunc_mod(*ins),
    "relay.maximum": lambda ins, attrs, outs: topi.maximum(*ins),
    "relay.minimum": lambda ins, attrs, outs: topi.minimum(*ins),
    "relay.power": lambda ins, attrs, outs: topi.power(*ins),
    "relay.sigmoid": lambda ins, attrs, outs: topi.sigmoid(ins[0]),
    "relay.tanh": lambda ins, attrs, outs: topi.tanh(ins[0]),
    "relay.exp": lambda ins, attrs, outs: topi.exp(ins[0]),
    "relay.sqrt": lambda ins, attrs, outs: topi.sqrt(ins[0]),
    "relay.log": lambda ins, attrs, outs: topi.log(ins[0]),
    "relay.negative": lambda ins, attrs, outs: topi.negative(ins[0]),
    "relay.abs": lambda ins, attrs, outs: topi.abs(ins[0]),
    "relay.clip": lambda ins, attrs, outs: topi.clip(ins[0], attrs["a_min"], attrs["a_max"]),
    "relay.cast": lambda ins, attrs, outs: topi.cast(ins[0], attrs["dtype"]),
    "relay.shape_of": lambda ins, attrs, outs: topi.shape_of(ins[0], attrs["dtype"]),
}
