"""Reading the scales and zero points of ``qnn`` ops at compile time (shared
by the qnn passes): a parameter is constant when it is a ``relay.const``,
possibly reshaped or cast."""

from __future__ import annotations

import numpy as np
from xdsl.ir import OpResult, SSAValue

from xtvm.constants import numpy_from_const


class QnnError(ValueError):
    """A qnn pass met IR it cannot handle; the message names the op."""


def constant(value: SSAValue) -> np.ndarray | None:
    """The value of a constant parameter (a ``relay.const``, or a
    ``relay.reshape``/``relay.cast`` of one), else None."""
    from xtvm.dialects.relay import CastOp, ConstOp, ReshapeOp

    if not isinstance(value, OpResult):
        return None
    op = value.op
    if isinstance(op, ConstOp):
        return numpy_from_const(op)
    if isinstance(op, ReshapeOp):
        inner = constant(op.input)
        return None if inner is None else inner.reshape(op.result.type.get_shape())
    if isinstance(op, CastOp):
        inner = constant(op.input)
        return None if inner is None else inner.astype(op.attrs["dtype"])
    return None
