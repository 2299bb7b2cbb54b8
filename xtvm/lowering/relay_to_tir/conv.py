"""Lowerings of the convolutions (``relay.nn.conv{1,2,3}d``) and transposed
convolutions (``relay.nn.conv{1,2,3}d_transpose``), channel-first.

``relay.nn.conv2d`` follows the x86 strategy (TVM's
``relay/op/strategy/x86.py``): a float (or int8) depthwise convolution gets the x86
depthwise kernel (:mod:`xtvm.topi.x86`), the others the generic compute
(``relay-alter-op-layout`` has already made the heavy ones
``relay.nn.contrib_conv2d_packed``, see ``packed``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xdsl.dialects.builtin import TensorType

from xtvm import te, topi
from xtvm.dialects.relay.conv import (
    Conv1dOp,
    Conv1dTransposeOp,
    Conv2dOp,
    Conv2dTransposeOp,
    Conv3dOp,
    Conv3dTransposeOp,
)
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.te import dtype as dt
from xtvm.topi import x86

_CONV = ("strides", "padding", "dilation", "groups")


def _conv2d(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list[TensorType]) -> te.Tensor:
    """The x86 depthwise kernel for a depthwise convolution (one input and
    one output channel per group) in float, or of integers accumulating in
    ``out_dtype`` (int8), else the generic compute."""
    data, weight = ins
    depthwise = attrs["groups"] == data.shape[1] == weight.shape[0] and weight.shape[1] == 1
    out_dtype = attrs.get("out_dtype")
    floats = dt.is_float(data.dtype) and out_dtype in (None, data.dtype)
    integers = dt.is_int(data.dtype) and dt.is_int(weight.dtype) and out_dtype is not None
    if depthwise and (floats or integers):
        return x86.depthwise_conv2d_nchw(
            data, weight, attrs["strides"], attrs["padding"], attrs["dilation"], out_dtype
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


PATTERNS = [
    lower(Conv2dOp, _conv2d),
    lower(
        (Conv1dOp, Conv3dOp),
        lambda ins, attrs, outs: topi.conv(
            *ins, **{k: attrs[k] for k in _CONV}, out_dtype=attrs.get("out_dtype")
        ),
    ),
    lower(
        (Conv1dTransposeOp, Conv2dTransposeOp, Conv3dTransposeOp),
        lambda ins, attrs, outs: topi.conv_transpose(
            *ins,
            **{k: attrs[k] for k in (*_CONV, "output_padding")},
            out_dtype=attrs.get("out_dtype"),
        ),
    ),
]
OPS = ops_of(PATTERNS)
