"""Converters for ``Conv`` (→ ``relay.nn.conv{1,2,3}d`` and
``relay.nn.bias_add``), ``ConvInteger`` (the same in ``int32``; its
table row is in ``quantization``, which makes 2-d ones ``qnn.conv2d``) and
``ConvTranspose`` (→
``relay.nn.conv{1,2,3}d_transpose``), and the sliding-window attributes they
share with pooling.

Inputs are channel-first with 1, 2 or 3 spatial axes (``NCW``, ``NCHW``,
``NCDHW``); more spatial axes are an error naming the node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    BiasAddOp,
    Conv1dOp,
    Conv1dTransposeOp,
    Conv2dOp,
    Conv2dTransposeOp,
    Conv3dOp,
    Conv3dTransposeOp,
    ConvOp,
    ConvTransposeOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter
from xtvm.frontend.onnx.nn import widened

AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


@dataclass(frozen=True)
class Window:
    """A sliding window over ``N`` spatial axes in relay's terms."""

    kernel: tuple[int, ...]
    """``N`` values, likewise ``strides`` and ``dilations``."""
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    padding: tuple[int, ...]
    """``2N`` values, before each axis then after each: ONNX's ``pads`` order."""


def spatial_rank(node: OnnxNode, what: str) -> int:
    """The number of spatial axes of input 0 (``[N, C, *spatial]``), 1 to 3;
    ``kernel_shape``, when given, must have as many values."""
    shape = node.input_shape(0)
    n = len(shape) - 2
    if not 1 <= n <= 3:
        raise node.error(
            f"{node.input_label(0)} has shape {shape_str(shape)}, but {what} needs "
            "1 to 3 spatial axes (a rank-3, -4 or -5 channel-first input)"
        )
    kernel = node.attr("kernel_shape")
    if kernel is not None and len(kernel) != n:
        axes = "axis" if n == 1 else "axes"
        raise node.error(
            f"attribute 'kernel_shape' = {list(kernel)} has {len(kernel)} values, but "
            f"{node.input_label(0)} has {n} spatial {axes}"
        )
    return n


def ints(node: OnnxNode, name: str, count: int, default: int, minimum: int) -> tuple[int, ...]:
    """Attribute ``name``: ``count`` integers ``>= minimum``, or ``default`` each."""
    values = node.attr(name)
    if values is None:
        return (default,) * count
    if len(values) != count:
        raise node.error(f"attribute '{name}' must have {count} values, got {list(values)}")
    if any(v < minimum for v in values):
        raise node.error(f"attribute '{name}' values must be >= {minimum}, got {list(values)}")
    return tuple(int(v) for v in values)


def auto_pad(node: OnnxNode) -> str:
    """Attribute ``auto_pad``; with a value other than ``NOTSET``, ``pads``
    must be absent or zero."""
    value = node.attr("auto_pad", "NOTSET")
    if value not in AUTO_PADS:
        raise node.unsupported_attr("auto_pad", f"expected one of {', '.join(AUTO_PADS)}")
    if value != "NOTSET" and any(node.attr("pads") or ()):
        raise node.error(f"attributes 'auto_pad' = '{value}' and 'pads' exclude each other")
    return value


