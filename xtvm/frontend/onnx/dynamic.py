"""Converters for the ONNX ops whose output shape depends on input values
(``NonZero``, ``Compress``, ``Unique``,
``NonMaxSuppression``): each becomes a shape-function op and the op
itself (``xtvm/dialects/relay/dynamic.py``); the result has ``?`` sizes, so
the model runs on the VM, which allocates the result from the shape the
shape function computed (docs/data-dependent-ops.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, i64
from xdsl.ir import BlockArgument, SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    CompressOp,
    CompressShapeOp,
    NonMaxSuppressionOp,
    NonMaxSuppressionShapeOp,
    NonZeroOp,
    NonZeroShapeOp,
    RelayTypeError,
    TakeOp,
    UniqueOp,
    UniqueShapeOp,
)
from xtvm.dialects.relay.dynamic import (
    DynArangeOp,
    DynArangeShapeOp,
    DynBroadcastToOp,
    DynBroadcastToShapeOp,
    DynFullOp,
    DynReshapeOp,
    DynReshapeShapeOp,
    DynResizeOp,
    DynResizeShapeOp,
    DynTileOp,
    DynTileShapeOp,
    DynTopKOp,
    DynTopKShapeOp,
)
from xtvm.frontend.onnx import (
    algorithm,
    creation,
    image,
    indexing,
    layout,
    shape,
    tensor,
    transform,
)
from xtvm.frontend.onnx.common import OnnxConstantInputRequired
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.frontend.onnx.symbolic_shape import (
    propagate,
    run_time_shape,
    symbolic_reshape,
    symbolic_value,
)


class NonZero(OnnxOpConverter):
    """``NonZero`` → ``relay.nonzero_shape`` + ``relay.nonzero``: the
    ``rank x count`` int64 positions of the nonzero elements, row-major."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        if not node.input_shape(0):
            raise node.error("a scalar input is not supported (NumPy's nonzero refuses it)")
        shape = node.emit(NonZeroShapeOp(node.input(0)))
        return node.emit(NonZeroOp(node.input(0), shape))


class Compress(OnnxOpConverter):
    """``Compress`` → ``relay.compress_shape`` + ``relay.compress``: the
    slices along ``axis`` (elements of the flattened input without one)
    whose condition is true."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        axis = node.attr("axis", None)
        rank = len(node.input_shape(0))
        if axis is not None:
            if not -rank <= axis < rank:
                raise node.error(f"axis = {axis} is out of range for rank {rank}")
            axis %= rank
        shape = node.emit(CompressShapeOp(node.input(0), node.input(1), axis=axis))
        return node.emit(CompressOp(node.input(0), node.input(1), shape, axis=axis))


class Unique(OnnxOpConverter):
    """``Unique`` → ``relay.unique_shape`` + ``relay.unique``: the distinct
    slices along ``axis`` (elements without one), sorted (``sorted`` = 1,
    the default) or in order of first occurrence, with their first
    positions, the inverse indices and the counts."""

    @classmethod
    def _impl_v11(cls, node: OnnxNode) -> list[SSAValue]:
        axis = node.attr("axis", None)
        rank = len(node.input_shape(0))
        if axis is not None:
            if not -rank <= axis < rank:
                raise node.error(f"axis = {axis} is out of range for rank {rank}")
            axis %= rank
        is_sorted = node.attr("sorted", 1)
        if is_sorted not in (0, 1):
            raise node.unsupported_attr("sorted", "expected 0 or 1", 1)
        shapes = UniqueShapeOp(node.input(0), axis=axis, is_sorted=bool(is_sorted))
        node.emit(shapes)
        op = UniqueOp(node.input(0), list(shapes.results), axis=axis, is_sorted=bool(is_sorted))
        node.emit(op)
        return list(op.results)


class NonMaxSuppression(OnnxOpConverter):
    """``NonMaxSuppression`` → ``relay.non_max_suppression_shape`` +
    ``relay.non_max_suppression``: every input is read at run time;
    a missing ``max_output_boxes_per_class`` is 0 (nothing selected), a
    missing ``iou_threshold`` 0, a missing ``score_threshold`` no threshold."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        dtype = numpy_dtype(node.input(1).type.element_type)
        present = [node.has_input(i) for i in range(5)]
        defaults = {2: np.zeros(1, np.int64), 3: np.zeros(1, dtype), 4: np.zeros(1, dtype)}
        inputs = [node.input(i) if present[i] else node.const(defaults[i]) for i in range(5)]
        center = node.attr("center_point_box", 0)
        if center not in (0, 1):
            raise node.unsupported_attr("center_point_box", "expected 0 or 1", 0)
        attrs = {"center_point_box": bool(center), "has_score_threshold": present[4]}
        shape = node.emit(NonMaxSuppressionShapeOp(inputs, **attrs))
        return node.emit(NonMaxSuppressionOp(inputs, shape, **attrs))


