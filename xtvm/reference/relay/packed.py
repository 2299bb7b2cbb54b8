"""NumPy semantics of the packed-layout ops: the weight is unpacked to its
primal layout and the unpacked op's reference runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from xtvm.layout import transform_array
from xtvm.reference.relay.conv import conv2d
from xtvm.reference.relay.nn import dense


def layout_transform(data: np.ndarray, src_layout: str, dst_layout: str) -> np.ndarray:
    return np.ascontiguousarray(transform_array(data, src_layout, dst_layout))


def conv2d_packed(ins: Sequence[np.ndarray], attrs: Mapping[str, Any]) -> np.ndarray:
    data, weight = ins
    oihw = transform_array(weight, attrs["kernel_layout"], "OIHW")
    return conv2d(
        data,
        oihw,
        strides=attrs.get("strides", (1, 1)),
        padding=attrs.get("padding", (0, 0, 0, 0)),
        dilation=attrs.get("dilation", (1, 1)),
        groups=attrs.get("groups", 1),
    )


REFERENCES = {
    "relay.layout_transform": lambda ins, attrs: layout_transform(
        ins[0], attrs["src_layout"], attrs["dst_layout"]
    ),
    "relay.nn.contrib_conv2d_packed": conv2d_packed,
    "relay.nn.contrib_dense_pack": lambda ins, attrs: dense(
        ins[0], transform_array(ins[1], attrs["weight_layout"], "NK")
    ),
}
