"""The x86 strategy (TVM's ``relay/op/strategy/x86.py``): computes whose te
ops carry x86 schedules (:mod:`xtvm.topi.x86`) — the packed-layout ops
(``relay.layout_transform``, ``relay.nn.contrib_conv2d_packed``,
``relay.nn.contrib_dense_pack``) and float depthwise ``relay.nn.conv2d``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xdsl.dialects.builtin import TensorType

from xtvm import te, topi
from xtvm.lowering.relay_to_tir.base import ComputeFn
from xtvm.te import dtype as dt
from xtvm.topi import x86
from xtvm.topi.packed import layout_transform


def conv2d(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list[TensorType]) -> te.Tensor:
    """``relay.nn.conv2d``: the x86 depthwise kernel for a float depthwise
    convolution (one input and one output channel per group), else the
    generic compute (``relay-alter-op-layout`` has already made the others
    packed)."""
    data, weight = ins
    depthwise = attrs["groups"] == data.shape[1] == weight.shape[0] and weight.shape[1] == 1
    out_dtype = attrs.get("out_dtype")
    if depthwise and dt.is_float(data.dtype) and out_dtype in (None, data.dtype):
        return x86.depthwise_conv2d_nchw(
            data, weight, attrs["strides"], attrs["padding"], attrs["dilation"]
        )
    return topi.conv2d_nchw(
        data,
        weight,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=attrs["groups"],
        out_dtype=out_dtype,
    )


COMPUTES: dict[str, ComputeFn] = {
    "relay.layout_transform": lambda ins, attrs, outs: layout_transform(
        ins[0], attrs["src_layout"], attrs["dst_layout"]
    ),
    "relay.nn.contrib_conv2d_packed": lambda ins, attrs, outs: x86.conv2d_packed(
        *ins,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=attrs["groups"],
    ),
    "relay.nn.contrib_dense_pack": lambda ins, attrs, outs: x86.dense_pack(*ins),
    "relay.nn.conv2d": conv2d,
}
