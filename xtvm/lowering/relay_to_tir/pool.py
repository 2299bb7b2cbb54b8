"""Computes of the pools (1-, 2- and 3-d, channel-first; max pooling with
the positions of the maxima)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xtvm import te, topi
from xtvm.lowering.relay_to_tir.base import ComputeFn

_WINDOW = ("pool_size", "strides", "dilation", "padding", "ceil_mode")


def _pool(kind: str) -> ComputeFn:
    def compute(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
        window = {k: attrs[k] for k in _WINDOW}
        if kind == "avg":
            window["count_include_pad"] = attrs["count_include_pad"]
        return topi.pool(ins[0], kind, **window)

    return compute


COMPUTES: dict[str, ComputeFn] = {
    **{f"relay.nn.{kind}_pool{n}d": _pool(kind) for kind in ("max", "avg") for n in (1, 2, 3)},
    "relay.nn.max_pool2d_with_argmax": lambda ins, attrs, outs: topi.max_pool_with_argmax(
        ins[0], **{k: attrs[k] for k in (*_WINDOW, "column_major")}
    ),
    "relay.nn.global_max_pool2d": lambda ins, attrs, outs: topi.global_max_pool2d(ins[0]),
    "relay.nn.global_avg_pool2d": lambda ins, attrs, outs: topi.global_avg_pool2d(ins[0]),
}
