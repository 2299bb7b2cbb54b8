"""Converter for ``Conv`` (→ ``relay.nn.conv2d`` and ``relay.nn.bias_add``),
and the sliding-window attributes it shares with pooling.

Only 2-d windows (rank-4 NCHW inputs) are supported; a 1-d or 3-d ``Conv``
or pool is an error naming the node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import SSAValue

from xtvm.dialects.relay import BiasAddOp, Conv2dOp
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


@dataclass(frozen=True)
class Window:
    """A 2-d sliding window in relay's terms."""

    kernel: tuple[int, ...]
    """``[KH, KW]``, likewise ``strides`` and ``dilations``."""
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    padding: tuple[int, ...]
    """``[top, left, bottom, right]``: ONNX's ``pads`` order for 2-d."""


def require_2d(node: OnnxNode, what: str) -> None:
    """Rejects a ``what`` (``"convolution"``, ``"pooling"``) that is not 2-d:
    input 0 must be NCHW, and ``kernel_shape``, when given, 2 values."""
    kernel = node.attr("kernel_shape")
    if kernel is not None and len(kernel) != 2:
        raise node.unsupported_attr(
            "kernel_shape", f"only 2-d {what} is supported ({len(kernel)}-d kernel)"
        )
    shape = node.input_shape(0)
    if len(shape) != 4:
        raise node.error(
            f"only 2-d {what} is supported, but {node.input_label(0)} has shape "
            f"{shape_str(shape)} (2-d needs a rank-4 NCHW input)"
        )


def _ints(node: OnnxNode, name: str, count: int, default: int, minimum: int) -> tuple[int, ...]:
    values = node.attr(name)
    if values is None:
        return (default,) * count
    if len(values) != count:
        raise node.error(f"attribute '{name}' must have {count} values, got {list(values)}")
    if any(v < minimum for v in values):
        raise node.error(f"attribute '{name}' values must be >= {minimum}, got {list(values)}")
    return tuple(int(v) for v in values)


def window(node: OnnxNode, spatial: Sequence[int], kernel: Sequence[int]) -> Window:
    """The window of a 2-d ``Conv`` or pool on an input of spatial size
    ``spatial`` (``[H, W]``): ``strides``, ``dilations`` and ``pads``, or the
    padding ``auto_pad`` implies.

    ``SAME_UPPER`` / ``SAME_LOWER`` pad so that ``out = ceil(in / stride)``:
    the total padding ``(out - 1) * stride + (kernel - 1) * dilation + 1 - in``
    (at least 0) is split in half, the odd element at the end (``UPPER``) or
    at the beginning (``LOWER``); ``VALID`` pads nothing.
    """
    strides = _ints(node, "strides", 2, 1, 1)
    dilations = _ints(node, "dilations", 2, 1, 1)
    pads = _ints(node, "pads", 4, 0, 0)
    auto_pad = node.attr("auto_pad", "NOTSET")
    if auto_pad not in AUTO_PADS:
        raise node.unsupported_attr("auto_pad", f"expected one of {', '.join(AUTO_PADS)}")
    if auto_pad != "NOTSET":
        if node.attr("pads") is not None and any(pads):
            raise node.error(f"attributes 'auto_pad' = '{auto_pad}' and 'pads' exclude each other")
        pads = (0, 0, 0, 0)
    if auto_pad.startswith("SAME"):
        begin, end = [], []
        for size, k, s, d in zip(spatial, kernel, strides, dilations):
            out = -(-size // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
            small, large = total // 2, total - total // 2
            begin.append(small if auto_pad == "SAME_UPPER" else large)
            end.append(large if auto_pad == "SAME_UPPER" else small)
        pads = (*begin, *end)
    return Window(tuple(int(k) for k in kernel), strides, dilations, pads)


class Conv(OnnxOpConverter):
    """``Conv`` → ``relay.nn.conv2d`` (``group`` → ``groups``, so
    ``group = C`` is a depthwise convolution), then ``relay.nn.bias_add``
    along axis 1 when ``B`` is given. The kernel size comes from ``W``;
    ``kernel_shape``, when given, must agree. Every version: v11 only
    clarified the ``auto_pad`` text."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        require_2d(node, "convolution")
        x_shape, w_shape = node.input_shape(0), node.input_shape(1)
        if len(w_shape) != 4:
            raise node.error(f"{node.input_label(1)} must be 4-d (OIHW), got {shape_str(w_shape)}")
        kernel = w_shape[2:]
        declared = node.attr("kernel_shape")
        if declared is not None and tuple(declared) != kernel:
            raise node.error(
                f"attribute 'kernel_shape' = {list(declared)} does not match "
                f"{node.input_label(1)} of shape {shape_str(w_shape)}"
            )
        win = window(node, x_shape[2:], kernel)
        groups = node.attr("group", 1)
        out = node.emit(
            Conv2dOp(
                node.input(0),
                node.input(1),
                strides=win.strides,
                padding=win.padding,
                dilation=win.dilations,
                groups=groups,
            )
        )
        if node.has_input(2):
            out = node.emit(BiasAddOp(out, node.input(2), axis=1))
        return out


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Conv": Conv,
}