# Ops whose output shape is an input's value. Their converters (algorithm,
# creation, layout, shape and transform files) read that value at compile
# time; when it is a graph input, known only at run time, the conversion
# here takes over instead of the backend specializing the model for the
# value: the shape function and the op read it on the VM.


class _NotDynamic(Exception):
    """The node has no run-time form here (the static error stands)."""


def _is_graph_input(node: OnnxNode, name: str) -> bool:
    """Whether ``name`` is known only at run time in a form the run-time ops
    take: a graph input, or a value computed from the run-time ``Shape`` of
    a ``?`` size (``Range(0, Gather(Shape(ids), 1))``: position ids)."""
    if name not in node.proto.input or not node.scope.is_defined(name):
        return False
    value = node.scope.lookup(name)
    if symbolic_value(value) is not None:
        return True
    return isinstance(value, BlockArgument) and isinstance(value.type, TensorType)


def _static_input(node: OnnxNode, i: int) -> SSAValue:
    value = node.input(i)
    if DYNAMIC_INDEX in static_shape(value):
        raise _NotDynamic
    return value


def _int64_vector(node: OnnxNode, i: int) -> SSAValue:
    value = node.input(i)
    ty = value.type
    if not (isinstance(ty, TensorType) and ty.element_type == i64 and len(ty.get_shape()) == 1):
        raise _NotDynamic
    return _static_input(node, i)


def _range(node: OnnxNode) -> SSAValue:
    start, limit, delta = (node.input(i) for i in range(3))
    shape = node.emit(DynArangeShapeOp(start, limit, delta))
    return node.emit(DynArangeOp(start, delta, shape))


def _constant_of_shape(node: OnnxNode) -> SSAValue:
    value = node.attr("value")
    value = np.zeros(1, np.float32) if value is None else np.asarray(value)
    if value.size != 1:
        raise _NotDynamic
    return node.emit(DynFullOp(node.const(value.reshape(())), _int64_vector(node, 0)))


def _expand(node: OnnxNode) -> SSAValue:
    data = _static_input(node, 0)
    shape = node.emit(DynBroadcastToShapeOp(data, _int64_vector(node, 1)))
    return node.emit(DynBroadcastToOp(data, shape))


def _tile(node: OnnxNode) -> SSAValue:
    data = _static_input(node, 0)
    shape = node.emit(DynTileShapeOp(data, _int64_vector(node, 1)))
    return node.emit(DynTileOp(data, shape))


def _reshape(node: OnnxNode) -> SSAValue:
    data = _static_input(node, 0)
    allowzero = bool(node.attr("allowzero", 0))
    shape = node.emit(DynReshapeShapeOp(data, _int64_vector(node, 1), allowzero=allowzero))
    return node.emit(DynReshapeOp(data, shape))


def _topk(node: OnnxNode) -> list[SSAValue]:
    data = _static_input(node, 0)
    rank = len(static_shape(data))
    axis = node.attr("axis", -1)
    if not -rank <= axis < rank or node.attr("largest", 1) not in (0, 1):
        raise _NotDynamic
    k = node.input(1)
    shapes = DynTopKShapeOp(data, k, axis % rank)
    node.emit(shapes)
    op = DynTopKOp(data, list(shapes.results), axis % rank, is_ascend=not node.attr("largest", 1))
    node.emit(op)
    return [op.values, op.indices]


_RESIZE_METHODS = {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}


def _resize(node: OnnxNode) -> SSAValue:
    """``Resize`` (opset 11+) with run-time ``scales``, ``sizes`` or ``roi``;
    antialiasing keeps the specialized path."""
    if len(node.proto.input) < 3 or node.attr("antialias", 0):
        raise _NotDynamic
    data = _static_input(node, 0)
    rank = len(static_shape(data))
    axes = node.attr("axes")
    axes = list(range(rank)) if axes is None else [a % rank for a in axes]
    mode = node.attr("coordinate_transformation_mode", "half_pixel")
    method = _RESIZE_METHODS.get(node.attr("mode", "nearest"))
    if method is None:
        raise _NotDynamic
    scales_given = node.has_input(2) and node.input_shape(2) != (0,)
    given = node.input(2) if scales_given else _int64_vector(node, 3)
    if mode == "tf_crop_and_resize":
        roi = node.input(1)
    else:
        roi = node.const(np.array([0.0] * len(axes) + [1.0] * len(axes), np.float32))
    common = {
        "axes": axes,
        "scales_given": scales_given,
        "policy": node.attr("keep_aspect_ratio_policy", "stretch"),
    }
    shape = node.emit(DynResizeShapeOp(data, given, **common))
    op = DynResizeOp(
        data,
        given,
        roi,
        shape,
        **common,
        method=method,
        coordinate_transformation_mode=mode,
        rounding_method=node.attr("nearest_mode", "round_prefer_floor"),
        cubic_alpha=node.attr("cubic_coeff_a", -0.75),
        cubic_exclude=bool(node.attr("exclude_outside", 0)),
        extrapolation_value=node.attr("extrapolation_value", 0.0),
    )
    return node.emit(op)


