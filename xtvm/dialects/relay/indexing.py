"""Indexing: ``relay.take`` (gather along an axis), ``relay.strided_slice``,
``relay.gather`` (elementwise gather) and ``relay.gather_nd``.

Indices are run-time tensors: gathers wrap or clamp them so that a kernel
never reads outside its data, whatever the values."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    functional_format,
    i64_attr,
    normalize_axis,
    shape_str,
    tensor_type,
)

TAKE_MODES = ("clip", "wrap")


@irdl_op_definition
class TakeOp(RelayOp):
    """Gathers ``data`` entries at integer ``indices`` along ``axis`` (TVM's
    ``take``): the result shape is ``data.shape[:axis] + indices.shape +
    data.shape[axis + 1:]``. Without ``axis``, ``data`` is flattened first.
    ``mode`` says what out-of-range indices mean: ``"clip"`` (default, as
    TVM) clamps them to ``[0, size - 1]``; ``"wrap"`` takes them modulo the
    size, so ``-1`` is the last entry (ONNX ``Gather``).

    ```mlir
    %y = relay.take %x, %i {axis = 0 : i64, mode = "wrap"} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
    ```
    """

    name = "relay.take"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    mode = prop_def(StringAttr, default_value=StringAttr("clip"))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "indices")

    def __init__(
        self, data: SSAValue, indices: SSAValue, axis: int | None = None, mode: str | None = None
    ):
        super().__init__(data, indices, mode=mode, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        indices = tensor_type(cls, operand_types[1], "indices")
        if not isinstance(indices.element_type, IntegerType):
            raise RelayTypeError(
                f"'{cls.name}' indices must be integers, got {indices.element_type}"
            )
        if attrs["mode"] not in TAKE_MODES:
            raise RelayTypeError(
                f"'{cls.name}' mode must be one of {', '.join(TAKE_MODES)}, got '{attrs['mode']}'"
            )
        shape = list(data.get_shape())
        if attrs.get("axis") is None:
            size = 1
            for d in shape:
                size = DYNAMIC_INDEX if DYNAMIC_INDEX in (d, size) else size * d
            shape, axis = [size], 0
        else:
            axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        if shape[axis] == 0:
            raise RelayTypeError(f"'{cls.name}' cannot take from an empty axis {axis}")
        out = shape[:axis] + list(indices.get_shape()) + shape[axis + 1 :]
        return [TensorType(data.element_type, out)]


def slice_bounds(size: int, begin: int, end: int, stride: int) -> tuple[int, int, int]:
    """``(begin, end, count)`` of a slice along an axis of ``size`` elements,
    ONNX ``Slice`` rules: negative bounds count from the end, then bounds are
    clamped to ``[0, size]`` (``[0, size - 1]`` and ``[-1, size - 1]`` for a
    negative stride); ``count`` is the number of elements taken."""
    if begin < 0:
        begin += size
    if end < 0:
        end += size
    if stride > 0:
        begin, end = min(max(begin, 0), size), min(max(end, 0), size)
        return begin, end, max(0, -(-(end - begin) // stride))
    begin, end = min(max(begin, 0), size - 1), min(max(end, -1), size - 1)
    return begin, end, max(0, -(-(begin - end) // -stride))


@irdl_op_definition
class StridedSliceOp(RelayOp):
    """Slices ``begin[k]:end[k]:strides[k]`` along axis ``axes[k]`` (TVM's
    ``strided_slice`` in ``"end"`` mode, bounds as ONNX ``Slice``: negative
    values count from the end and out-of-range ones are clamped, so
    ``end = INT64_MAX`` means "to the end"). ``strides`` defaults to 1s;
    without ``axes`` the bounds apply to the leading axes. Other axes are
    kept whole.

    ```mlir
    %y = relay.strided_slice %x {begin = array<i64: 1, 0>, end = array<i64: 3, -1>, strides = array<i64: 1, 2>} : (tensor<4x9xf32>) -> tensor<2x4xf32>
    %z = relay.strided_slice %x {begin = array<i64: -1>, end = array<i64: -10>, strides = array<i64: -1>, axes = array<i64: 1>} : (tensor<4x9xf32>) -> tensor<4x9xf32>
    ```
    """

    name = "relay.strided_slice"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    begin = prop_def(DenseArrayBase)
    end = prop_def(DenseArrayBase)
    strides = opt_prop_def(DenseArrayBase)
    axes = opt_prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(
        self,
        input: SSAValue,
        begin: Sequence[int],
        end: Sequence[int],
        strides: Sequence[int] | None = None,
        axes: Sequence[int] | None = None,
    ):
        super().__init__(input, begin=begin, end=end, strides=strides, axes=axes)

    @classmethod
    def normalized(cls, rank: int, attrs: Mapping[str, Any]) -> list[tuple[int, int, int, int]]:
        """``(axis, begin, end, stride)`` per sliced axis, axes non-negative."""
        begin, end = list(attrs["begin"]), list(attrs["end"])
        strides = list(attrs.get("strides") or [1] * len(begin))
        axes = attrs.get("axes")
        if len(end) != len(begin) or len(strides) != len(begin):
            raise RelayTypeError(
                f"'{cls.name}' begin, end and strides must have one length, "
                f"got {len(begin)}, {len(end)} and {len(strides)}"
            )
        if axes is None:
            if len(begin) > rank:
                raise RelayTypeError(
                    f"'{cls.name}' has {len(begin)} bounds for a tensor of rank {rank}"
                )
            axes = list(range(len(begin)))
        elif len(axes) != len(begin):
            raise RelayTypeError(
                f"'{cls.name}' axes must have one entry per bound, got {len(axes)} for {len(begin)}"
            )
        axes = [normalize_axis(cls.name, a, rank) for a in axes]
        if len(set(axes)) != len(axes):
            raise RelayTypeError(f"'{cls.name}' axes {list(attrs['axes'])} repeat an axis")
        if 0 in strides:
            raise RelayTypeError(f"'{cls.name}' strides must be non-zero, got {strides}")
        return list(zip(axes, begin, end, strides))

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = list(data.get_shape())
        for axis, begin, end, stride in cls.normalized(len(shape), attrs):
            if shape[axis] != DYNAMIC_INDEX:
                shape[axis] = slice_bounds(shape[axis], begin, end, stride)[2]
        return [TensorType(data.element_type, shape)]


def index_tensor(op_name: str, value: Attribute, what: str = "indices") -> TensorType:
    """``value`` as a tensor of integers, or a type error naming the op."""
    indices = tensor_type(op_name, value, what)
    if not isinstance(indices.element_type, IntegerType) or indices.element_type.width.data == 1:
        raise RelayTypeError(f"'{op_name}' {what} must be integers, got {indices.element_type}")
    return indices


def _static(op_name: str, shape: Sequence[int], what: str) -> None:
    if DYNAMIC_INDEX in shape:
        raise RelayTypeError(f"'{op_name}' needs a static shape for {what}, got {shape_str(shape)}")


@irdl_op_definition
class GatherOp(RelayOp):
    """Gathers along ``axis`` elementwise (TVM's ``gather``, ONNX
    ``GatherElements``): ``indices`` has the rank of ``data`` and the result
    its shape; ``out[p] = data[p with p[axis] = indices[p]]``. Along the
    other axes ``indices`` may be shorter than ``data``. Negative indices
    count from the end; out-of-range ones wrap around (modulo the axis
    size), so the kernel never reads outside ``data``.

    ```mlir
    %y = relay.gather %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
    """

    name = "relay.gather"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "indices")

    def __init__(self, data: SSAValue, indices: SSAValue, axis: int):
        super().__init__(data, indices, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        indices = index_tensor(cls.name, operand_types[1])
        shape, ishape = data.get_shape(), indices.get_shape()
        if len(shape) != len(ishape):
            raise RelayTypeError(
                f"'{cls.name}' indices must have the rank of data ({len(shape)}), "
                f"got shape {shape_str(ishape)}"
            )
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        if shape[axis] == 0 and ishape[axis] != 0:
            raise RelayTypeError(f"'{cls.name}' cannot gather from the empty axis {axis}")
        for d, (n, m) in enumerate(zip(shape, ishape)):
            if d != axis and DYNAMIC_INDEX not in (n, m) and m > n:
                raise RelayTypeError(
                    f"'{cls.name}' indices shape {shape_str(ishape)} exceeds data shape "
                    f"{shape_str(shape)} at axis {d}"
                )
        return [TensorType(data.element_type, ishape)]


@irdl_op_definition
class GatherNdOp(RelayOp):
    """Gathers slices of ``data`` at index tuples (TVM's ``gather_nd``):
    ``indices`` has shape ``(M, Y_0, ..., Y_{K-1})``, its first axis holding
    tuples of ``M`` indices into ``data`` axes ``batch_dims ..
    batch_dims + M - 1``. The first ``batch_dims`` axes of ``data`` and of
    ``Y`` are batch axes and must agree. The result has shape ``(Y_0, ...,
    Y_{K-1}, X_{batch_dims + M}, ...)``: ``out[y, x] = data[y_0, ..,
    y_{b-1}, indices[:, y], x]``. Negative indices count from the end;
    out-of-range ones wrap around. (ONNX ``GatherND`` puts the tuple on the
    last axis: its converter transposes the indices.)

    ```mlir
    %y = relay.gather_nd %x, %i : (tensor<2x3x4xf32>, tensor<2x5xi64>) -> tensor<5x4xf32>
    %z = relay.gather_nd %x, %j {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<1x2xi64>) -> tensor<2x4xf32>
    ```
    """

    name = "relay.gather_nd"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    batch_dims = prop_def(IntegerAttr, default_value=i64_attr(0))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "indices")

    def __init__(self, data: SSAValue, indices: SSAValue, batch_dims: int | None = None):
        super().__init__(data, indices, batch_dims=batch_dims)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        indices = index_tensor(cls.name, operand_types[1])
        shape, ishape = data.get_shape(), indices.get_shape()
        batch = attrs["batch_dims"]
        if not ishape:
            raise RelayTypeError(f"'{cls.name}' indices must have rank >= 1")
        _static(cls.name, ishape[:1], "the index tuple axis of indices")
        m, outer = ishape[0], ishape[1:]
        if batch < 0 or batch > len(outer) or batch + m > len(shape):
            raise RelayTypeError(
                f"'{cls.name}' batch_dims {batch} and index tuples of {m} do not fit data of "
                f"shape {shape_str(shape)} and indices of shape {shape_str(ishape)}"
            )
        for d in range(batch):
            if DYNAMIC_INDEX not in (shape[d], outer[d]) and shape[d] != outer[d]:
                raise RelayTypeError(
                    f"'{cls.name}' batch axis {d} has size {shape[d]} in data but "
                    f"{outer[d]} in indices"
                )
        if any(n == 0 for n in shape[batch : batch + m]) and math.prod(outer) != 0:
            raise RelayTypeError(f"'{cls.name}' cannot gather from an empty axis of data")
        return [TensorType(data.element_type, [*outer, *shape[batch + m :]])]
