"""``layout_transform``: a tensor rewritten from one layout to another
(TVM's ``topi.layout_transform``; layouts as in :mod:`xtvm.layout`)."""

from __future__ import annotations

from xtvm import te
from xtvm.layout import Layout, transform_shape


def layout_transform(data: te.Tensor, src_layout: str, dst_layout: str) -> te.Tensor:
    """``data`` (in ``src_layout``) in ``dst_layout``: each output element
    reads the input element at the same primal coordinates."""
    src, dst = Layout.parse(src_layout), Layout.parse(dst_layout)
    shape = transform_shape(data.shape, src_layout, dst_layout)

    def fcompute(*indices):
        return data[tuple(src.from_primal(dst.to_primal(indices)))]

    return te.compute(shape, fcompute, name="T_layout_trans", tag="injective")