def _wrap_converter(
    static: type[OnnxOpConverter],
    wrap: Callable[[Callable[[OnnxNode], Any]], Callable[[OnnxNode], Any]],
    note: str,
) -> type[OnnxOpConverter]:
    """``static`` (same name) whose converter of each opset is ``wrap``ped;
    ``note`` is added to its docstring."""

    class Wrapped(static):  # type: ignore[misc, valid-type]
        @classmethod
        def get_converter(cls, opset: int) -> Any:
            convert = static.get_converter(opset)
            return None if convert is None else wrap(convert)

    Wrapped.__name__ = Wrapped.__qualname__ = static.__name__
    Wrapped.__doc__ = f"{static.__doc__}\n\n{note}"
    return Wrapped


def _or_dynamic(
    static: type[OnnxOpConverter], dynamic: Callable[[OnnxNode], Any]
) -> type[OnnxOpConverter]:
    """``static``'s converter, falling back to ``dynamic`` when a value it
    needs at compile time is a graph input."""

    def wrap(convert: Callable[[OnnxNode], Any]) -> Callable[[OnnxNode], Any]:
        def run(node: OnnxNode) -> Any:
            try:
                return convert(node)
            except OnnxConstantInputRequired as e:
                if node.folding or not _is_graph_input(node, e.value_name):
                    raise
                try:
                    return dynamic(node)
                except (_NotDynamic, RelayTypeError):
                    raise e from None

        return run

    return _wrap_converter(static, wrap, f"A run-time input: {dynamic.__name__} (dynamic.py).")


class Shape(shape.Shape):
    """``Shape``: a constant when the sizes asked for are static; else the
    run-time ``relay.shape_of`` with a symbolic value (symbolic_shape.py)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> Any:
        result = run_time_shape(node, 0, None)
        return super()._impl_v1(node) if result is None else result

    @classmethod
    def _impl_v15(cls, node: OnnxNode) -> Any:
        start, end = node.attr("start", 0), node.attr("end", None)
        result = run_time_shape(node, start, end)
        return super()._impl_v15(node) if result is None else result


def _tracking(static: type[OnnxOpConverter], first: Callable[[OnnxNode], Any] | None = None
              ) -> type[OnnxOpConverter]:
    """``static``'s converter, carrying a symbolic shape value through the
    node (symbolic_shape.propagate); with ``first``, that conversion is
    tried before (None: not taken)."""

    def wrap(convert: Callable[[OnnxNode], Any]) -> Callable[[OnnxNode], Any]:
        def run(node: OnnxNode) -> Any:
            result = first(node) if first is not None and not node.folding else None
            if result is not None:
                return result
            result = convert(node)
            if isinstance(result, SSAValue) and not node.folding:
                propagate(node, result)
            return result

        return run

    return _wrap_converter(static, wrap, "Symbolic shape values: symbolic_shape.py.")


def _gather_along_dynamic_axis(node: OnnxNode) -> SSAValue | None:
    """``Gather`` with constant indices along a ``?`` axis (a transformer's
    first token, ``x[:, 0]``): ``relay.take`` in ``"wrap"`` mode, so a
    negative index counts from the run-time end (as for computed indices,
    an out-of-range index wraps); None for a static axis."""
    shape = node.input_shape(0)
    axis = node.attr("axis", 0)
    if not -len(shape) <= axis < len(shape) or shape[axis] != DYNAMIC_INDEX:
        return None
    if not node.is_constant(1) or not np.issubdtype(node.constant_input(1).dtype, np.integer):
        return None
    indices = node.input(1)
    return node.emit(TakeOp(node.input(0), indices, axis=axis % len(shape), mode="wrap"))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Shape": Shape,
    "Slice": _tracking(indexing.Slice),
    "Gather": _tracking(indexing.Gather, _gather_along_dynamic_axis),
    "Concat": _tracking(transform.Concat),
    "Unsqueeze": _tracking(transform.Unsqueeze),
    "Squeeze": _tracking(transform.Squeeze),
    "Cast": _tracking(tensor.Cast),
    "NonZero": NonZero,
    "Compress": Compress,
    "Unique": Unique,
    "NonMaxSuppression": NonMaxSuppression,
    "Range": _or_dynamic(creation.Range, _range),
    "ConstantOfShape": _or_dynamic(shape.ConstantOfShape, _constant_of_shape),
    "Expand": _or_dynamic(layout.Expand, _expand),
    "Tile": _or_dynamic(layout.Tile, _tile),
    "Reshape": _tracking(_or_dynamic(transform.Reshape, _reshape), symbolic_reshape),
    "TopK": _or_dynamic(algorithm.TopK, _topk),
    "Resize": _or_dynamic(image.Resize, _resize),
}
