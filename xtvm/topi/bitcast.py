"""The compute of ``relay.reinterpret`` (TVM's ``topi.reinterpret``)."""

from __future__ import annotations

from xtvm import te
from xtvm.te.intrin import reinterpret as reinterpret_bits


def reinterpret(x: te.Tensor, dtype: str) -> te.Tensor:
    """Each element's bits as ``dtype`` of the same width."""
    return te.compute(
        x.shape, lambda *i: reinterpret_bits(dtype, x[i]), name="T_reinterpret", tag="elemwise"
    )
