"""Lowerings of the packed-layout x86 ops (TVM's ``relay/op/strategy/x86.py``):
``relay.layout_transform``, ``relay.nn.contrib_conv2d_packed``,
``relay.nn.contrib_conv2d_int8_packed``, ``relay.nn.contrib_dense_pack`` and
``relay.nn.contrib_dense_int8_packed``,
whose te ops carry the x86 schedules (:mod:`xtvm.topi.x86`)."""

from __future__ import annotations

from xtvm.dialects.relay.packed import (
    Conv2dInt8PackedOp,
    Conv2dPackedOp,
    DenseInt8PackedOp,
    DensePackOp,
    LayoutTransformOp,
)
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.topi import x86
from xtvm.topi.packed import layout_transform

PATTERNS = [
    lower(
        LayoutTransformOp,
        lambda ins, attrs, outs: layout_transform(
            ins[0], attrs["src_layout"], attrs["dst_layout"]
        ),
    ),
    lower(
        Conv2dPackedOp,
        lambda ins, attrs, outs: x86.conv2d_packed(
            *ins,
            strides=attrs["strides"],
            padding=attrs["padding"],
            dilation=attrs["dilation"],
            groups=attrs["groups"],
            blocked_result=bool(attrs["out_layout"]),
        ),
    ),
    lower(
        Conv2dInt8PackedOp,
        lambda ins, attrs, outs: x86.conv2d_int8_packed(
            *ins,
            strides=attrs["strides"],
            padding=attrs["padding"],
            dilation=attrs["dilation"],
            blocked_result=bool(attrs["out_layout"]),
            pad_value=attrs["pad_value"],
        ),
    ),
    lower(DensePackOp, lambda ins, attrs, outs: x86.dense_pack(*ins)),
    lower(DenseInt8PackedOp, lambda ins, attrs, outs: x86.dense_int8_packed(*ins)),
]
OPS = ops_of(PATTERNS)
