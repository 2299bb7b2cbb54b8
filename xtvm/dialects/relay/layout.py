"""Layout and data-movement ops: ``relay.broadcast_to``, ``relay.tile``,
``relay.reverse_sequence``, ``relay.nn.pad``, ``relay.nn.depth_to_space``,
``relay.nn.space_to_depth``.

Each output element is a copy of one input element (or the pad value), so
all of them are injective (``broadcast_to`` is a broadcast)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    broadcast_shapes,
    functional_format,
    i64_attr,
    normalize_axis,
    same_extent,
    shape_str,
    tensor_type,
)
from xtvm.dialects.relay.indexing import index_tensor

PAD_MODES = ("constant", "edge", "reflect", "wrap")
"""``relay.nn.pad`` modes: TVM's three, and ONNX's ``wrap``."""

BLOCK_MODES = ("DCR", "CRD")
"""How ``depth_to_space``/``space_to_depth`` order a channel's block:
depth-column-row or column-row-depth (ONNX's names)."""


def _size(op_name: str, d: int, what: str) -> int:
    if d == DYNAMIC_INDEX:
        raise RelayTypeError(f"'{op_name}' needs a static size for {what}")
    return d


@irdl_op_definition
class BroadcastToOp(RelayOp):
    """Broadcasts ``data`` to ``shape`` with NumPy rules (TVM's
    ``broadcast_to``): ``data`` must broadcast to exactly ``shape``. (ONNX
    ``Expand``, which broadcasts both ways, passes the broadcast of both.)

    ```mlir
    %y = relay.broadcast_to %x {shape = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
    ```
    """

    name = "relay.broadcast_to"
    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    data = operand_def(TensorType)
    result = result_def(TensorType)
    shape = prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(self, data: SSAValue, shape: Sequence[int]):
        super().__init__(data, shape=shape)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        shape = list(attrs["shape"])
        if any(d < 0 for d in shape):
            raise RelayTypeError(f"'{cls.name}' shape {shape} has a negative size")
        if broadcast_shapes(cls.name, data.get_shape(), shape) != shape:
            raise RelayTypeError(
                f"'{cls.name}' cannot broadcast {shape_str(data.get_shape())} to {shape_str(shape)}"
            )
        return [TensorType(data.element_type, shape)]


@irdl_op_definition
class TileOp(RelayOp):
    """Repeats ``data`` ``reps[d]`` times along each axis ``d`` (TVM's
    ``tile``): the result has shape ``shape[d] * reps[d]``. A shorter
    ``reps`` is padded with leading 1s; a longer one prepends size-1 axes to
    ``data``.

    ```mlir
    %y = relay.tile %x {reps = array<i64: 2, 3>} : (tensor<2x2xf32>) -> tensor<4x6xf32>
    ```
    """

    name = "relay.tile"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    reps = prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(self, data: SSAValue, reps: Sequence[int]):
        super().__init__(data, reps=reps)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        reps = list(attrs["reps"])
        if any(r < 0 for r in reps):
            raise RelayTypeError(f"'{cls.name}' reps {reps} must be non-negative")
        shape = list(data.get_shape())
        rank = max(len(shape), len(reps))
        shape = [1] * (rank - len(shape)) + shape
        reps = [1] * (rank - len(reps)) + reps
        out = [DYNAMIC_INDEX if d == DYNAMIC_INDEX else d * r for d, r in zip(shape, reps)]
        return [TensorType(data.element_type, out)]


@irdl_op_definition
class ReverseSequenceOp(RelayOp):
    """Reverses the first ``seq_lengths[b]`` elements along ``seq_axis`` of
    each slice ``b`` along ``batch_axis`` (TVM's ``reverse_sequence``, ONNX
    ``ReverseSequence``); the elements past that length stay. A length is
    clamped to ``[0, size of seq_axis]``.

    ```mlir
    %y = relay.reverse_sequence %x, %len {seq_axis = 0 : i64, batch_axis = 1 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
    ```
    """

    name = "relay.reverse_sequence"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    seq_lengths = operand_def(TensorType)
    result = result_def(TensorType)
    seq_axis = prop_def(IntegerAttr, default_value=i64_attr(1))
    batch_axis = prop_def(IntegerAttr, default_value=i64_attr(0))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "seq_lengths")

    def __init__(self, data: SSAValue, seq_lengths: SSAValue, seq_axis: int, batch_axis: int):
        super().__init__(data, seq_lengths, seq_axis=seq_axis, batch_axis=batch_axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        lengths = index_tensor(cls.name, operand_types[1], "seq_lengths")
        shape = data.get_shape()
        seq = normalize_axis(cls.name, attrs["seq_axis"], len(shape), "seq_axis")
        batch = normalize_axis(cls.name, attrs["batch_axis"], len(shape), "batch_axis")
        if seq == batch:
            raise RelayTypeError(
                f"'{cls.name}' seq_axis and batch_axis must differ, both are {seq}"
            )
        if len(lengths.get_shape()) != 1 or not same_extent(lengths.get_shape()[0], shape[batch]):
            raise RelayTypeError(
                f"'{cls.name}' seq_lengths must have shape {shape_str([shape[batch]])} (one "
                f"length per batch entry), got {shape_str(lengths.get_shape())}"
            )
        return [data]


@irdl_op_definition
class PadOp(RelayOp):
    """Pads ``data`` (TVM's ``nn.pad``): ``pad_width`` holds
    ``[before_0, after_0, before_1, after_1, ...]``, one pair per axis; a
    negative width crops. ``pad_mode`` fills the border with the scalar
    operand ``pad_value`` (``"constant"``), the nearest edge element
    (``"edge"``), the mirror image without the edge (``"reflect"``) or the
    other end of the axis (``"wrap"``, ONNX); as in NumPy, reflections and
    wraps repeat when the pad is wider than the axis.

    ```mlir
    %y = relay.nn.pad %x, %v {pad_width = array<i64: 0, 0, 1, 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x6xf32>
    %z = relay.nn.pad %x, %v {pad_width = array<i64: 1, 1, 0, 0>, pad_mode = "reflect"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    ```
    """

    name = "relay.nn.pad"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    pad_value = operand_def(TensorType)
    result = result_def(TensorType)
    pad_width = prop_def(DenseArrayBase)
    pad_mode = prop_def(StringAttr, default_value=StringAttr("constant"))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "pad_value")

    def __init__(
        self,
        data: SSAValue,
        pad_value: SSAValue,
        pad_width: Sequence[int],
        pad_mode: str | None = None,
    ):
        super().__init__(data, pad_value, pad_width=pad_width, pad_mode=pad_mode)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        value = tensor_type(cls, operand_types[1], "pad_value")
        if value.get_shape() or value.element_type != data.element_type:
            raise RelayTypeError(
                f"'{cls.name}' pad_value must be a scalar of the data's element type "
                f"{data.element_type}, got {value}"
            )
        mode = attrs["pad_mode"]
        if mode not in PAD_MODES:
            raise RelayTypeError(
                f"'{cls.name}' pad_mode must be one of {', '.join(PAD_MODES)}, got '{mode}'"
            )
        shape, width = data.get_shape(), list(attrs["pad_width"])
        if len(width) != 2 * len(shape):
            raise RelayTypeError(
                f"'{cls.name}' pad_width needs 2 values per axis ({2 * len(shape)}), "
                f"got {len(width)}"
            )
        out = []
        for d, n in enumerate(shape):
            before, after = width[2 * d], width[2 * d + 1]
            if n == DYNAMIC_INDEX:
                out.append(n)
                continue
            if n + before + after < 0:
                raise RelayTypeError(
                    f"'{cls.name}' pads {before}, {after} crop more than axis {d} of size {n}"
                )
            if mode != "constant" and n == 0 and (before > 0 or after > 0):
                raise RelayTypeError(
                    f"'{cls.name}' cannot pad the empty axis {d} in '{mode}' mode"
                )
            out.append(n + before + after)
        return [TensorType(data.element_type, out)]


