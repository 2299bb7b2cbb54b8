"""Converters for pooling: ``MaxPool``, ``AveragePool``, ``GlobalMaxPool``,
``GlobalAveragePool`` (→ ``relay.nn.max_pool2d``, ``relay.nn.avg_pool2d``,
``relay.nn.global_max_pool2d``, ``relay.nn.global_avg_pool2d``); 2-d only.

One ``_impl_v1`` serves every version: later versions only added attributes
(``storage_order`` v8, ``ceil_mode`` and ``dilations`` v10 — v19 for
``AveragePool``'s ``dilations`` —, ``count_include_pad`` v7), whose defaults
are the earlier behaviour, and the checker rejects them where absent.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AvgPool2dOp,
    GlobalAvgPool2dOp,
    GlobalMaxPool2dOp,
    GlobalPool2dOp,
    MaxPool2dOp,
)
from xtvm.frontend.onnx.conv import Window, require_2d, window
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def _pool_window(node: OnnxNode) -> Window:
    require_2d(node, "pooling")
    kernel = node.attrs["kernel_shape"]  # required: the checker ensures it
    if any(k < 1 for k in kernel):
        raise node.error(f"attribute 'kernel_shape' values must be >= 1, got {list(kernel)}")
    return window(node, node.input_shape(0)[2:], kernel)


def _ceil_mode(node: OnnxNode) -> bool:
    ceil_mode = node.attr("ceil_mode", 0)
    if ceil_mode not in (0, 1):
        raise node.unsupported_attr("ceil_mode", "expected 0 or 1")
    return bool(ceil_mode)


class MaxPool(OnnxOpConverter):
    """``MaxPool`` → ``relay.nn.max_pool2d``. The ``Indices`` output (v8) is
    not supported: the importer rejects a node whose ``Indices`` is used, and
    ``storage_order`` ≠ 0, which only describes ``Indices``, is an error."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        if node.attr("storage_order", 0) != 0:
            raise node.unsupported_attr(
                "storage_order", "only 0 (row major) is, and only the Indices output uses it"
            )
        win = _pool_window(node)
        op = MaxPool2dOp(
            node.input(0),
            pool_size=win.kernel,
            strides=win.strides,
            dilation=win.dilations,
            padding=win.padding,
            ceil_mode=_ceil_mode(node),
        )
        return node.emit(op)


class AveragePool(OnnxOpConverter):
    """``AveragePool`` → ``relay.nn.avg_pool2d``; ``count_include_pad``
    (default 0) says whether padding counts in each window's divisor."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        count_include_pad = node.attr("count_include_pad", 0)
        if count_include_pad not in (0, 1):
            raise node.unsupported_attr("count_include_pad", "expected 0 or 1")
        win = _pool_window(node)
        op = AvgPool2dOp(
            node.input(0),
            pool_size=win.kernel,
            strides=win.strides,
            dilation=win.dilations,
            padding=win.padding,
            ceil_mode=_ceil_mode(node),
            count_include_pad=bool(count_include_pad),
        )
        return node.emit(op)


class _GlobalPool(OnnxOpConverter):
    """The global pools: ``[N, C, H, W]`` → ``[N, C, 1, 1]``."""

    OP: ClassVar[type[GlobalPool2dOp]]

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        require_2d(node, "pooling")
        return node.emit(cls.OP(node.input(0)))


class GlobalMaxPool(_GlobalPool):
    OP = GlobalMaxPool2dOp


class GlobalAveragePool(_GlobalPool):
    OP = GlobalAvgPool2dOp


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "MaxPool": MaxPool,
    "AveragePool": AveragePool,
    "GlobalMaxPool": GlobalMaxPool,
    "GlobalAveragePool": GlobalAveragePool,
}
