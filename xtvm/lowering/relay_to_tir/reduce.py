"""Lowerings of the reductions (``relay.sum``, ``relay.mean``, ``relay.prod``,
``relay.max``, ``relay.min``) and index reductions (``relay.argmax``,
``relay.argmin``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xtvm import te, topi
from xtvm.dialects.relay.reduce import (
    ArgMaxOp,
    ArgMinOp,
    ArgReduceOp,
    MaxOp,
    MeanOp,
    MinOp,
    ProdOp,
    ReduceOp,
    SumOp,
)
from xtvm.lowering.relay_to_tir.patterns import LowerOp, lower, ops_of


def _reduction(op: type[ReduceOp], fn: Callable[..., te.Tensor]) -> LowerOp:
    def compute(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
        axes = op.reduced_axes(ins[0].ndim, attrs)
        return fn(ins[0], axes, attrs["keepdims"])

    return lower(op, compute)


def _arg_reduction(op: type[ArgReduceOp], fn: Callable[..., te.Tensor]) -> LowerOp:
    def compute(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
        axes = op.reduced_axes(ins[0].ndim, attrs)
        return fn(ins[0], axes, attrs["keepdims"], attrs["select_last_index"])

    return lower(op, compute)


PATTERNS = [
    _reduction(SumOp, topi.reduce.sum),
    _reduction(MeanOp, topi.reduce.mean),
    _reduction(ProdOp, topi.reduce.prod),
    _reduction(MaxOp, topi.reduce.max),
    _reduction(MinOp, topi.reduce.min),
    _arg_reduction(ArgMaxOp, topi.reduce.argmax),
    _arg_reduction(ArgMinOp, topi.reduce.argmin),
]
OPS = ops_of(PATTERNS)
