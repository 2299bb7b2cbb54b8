"""Computes of the reductions (``relay.sum``, ``relay.mean``, ``relay.max``, ``relay.min``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xtvm import te, topi
from xtvm.dialects.relay.reduce import MaxOp, MeanOp, MinOp, ReduceOp, SumOp
from xtvm.lowering.relay_to_tir.base import ComputeFn


def _reduction(fn: Callable[..., te.Tensor], op: type[ReduceOp]) -> ComputeFn:
    def compute(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
        axes = op.reduced_axes(ins[0].ndim, attrs)
        return fn(ins[0], axes, attrs["keepdims"])

    return compute


COMPUTES: dict[str, ComputeFn] = {
    "relay.sum": _reduction(topi.reduce.sum, SumOp),
    "relay.mean": _reduction(topi.reduce.mean, MeanOp),
    "relay.max": _reduction(topi.reduce.max, MaxOp),
    "relay.min": _reduction(topi.reduce.min, MinOp),
}
