"""Converters for pooling over 1 to 3 spatial axes: ``MaxPool``,
``AveragePool`` (→ ``relay.nn.max_pool{1,2,3}d``,
``relay.nn.avg_pool{1,2,3}d``), ``LpPool`` (composed), ``GlobalMaxPool``,
``GlobalAveragePool`` (→ ``relay.nn.global_max_pool2d`` /
``relay.nn.global_avg_pool2d`` in 2-d, ``relay.max`` / ``relay.mean`` over
the spatial axes otherwise).

One ``_impl_v1`` serves every version: later versions only added attributes
and outputs (``MaxPool``'s ``Indices`` and ``storage_order`` v8, ``ceil_mode``
and ``dilations`` v10 — v19 for ``AveragePool``'s ``dilations`` —,
``count_include_pad`` v7, ``LpPool``'s ``ceil_mode`` v18), whose defaults
are the earlier behaviour, and the checker rejects them where absent.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AbsOp,
    AvgPool1dOp,
    AvgPool2dOp,
    AvgPool3dOp,
    AvgPoolOp,
    GlobalAvgPool2dOp,
    GlobalMaxPool2dOp,
    GlobalPool2dOp,
    MaxOp,
    MaxPool1dOp,
    MaxPool2dOp,
    MaxPool2dWithArgmaxOp,
    MaxPool3dOp,
    MeanOp,
    MultiplyOp,
    PoolOp,
    PowerOp,
    ReduceOp,
    SqrtOp,
)
from xtvm.dialects.relay.base import shape_str, window_output_size
from xtvm.dtypes import dtype_name
from xtvm.frontend.onnx.conv import Window, spatial_rank, window
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape


def _check_empty_batch_only(node: OnnxNode) -> None:
    """A pool's input may be empty in its batch axis only (onnxruntime's
    rule: there is no maximum or mean of nothing)."""
    shape = node.input_shape(0)
    if math.prod(shape) == 0 and shape[0] != 0:
        raise node.error(
            f"{node.input_label(0)} has shape {shape_str(shape)}: a pool's input may be "
            "empty in its batch axis (N) only"
        )


def _pool_window(node: OnnxNode, what: str) -> Window:
    spatial_rank(node, what)
    _check_empty_batch_only(node)
    kernel = node.attrs["kernel_shape"]  # required: the checker ensures it
    if any(k < 1 for k in kernel):
        raise node.error(f"attribute 'kernel_shape' values must be >= 1, got {list(kernel)}")
    return window(node, node.input_shape(0)[2:], kernel)


def _flag(node: OnnxNode, name: str) -> bool:
    value = node.attr(name, 0)
    if value not in (0, 1):
        raise node.unsupported_attr(name, "expected 0 or 1")
    return bool(value)


def _avg_pool(node: OnnxNode, x: SSAValue, win: Window, count_include_pad: bool) -> SSAValue:
    op = AveragePool.OPS[len(win.kernel)](
        x,
        pool_size=win.kernel,
        strides=win.strides,
        dilation=win.dilations,
        padding=win.padding,
        ceil_mode=_flag(node, "ceil_mode"),
        count_include_pad=count_include_pad,
    )
    return node.emit(op)


class MaxPool(OnnxOpConverter):
    """``MaxPool`` → ``relay.nn.max_pool{1,2,3}d``; when the ``Indices``
    output (v8) is used, ``relay.nn.max_pool2d_with_argmax`` (2-d only),
    ``storage_order`` = 1 counting positions column-major."""

    OPS: ClassVar[dict[int, type[PoolOp]]] = {1: MaxPool1dOp, 2: MaxPool2dOp, 3: MaxPool3dOp}

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue | list[SSAValue]:
        win = _pool_window(node, "MaxPool")
        geometry = {
            "pool_size": win.kernel,
            "strides": win.strides,
            "dilation": win.dilations,
            "padding": win.padding,
            "ceil_mode": _flag(node, "ceil_mode"),
        }
        storage_order = _flag(node, "storage_order")
        if not node.output_used(1):
            return node.emit(cls.OPS[len(win.kernel)](node.input(0), **geometry))
        if len(win.kernel) != 2:
            raise node.error(
                f"{node.output_label(1)} is used, which is supported for 2-d pooling only"
            )
        op = MaxPool2dWithArgmaxOp(node.input(0), **geometry, column_major=storage_order)
        node.emit(op)
        return [op.result, op.indices]


class AveragePool(OnnxOpConverter):
    """``AveragePool`` → ``relay.nn.avg_pool{1,2,3}d``; ``count_include_pad``
    (default 0) says whether padding counts in each window's divisor."""

    OPS: ClassVar[dict[int, type[AvgPoolOp]]] = {1: AvgPool1dOp, 2: AvgPool2dOp, 3: AvgPool3dOp}

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        win = _pool_window(node, "AveragePool")
        return _avg_pool(node, node.input(0), win, _flag(node, "count_include_pad"))