class BlockRearrangeOp(RelayOp):
    """Base of ``depth_to_space`` and ``space_to_depth`` on NCHW data
    (TVM's attributes ``block_size``, ``layout``, ``mode``).

    ```mlir
    %y = relay.nn.depth_to_space %x {block_size = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    block_size = prop_def(IntegerAttr)
    layout = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    mode = prop_def(StringAttr, default_value=StringAttr("DCR"))
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(self, data: SSAValue, block_size: int, mode: str | None = None):
        super().__init__(data, block_size=block_size, mode=mode)

    @classmethod
    def checked(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        """``(data type, [n, c, h, w], block size)`` after the common checks."""
        data = tensor_type(cls, operand_types[0], "data")
        if attrs["layout"] != "NCHW":
            raise RelayTypeError(f"'{cls.name}' supports layout NCHW only, got '{attrs['layout']}'")
        if attrs["mode"] not in BLOCK_MODES:
            raise RelayTypeError(
                f"'{cls.name}' mode must be one of {', '.join(BLOCK_MODES)}, got '{attrs['mode']}'"
            )
        shape = data.get_shape()
        if len(shape) != 4:
            raise RelayTypeError(f"'{cls.name}' expects 4-d data (NCHW), got {shape_str(shape)}")
        block = attrs["block_size"]
        if block < 1:
            raise RelayTypeError(f"'{cls.name}' block_size must be >= 1, got {block}")
        return data, list(shape), block


@irdl_op_definition
class DepthToSpaceOp(BlockRearrangeOp):
    """Moves blocks of ``block_size**2`` channels into ``block_size x
    block_size`` spatial blocks: ``[N, C, H, W]`` → ``[N, C / b**2, H * b,
    W * b]``. In ``"DCR"`` mode channel ``(i * b + j) * C' + c`` goes to
    block position ``(i, j)`` of output channel ``c``; in ``"CRD"`` mode
    channel ``c * b * b + i * b + j`` does."""

    name = "relay.nn.depth_to_space"

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, (n, c, h, w), b = cls.checked(operand_types, attrs)
        c = _size(cls.name, c, "the channel axis")
        if c % (b * b):
            raise RelayTypeError(f"'{cls.name}' {c} channels are not a multiple of {b * b}")
        spatial = [DYNAMIC_INDEX if d == DYNAMIC_INDEX else d * b for d in (h, w)]
        return [TensorType(data.element_type, [n, c // (b * b), *spatial])]


@irdl_op_definition
class SpaceToDepthOp(BlockRearrangeOp):
    """The inverse of ``depth_to_space``: ``[N, C, H, W]`` → ``[N, C * b**2,
    H / b, W / b]``, each ``b x b`` spatial block becoming channels in the
    order ``mode`` says."""

    name = "relay.nn.space_to_depth"

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, (n, c, h, w), b = cls.checked(operand_types, attrs)
        h = _size(cls.name, h, "the height axis")
        w = _size(cls.name, w, "the width axis")
        if h % b or w % b:
            raise RelayTypeError(f"'{cls.name}' spatial size {h}x{w} is not a multiple of {b}")
        c = DYNAMIC_INDEX if c == DYNAMIC_INDEX else c * b * b
        return [TensorType(data.element_type, [n, c, h // b, w // b])]


LAYOUT_OPS: list[type[RelayOp]] = [
    BroadcastToOp,
    TileOp,
    ReverseSequenceOp,
    PadOp,
    DepthToSpaceOp,
    SpaceToDepthOp,
]