def window(node: OnnxNode, spatial: Sequence[int], kernel: Sequence[int]) -> Window:
    """The window of a ``Conv`` or pool on an input of spatial size
    ``spatial``: ``strides``, ``dilations`` and ``pads``, or the padding
    ``auto_pad`` implies.

    ``SAME_UPPER`` / ``SAME_LOWER`` pad so that ``out = ceil(in / stride)``:
    the total padding ``(out - 1) * stride + (kernel - 1) * dilation + 1 - in``
    (at least 0) is split in half, the odd element at the end (``UPPER``) or
    at the beginning (``LOWER``); ``VALID`` pads nothing.
    """
    n = len(spatial)
    strides = ints(node, "strides", n, 1, 1)
    dilations = ints(node, "dilations", n, 1, 1)
    pads = ints(node, "pads", 2 * n, 0, 0)
    mode = auto_pad(node)
    if mode != "NOTSET":
        pads = (0,) * (2 * n)
    if mode.startswith("SAME"):
        begin, end = [], []
        for size, k, s, d in zip(spatial, kernel, strides, dilations):
            out = -(-size // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
            small, large = total // 2, total - total // 2
            begin.append(small if mode == "SAME_UPPER" else large)
            end.append(large if mode == "SAME_UPPER" else small)
        pads = (*begin, *end)
    return Window(tuple(int(k) for k in kernel), strides, dilations, pads)


def _kernel(node: OnnxNode, n: int) -> tuple[int, ...]:
    """The kernel window from ``W``'s shape; ``kernel_shape``, when given,
    must agree."""
    w_shape = node.input_shape(1)
    if len(w_shape) != n + 2:
        raise node.error(
            f"{node.input_label(1)} must have rank {n + 2} like {node.input_label(0)}, "
            f"got shape {shape_str(w_shape)}"
        )
    kernel = w_shape[2:]
    declared = node.attr("kernel_shape")
    if declared is not None and tuple(declared) != kernel:
        raise node.error(
            f"attribute 'kernel_shape' = {list(declared)} does not match "
            f"{node.input_label(1)} of shape {shape_str(w_shape)}"
        )
    return kernel


def _group(node: OnnxNode) -> int:
    group = node.attr("group", 1)
    if group < 1:
        raise node.error(f"attribute 'group' = {group} must be >= 1")
    return group


def _bias(node: OnnxNode, out: SSAValue) -> SSAValue:
    """``out`` plus input 2 (``B``) along axis 1, when given."""
    return node.emit(BiasAddOp(out, node.input(2), axis=1)) if node.has_input(2) else out


class Conv(OnnxOpConverter):
    """``Conv`` → ``relay.nn.conv{1,2,3}d`` (``group`` → ``groups``, so
    ``group = C`` is a depthwise convolution), then ``relay.nn.bias_add``
    along axis 1 when ``B`` is given. Every version: v11 only clarified the
    ``auto_pad`` text."""

    OPS: ClassVar[dict[int, type[ConvOp]]] = {1: Conv1dOp, 2: Conv2dOp, 3: Conv3dOp}

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        n = spatial_rank(node, "Conv")
        kernel = _kernel(node, n)
        win = window(node, node.input_shape(0)[2:], kernel)
        op = cls.OPS[n](
            node.input(0),
            node.input(1),
            strides=win.strides,
            padding=win.padding,
            dilation=win.dilations,
            groups=_group(node),
        )
        return _bias(node, node.emit(op))


class ConvInteger(OnnxOpConverter):
    """``ConvInteger``: ``Conv`` of ``x - x_zero_point`` and ``w -
    w_zero_point`` in ``int32`` (a 1-d ``w_zero_point`` holds one zero point
    per output channel); padding adds zeros after the shift, so it stands for
    ``x_zero_point`` in ``x``'s terms."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        n = spatial_rank(node, "ConvInteger")
        kernel = _kernel(node, n)
        win = window(node, node.input_shape(0)[2:], kernel)
        x = widened(node, 0, 2, None)
        w = widened(node, 1, 3, [-1] + [1] * (n + 1))
        op = Conv.OPS[n](
            x,
            w,
            strides=win.strides,
            padding=win.padding,
            dilation=win.dilations,
            groups=_group(node),
        )
        return node.emit(op)


class ConvTranspose(OnnxOpConverter):
    """``ConvTranspose`` → ``relay.nn.conv{1,2,3}d_transpose`` (then
    ``relay.nn.bias_add`` when ``B`` is given).

    Per spatial axis the full result has ``full = (in - 1) * stride +
    output_padding + (k - 1) * dilation + 1`` elements, of which the output
    keeps ``pads`` cropped. An explicit ``output_shape`` without ``pads`` (or
    ``in * stride`` under ``SAME_UPPER`` / ``SAME_LOWER``) sets the output
    size: the difference to ``full`` is split between the two ends, the odd
    element at the end for ``SAME_UPPER`` and at the beginning otherwise (the
    spec's formula, as onnxruntime). An output larger than ``full`` extends
    the end with zeros (more ``output_padding``).
    """

    OPS: ClassVar[dict[int, type[ConvTransposeOp]]] = {
        1: Conv1dTransposeOp,
        2: Conv2dTransposeOp,
        3: Conv3dTransposeOp,
    }

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        n = spatial_rank(node, "ConvTranspose")
        kernel = _kernel(node, n)
        spatial = node.input_shape(0)[2:]
        strides = ints(node, "strides", n, 1, 1)
        dilations = ints(node, "dilations", n, 1, 1)
        extra = list(ints(node, "output_padding", n, 0, 0))
        mode = auto_pad(node)
        full = [
            (size - 1) * s + e + (k - 1) * d + 1
            for size, s, e, k, d in zip(spatial, strides, extra, kernel, dilations)
        ]
        target = node.attr("output_shape")
        if target is not None:
            target = list(target)[-n:] if len(target) in (n, n + 2) else None
            if target is None:
                raise node.error(
                    f"attribute 'output_shape' = {list(node.attr('output_shape'))} must have "
                    f"{n} values"
                )
        pads = ints(node, "pads", 2 * n, 0, 0) if mode == "NOTSET" else (0,) * (2 * n)
        if mode.startswith("SAME") or (target is not None and node.attr("pads") is None):
            target = target or [size * s for size, s in zip(spatial, strides)]
            totals = [f - t for f, t in zip(full, target)]
            if mode == "SAME_UPPER":
                begin = [t // 2 for t in totals]
            else:
                begin = [t - t // 2 for t in totals]
        else:
            begin = list(pads[:n])
            target = target or [f - b - e for f, b, e in zip(full, pads[:n], pads[n:])]
        if any(b < 0 for b in begin):
            raise node.error(
                f"the output size {target} needs negative padding at the beginning, "
                "which is not supported"
            )
        end = []
        for a in range(n):
            rest = full[a] - begin[a] - target[a]
            end.append(max(rest, 0))
            extra[a] += max(-rest, 0)
        op = cls.OPS[n](
            node.input(0),
            node.input(1),
            strides=strides,
            padding=(*begin, *end),
            output_padding=extra,
            dilation=dilations,
            groups=_group(node),
        )
        return _bias(node, node.emit(op))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Conv": Conv,
    "ConvTranspose": ConvTranspose,
}
