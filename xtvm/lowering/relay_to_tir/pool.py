"""Computes of the 2-d pools (NCHW)."""

from __future__ import annotations

from xtvm import topi
from xtvm.lowering.relay_to_tir.base import ComputeFn

_WINDOW = ("pool_size", "strides", "dilation", "padding", "ceil_mode")

COMPUTES: dict[str, ComputeFn] = {
    "relay.nn.max_pool2d": lambda ins, attrs, outs: topi.max_pool2d(
        ins[0], **{k: attrs[k] for k in _WINDOW}
    ),
    "relay.nn.avg_pool2d": lambda ins, attrs, outs: topi.avg_pool2d(
        ins[0], **{k: attrs[k] for k in (*_WINDOW, "count_include_pad")}
    ),
    "relay.nn.global_max_pool2d": lambda ins, attrs, outs: topi.global_max_pool2d(ins[0]),
    "relay.nn.global_avg_pool2d": lambda ins, attrs, outs: topi.global_avg_pool2d(ins[0]),
}
