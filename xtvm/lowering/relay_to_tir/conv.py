"""Computes of convolutions (``relay.nn.conv2d``, NCHW data, OIHW weight)."""

from __future__ import annotations

from xtvm import topi
from xtvm.lowering.relay_to_tir.base import ComputeFn

COMPUTES: dict[str, ComputeFn] = {
    "relay.nn.conv2d": lambda ins, attrs, outs: topi.conv2d_nchw(
        *ins,
        strides=attrs["strides"],
        padding=attrs["padding"],
        dilation=attrs["dilation"],
        groups=attrs["groups"],
        out_dtype=attrs.get("out_dtype"),
    ),
}
