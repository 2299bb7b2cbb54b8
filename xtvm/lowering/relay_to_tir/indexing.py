"""Lowerings of gathers and slices."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xdsl.dialects.builtin import TensorType

from xtvm import te, topi
from xtvm.dialects.relay.indexing import GatherNdOp, GatherOp, StridedSliceOp, TakeOp, slice_bounds
from xtvm.lowering.relay_to_tir.base import static_or_none
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of


def _strided_slice(
    ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list[TensorType]
) -> te.Tensor:
    x = ins[0]
    begin, strides = [0] * x.ndim, [1] * x.ndim
    for axis, b, e, s in StridedSliceOp.normalized(x.ndim, attrs):
        begin[axis], _, _ = slice_bounds(x.shape[axis], b, e, s)
        strides[axis] = s
    # an axis left whole keeps its extent, a shape variable where it is `?`
    shape = [x.shape[a] if d is None else d for a, d in enumerate(static_or_none(outs[0]))]
    return topi.strided_slice(x, begin, strides, shape)


PATTERNS = [
    lower(TakeOp, lambda ins, attrs, outs: topi.take(*ins, attrs.get("axis"), attrs["mode"])),
    lower(StridedSliceOp, _strided_slice),
    lower(GatherOp, lambda ins, attrs, outs: topi.gather(*ins, attrs["axis"])),
    lower(GatherNdOp, lambda ins, attrs, outs: topi.gather_nd(*ins, attrs["batch_dims"])),
]
OPS = ops_of(PATTERNS)
