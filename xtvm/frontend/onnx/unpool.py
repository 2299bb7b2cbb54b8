"""Converter for ``MaxUnpool``, decomposed exactly into existing relay ops:
a zero tensor of the unpooled size (``relay.full``) into which
``relay.scatter_elements`` writes each input value at its flat index (the
``Indices`` output of ``MaxPool``), reshaped to the unpooled shape and, when
``output_shape`` is larger, padded with zeros at the end of each axis (as
onnx's reference and node tests; onnxruntime instead reads the indices as
positions in ``output_shape``)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import FullOp, PadOp, ReshapeOp, ScatterElementsOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def _unpooled_shape(node: OnnxNode, xshape: tuple[int, ...]) -> list[int]:
    """``(in - 1) * stride + kernel - pad_begin - pad_end`` per spatial axis."""
    kernel = node.attr("kernel_shape")
    if kernel is None:
        raise node.error("attribute 'kernel_shape' is required")
    dims = len(kernel)
    if len(xshape) != dims + 2:
        raise node.error(
            f"input of shape {list(xshape)} does not have the {dims} spatial axes "
            f"of kernel_shape {list(kernel)}"
        )
    strides = node.attr("strides", [1] * dims)
    pads = node.attr("pads", [0] * (2 * dims))
    if len(strides) != dims or len(pads) != 2 * dims:
        raise node.error(f"strides {strides} and pads {pads} do not fit {dims} spatial axes")
    return [*xshape[:2]] + [
        (xshape[2 + d] - 1) * strides[d] + kernel[d] - pads[d] - pads[dims + d] for d in range(dims)
    ]


class MaxUnpool(OnnxOpConverter):
    """``MaxUnpool(X, I, output_shape?)``: the output is zero except at the
    flat positions ``I`` of the unpooled shape (MaxPool's inverse of
    ``kernel_shape``, ``strides`` and ``pads``), which take the values of
    ``X``; ``output_shape`` (a compile-time input) may extend it."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        x, indices = node.input(0), node.input(1)
        xshape = node.input_shape(0)
        if node.input_shape(1) != xshape:
            raise node.error(
                f"{node.input_label(1)} of shape {list(node.input_shape(1))} must have "
                f"the shape of the input, {list(xshape)}"
            )
        shape = _unpooled_shape(node, xshape)
        out_shape = node.optional_constant_ints(2) or shape
        if len(out_shape) != len(shape) or any(o < s for o, s in zip(out_shape, shape)):
            raise node.error(
                f"{node.input_label(2)} {out_shape} must be at least the unpooled shape {shape}"
            )
        ty = x.type
        assert isinstance(ty, TensorType)
        zero = node.const(np.array(0, numpy_dtype(ty.get_element_type())))
        total = int(np.prod(shape))
        flat = node.emit(FullOp(zero, [total]))
        size = int(np.prod(xshape))
        flat = node.emit(
            ScatterElementsOp(
                flat,
                node.emit(ReshapeOp(indices, [size])),
                node.emit(ReshapeOp(x, [size])),
                axis=0,
            )
        )
        y = node.emit(ReshapeOp(flat, shape))
        if out_shape == shape:
            return y
        pad_width = [w for o, s in zip(out_shape, shape) for w in (0, o - s)]
        return node.emit(PadOp(y, zero, pad_width))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"MaxUnpool": MaxUnpool}
