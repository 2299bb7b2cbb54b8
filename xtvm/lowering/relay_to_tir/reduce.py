"""Computes of the reductions (``relay.sum``, ``relay.mean``, ``relay.prod``,
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
from xtvm.lowering.relay_to_tir.base import ComputeFn


def _reduction(fn: Callable[..., te.Tensor], op: type[ReduceOp]) -> ComputeFn:
    def compute(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
        axes = op.reduced_axes(ins[0].ndim, attrs)
        return fn(ins[0], axes, attrs["keepdims"])

    return compute


def _arg_reduction(fn: Callable[..., te.Tensor], op: type[ArgReduceOp]) -> ComputeFn:
    def compute(ins: list[te.Tensor], attrs: Mapping[str, Any], outs: list) -> te.Tensor:
        axes = op.reduced_axes(ins[0].ndim, attrs)
        return fn(ins[0], axes, attrs["keepdims"], attrs["select_last_index"])

    return compute


COMPUTES: dict[str, ComputeFn] = {
    "relay.sum": _reduction(topi.reduce.sum, SumOp),
    "relay.mean": _reduction(topi.reduce.mean, MeanOp),
    "relay.prod": _reduction(topi.reduce.prod, ProdOp),
    "relay.max": _reduction(topi.reduce.max, MaxOp),
    "relay.min": _reduction(topi.reduce.min, MinOp),
    "relay.argmax": _arg_reduction(topi.reduce.argmax, ArgMaxOp),
    "relay.argmin": _arg_reduction(topi.reduce.argmin, ArgMinOp),
}
