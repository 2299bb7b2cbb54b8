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
from xtvm.te.symbolic import is_static
from xtvm.topi import x86
from xtvm.topi.packed import layout_transform
from xtvm.topi.x86.config import lanes, takes_grouped_kernel
from xtvm.topi.x86.conv2d_grouped import conv2d_grouped


def _conv2d_packed(ins, attrs):
    """The packed conv's te op: :func:`conv2d_grouped` for the grouped 1x1
    convs it takes (static NCHW shapes), else ``x86.conv2d_packed``."""
    data, weight = ins
    groups = attrs["groups"]
    if (
        data.ndim == 4
        and weight.ndim == 5
        and not attrs["out_layout"]
        and is_static(data.shape)
        and takes_grouped_kernel(
            groups,
            data.shape[1],
            weight.shape[0] * weight.shape[4],
            weight.shape[2:4],
            attrs["strides"],
            attrs["padding"],
            data.shape[2],
            data.shape[3],
            lanes(),
        )
        and tuple(attrs["dilation"]) == (1, 1)
    ):
        return conv2d_grouped(data, weight, groups, shuffle=bool(attrs["out_shuffle"]))
    if attrs["out_shuffle"]:
        raise ValueError(
            f"contrib_conv2d_packed: out_shuffle needs the grouped 1x1 kernel (static NCHW "
            f"data, stride 1, no padding), got data {list(data.shape)} and packed weight "
            f"{list(weight.shape)}"
        )
    return x86.conv2d_packed(
        data,
        weight,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=groups,
        blocked_result=bool(attrs["out_layout"]),
    )


PATTERNS = [
    lower(
        LayoutTransformOp,
        lambda ins, attrs, outs: layout_transform(ins[0], attrs["src_layout"], attrs["dst_layout"]),
    ),
    lower(Conv2dPackedOp, lambda ins, attrs, outs: _conv2d_packed(ins, attrs)),
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
