"""Converter for ``AffineGrid`` (opset 20), decomposed exactly into
``relay.nn.matmul``: the sampling grid of ``theta`` is the product of the
normalized base grid — a constant of the compile-time ``size`` — with
each batch's affine matrix."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import MatmulOp, ReshapeOp
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter


def normalized_coordinates(size: int, align_corners: bool) -> np.ndarray:
    """The ``size`` sample positions along an axis in ``[-1, 1]``: the
    corner pixels' centres at -1 and 1 with ``align_corners``, else the
    pixels' centres of a ``[-1, 1]`` span split in ``size``. A single
    sample with ``align_corners`` is at -1, as onnx's reference (PyTorch
    puts it at 0, onnxruntime at 1)."""
    i = np.arange(size, dtype=np.float64)
    if align_corners:
        return i * (2.0 / (size - 1)) - 1 if size > 1 else np.full(size, -1.0)
    return (2 * i + 1) / size - 1


def base_grid(sizes: list[int], align_corners: bool) -> np.ndarray:
    """``[prod(sizes), k + 1]``: the homogeneous coordinates ``(x, y[, z],
    1)`` of every output position, ``x`` along the last of ``sizes``."""
    axes = [normalized_coordinates(s, align_corners) for s in sizes]
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]
    return np.stack([*coords, np.ones(int(np.prod(sizes)))], axis=1)


class AffineGrid(OnnxOpConverter):
    """``AffineGrid(theta [N, k, k + 1], size)``: ``grid[n, ..., :] =
    theta[n] @ (x, y[, z], 1)`` over the ``k``-d output ``size`` (``[N, C,
    H, W]`` or ``[N, C, D, H, W]``, needed at compile time)."""

    @classmethod
    def _impl_v20(cls, node: OnnxNode) -> SSAValue:
        align_corners = node.attr("align_corners", 0)
        if align_corners not in (0, 1):
            raise node.unsupported_attr("align_corners", "expected 0 or 1", 0)
        size = node.constant_ints(1)
        theta = node.input(0)
        tshape = node.input_shape(0)
        k = len(size) - 2
        if k not in (2, 3) or tshape != (size[0], k, k + 1) or min(size) < 1:
            raise node.error(
                f"expected size [N, C, H, W] or [N, C, D, H, W] and theta [N, k, k + 1], "
                f"got size {size} and theta {list(tshape)}"
            )
        ty = theta.type
        assert isinstance(ty, TensorType)
        dtype = numpy_dtype(ty.get_element_type())
        base = node.const(base_grid(size[2:], bool(align_corners)).astype(dtype))
        grid = node.emit(MatmulOp(base, theta, transpose_b=True))  # [N, prod(size), k]
        return node.emit(ReshapeOp(grid, [size[0], *size[2:], k]))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {"AffineGrid": AffineGrid}
