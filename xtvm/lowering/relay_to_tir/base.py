"""What the relay-to-tir categories share: the signature of an op's te
compute and the error every failure of the lowering raises."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from xtvm import te
from xtvm.ir import location_of, op_summary

ComputeFn = Callable[
    [list[te.Tensor], Mapping[str, Any], list[TensorType]], te.Tensor | list[te.Tensor]
]
"""``(inputs, attrs, out_types) -> output(s)``: the te computation of one
relay op from its operands, its attribute values (``RelayOp.attrs``) and its
(static) result types; a list of tensors for an op with several results."""

PASS_NAME = "convert-relay-to-tir"


def static_or_none(ty: TensorType) -> list[int | None]:
    """A result type's extents, None for each ``?`` (for computes that need
    the result shape, e.g. reshape; see :mod:`xtvm.te.symbolic`)."""
    return [None if d == DYNAMIC_INDEX else d for d in ty.get_shape()]


def lowering_error(message: str, op: Operation | None = None) -> DiagnosticException:
    """An error naming the pass, then the offending op: its location
    (``file:line:col`` when the IR was parsed from a file) and its text."""
    text = f"{PASS_NAME}: {message}"
    if op is not None:
        where = location_of(op)
        text += f"\n  {where + ': ' if where else ''}{op_summary(op)}"
    error = DiagnosticException(text)
    error.op = op  # type: ignore[attr-defined]  # where xtvm-opt reports it
    return error
