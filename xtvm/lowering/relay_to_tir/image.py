"""Lowerings of the resizes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xdsl.dialects.builtin import TensorType

from xtvm import te
from xtvm.dialects.relay.image import Resize1dOp, Resize2dOp, Resize3dOp, ResizeOp, spatial_axes
from xtvm.lowering.relay_to_tir.patterns import LowerOp, lower, ops_of
from xtvm.topi import image

_SAMPLING = (
    "method",
    "coordinate_transformation_mode",
    "rounding_method",
    "cubic_alpha",
    "cubic_exclude",
    "extrapolation_value",
    "antialias",
)


def _resize(op: type[ResizeOp]) -> LowerOp:
    def compute(
        ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list[TensorType]
    ) -> te.Tensor:
        return image.resize(
            ins[0],
            spatial_axes(attrs["layout"]),
            attrs["size"],
            attrs.get("scales"),
            attrs.get("roi"),
            **{k: attrs[k] for k in _SAMPLING},
        )

    return lower(op, compute)


PATTERNS = [_resize(Resize1dOp), _resize(Resize2dOp), _resize(Resize3dOp)]
OPS = ops_of(PATTERNS)
