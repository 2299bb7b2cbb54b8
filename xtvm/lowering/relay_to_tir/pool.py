"""Lowerings of the pools (1-, 2- and 3-d, channel-first; max pooling with
the positions of the maxima). Max, average and global pools follow the
x86 strategy (:mod:`xtvm.topi.x86.pool`: padded once, vectorized)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xtvm import te, topi
from xtvm.dialects.relay.pool import (
    AvgPool1dOp,
    AvgPool2dOp,
    AvgPool3dOp,
    GlobalAvgPool2dOp,
    GlobalMaxPool2dOp,
    MaxPool1dOp,
    MaxPool2dOp,
    MaxPool2dWithArgmaxOp,
    MaxPool3dOp,
)
from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import x86

_WINDOW = ("pool_size", "strides", "dilation", "padding", "ceil_mode")


def _pool(kind: str) -> ComputeFn:
    def compute(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
        window = {k: attrs[k] for k in _WINDOW}
        if kind == "avg":
            window["count_include_pad"] = attrs["count_include_pad"]
        return x86.pool(ins[0], kind, **window)

    return compute


PATTERNS = [
    lower((MaxPool1dOp, MaxPool2dOp, MaxPool3dOp), _pool("max")),
    lower((AvgPool1dOp, AvgPool2dOp, AvgPool3dOp), _pool("avg")),
    lower(
        MaxPool2dWithArgmaxOp,
        lambda ins, attrs, outs: topi.max_pool_with_argmax(
            ins[0], **{k: attrs[k] for k in (*_WINDOW, "column_major")}
        ),
    ),
    lower(GlobalMaxPool2dOp, lambda ins, attrs, outs: x86.global_pool(ins[0], "max")),
    lower(GlobalAvgPool2dOp, lambda ins, attrs, outs: x86.global_pool(ins[0], "avg")),
]
OPS = ops_of(PATTERNS)
