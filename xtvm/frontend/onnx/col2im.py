"""Converter for ``Col2Im`` (opset 18), decomposed exactly into existing
relay ops: every column entry is added (``relay.scatter_elements`` with
``reduction = "add"``) at its position in the zero-initialized padded image
— positions that are constants of the compile-time ``image_shape``,
``block_shape``, ``strides``, ``dilations`` and ``pads`` — and the pads are
sliced off."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import FullOp, ReshapeOp, ScatterElementsOp, StridedSliceOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def col2im_positions(
    channels: int,
    padded: list[int],
    block: list[int],
    counts: list[int],
    strides: list[int],
    dilations: list[int],
) -> np.ndarray:
    """The flat position in the padded ``[channels, *padded]`` image of each
    entry of a ``[channels * prod(block), prod(counts)]`` column matrix
    (rows: channel, then block offset; columns: block position)."""
    k = len(padded)
    offsets = np.stack(np.meshgrid(*[np.arange(b) for b in block], indexing="ij"), -1)
    starts = np.stack(np.meshgrid(*[np.arange(n) for n in counts], indexing="ij"), -1)
    offsets = offsets.reshape(-1, 1, k) * np.array(dilations)  # [K, 1, k]
    starts = starts.reshape(1, -1, k) * np.array(strides)  # [1, L, k]
    coords = offsets + starts  # [K, L, k]
    flat = np.ravel_multi_index(tuple(coords[..., d] for d in range(k)), padded)  # [K, L]
    image = int(np.prod(padded))
    return (np.arange(channels)[:, None, None] * image + flat[None]).reshape(-1)


class Col2Im(OnnxOpConverter):
    """``Col2Im(input [N, C * prod(block_shape), L], image_shape,
    block_shape)`` → ``[N, C, *image_shape]``: the sum of the sliding
    blocks (the inverse of im2col), with ``strides``, ``dilations`` and
    ``pads`` as ``Conv``'s."""

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        image, block = node.constant_ints(1), node.constant_ints(2)
        k = len(image)
        if len(block) != k or k < 1:
            raise node.error(f"image_shape {image} and block_shape {block} must have equal lengths")
        strides = node.attr("strides", [1] * k)
        dilations = node.attr("dilations", [1] * k)
        pads = node.attr("pads", [0] * (2 * k))
        if len(strides) != k or len(dilations) != k or len(pads) != 2 * k:
            raise node.error(
                f"strides {strides}, dilations {dilations} and pads {pads} must fit {k} axes"
            )
        padded = [image[d] + pads[d] + pads[k + d] for d in range(k)]
        counts = [
            (padded[d] - dilations[d] * (block[d] - 1) - 1) // strides[d] + 1 for d in range(k)
        ]
        shape = node.input_shape(0)
        kernel, columns = int(np.prod(block)), int(np.prod(counts))
        if len(shape) != 3 or min(counts) < 1 or shape[1] % kernel or shape[2] != columns:
            raise node.error(
                f"input of shape {list(shape)} does not fit: expected [N, C * {kernel}, {columns}] "
                f"for image_shape {image}, block_shape {block}"
            )
        batch, channels = shape[0], shape[1] // kernel
        positions = col2im_positions(channels, padded, block, counts, strides, dilations)
        x = node.input(0)
        ty = x.type
        assert isinstance(ty, TensorType)
        zero = node.const(np.array(0, numpy_dtype(ty.get_element_type())))
        total = channels * int(np.prod(padded))
        out = node.emit(FullOp(zero, [batch, total]))
        values = node.emit(ReshapeOp(x, [batch, positions.size]))
        indices = node.const(np.broadcast_to(positions, (batch, positions.size)).copy())
        out = node.emit(ScatterElementsOp(out, indices, values, axis=1, reduction="add"))
        out = node.emit(ReshapeOp(out, [batch, channels, *padded]))
        if not any(pads):
            return out
        begin = [0, 0, *pads[:k]]
        end = [batch, channels, *(pads[d] + image[d] for d in range(k))]
        return node.emit(StridedSliceOp(out, begin, end))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"Col2Im": Col2Im}
