"""Computes of the convolutions (``relay.nn.conv{1,2,3}d``) and transposed
convolutions (``relay.nn.conv{1,2,3}d_transpose``), channel-first."""

from __future__ import annotations

from xtvm import topi
from xtvm.lowering.relay_to_tir.base import ComputeFn

_CONV = ("strides", "padding", "dilation", "groups")

COMPUTES: dict[str, ComputeFn] = {
    # relay.nn.conv2d: see x86.py (the x86 strategy picks depthwise or generic)
    **{
        f"relay.nn.conv{n}d": lambda ins, attrs, outs: topi.conv(
            *ins, **{k: attrs[k] for k in _CONV}, out_dtype=attrs.get("out_dtype")
        )
        for n in (1, 3)
    },
    **{
        f"relay.nn.conv{n}d_transpose": lambda ins, attrs, outs: topi.conv_transpose(
            *ins,
            **{k: attrs[k] for k in (*_CONV, "output_padding")},
            out_dtype=attrs.get("out_dtype"),
        )
        for n in (1, 2, 3)
    },
}