def _overhangs(node: OnnxNode, spatial: tuple[int, ...], win: Window, ceil_mode: bool) -> bool:
    """Whether a window reaches beyond the padding along some axis: a last
    ``ceil_mode`` window, or a window larger than the padded input."""
    n = len(spatial)
    for a, size in enumerate(spatial):
        pads = (win.padding[a], win.padding[n + a])
        geometry = (size, *pads, win.kernel[a], win.strides[a], win.dilations[a])
        out = window_output_size(node.label, "size", *geometry, ceil_mode=ceil_mode, pool=True)
        span = (win.kernel[a] - 1) * win.dilations[a] + 1
        if out > 0 and (out - 1) * win.strides[a] + span > size + sum(pads):
            return True
    return False


class LpPool(OnnxOpConverter):
    """``LpPool``: ``(sum over the window of |x| ** p) ** (1 / p)`` (``p``
    default 2), padding counting as 0. Composed as TVM does: ``|x| ** p``
    (``x * x`` for ``p = 2``), an average pool counting the padding, times
    the window size, then the ``1 / p`` power (``sqrt`` for ``p = 2``). A
    ``ceil_mode`` window reaching beyond the padding would be averaged over
    fewer elements, so that case is an error."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        dtype = dtype_name(x.type.get_element_type())  # type: ignore[attr-defined]
        if not dtype.startswith("float"):
            raise node.error(f"{node.input_label(0)} must be a float tensor, got {dtype}")
        p = node.attr("p", 2)
        if p < 1:
            raise node.unsupported_attr("p", "expected an integer >= 1", 2)
        win = _pool_window(node, "LpPool")
        ceil_mode = bool(_flag(node, "ceil_mode"))
        if _overhangs(node, static_shape(x)[2:], win, ceil_mode):
            if ceil_mode:
                raise node.unsupported_attr(
                    "ceil_mode", "a window would reach beyond the padding", 0
                )
            raise node.error(
                f"attribute 'kernel_shape' = {list(win.kernel)}: a window reaches beyond the "
                f"padded input {node.input_label(0)}, which LpPool does not support"
            )
        if p == 2:
            powered = node.emit(MultiplyOp(x, x))
        else:
            powered = node.emit(PowerOp(node.emit(AbsOp(x)), node.const(np.array(p, dtype))))
        mean = _avg_pool(node, powered, win, count_include_pad=True)
        count = node.const(np.array(math.prod(win.kernel), dtype))
        total = node.emit(MultiplyOp(mean, count))
        if p == 2:
            return node.emit(SqrtOp(total))
        return node.emit(PowerOp(total, node.const(np.array(1 / p, dtype))))


class _GlobalPool(OnnxOpConverter):
    """The global pools: ``[N, C, *spatial]`` → ``[N, C, 1, ...]``."""

    OP: ClassVar[type[GlobalPool2dOp]]
    REDUCE: ClassVar[type[ReduceOp]]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        rank = len(node.input_shape(0))
        if rank < 3:
            raise node.error(
                f"{node.input_label(0)} must have rank >= 3 (N, C, spatial...), got rank {rank}"
            )
        _check_empty_batch_only(node)
        if rank == 4:
            return node.emit(cls.OP(node.input(0)))
        axes = list(range(2, rank))
        return node.emit(cls.REDUCE(node.input(0), axis=axes, keepdims=True))


class GlobalMaxPool(_GlobalPool):
    OP = GlobalMaxPool2dOp
    REDUCE = MaxOp


class GlobalAveragePool(_GlobalPool):
    OP = GlobalAvgPool2dOp
    REDUCE = MeanOp


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "MaxPool": MaxPool,
    "AveragePool": AveragePool,
    "LpPool": LpPool,
    "GlobalMaxPool": GlobalMaxPool,
    "GlobalAveragePool": GlobalAveragePool,
}
