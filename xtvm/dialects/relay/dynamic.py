"""Ops whose output shape depends on input *values* (TVM's dynamic ops with
data-dependent shape functions): ``relay.nonzero``, ``relay.compress``,
``relay.unique`` and ``relay.non_max_suppression``,
each with its shape function as an op of its own.

A data-dependent op is two ops (docs/data-dependent-ops.md):

* ``relay.<op>_shape`` reads the inputs' values and gives the result's
  shape as a 1-d ``i64`` tensor (a static type: an ordinary kernel
  computes it);
* ``relay.<op>`` takes the same inputs and that shape tensor as its last
  operand; its result has ``?`` where the size depends on values. The VM
  allocates the result from the shape tensor (``vm-manifest-value-shapes``)
  before it calls the op's kernel.

```mlir
%s = relay.nonzero_shape %x : (tensor<3x4xf32>) -> tensor<2xi64>
%y = relay.nonzero %x, %s : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f64,
    i64,
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
    bool_attr,
    functional_format,
    normalize_axis,
    tensor_type,
)


def _shape_operand(op: type[RelayOp], ty: Attribute, rank: int) -> None:
    """The shape operand must be a ``tensor<{rank}xi64>``."""
    shape = tensor_type(op, ty, "the shape operand")
    if shape.get_shape() != (rank,) or shape.element_type != i64:
        raise RelayTypeError(
            f"'{op.name}' expects its shape operand to be tensor<{rank}xi64> "
            f"(the result's rank), got {shape}"
        )


def _nonzero_rank(op: type[RelayOp], ty: Attribute) -> int:
    data = tensor_type(op, ty, "data")
    rank = len(data.get_shape())
    if not rank:
        raise RelayTypeError(f"'{op.name}' expects a tensor of rank >= 1, got a scalar")
    return rank


@irdl_op_definition
class NonZeroShapeOp(RelayOp):
    """The shape of ``relay.nonzero``'s result: ``[rank, count of nonzero
    elements]``.

    ```mlir
    %s = relay.nonzero_shape %x : (tensor<3x4xf32>) -> tensor<2xi64>
    ```
    """

    name = "relay.nonzero_shape"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(self, data: SSAValue):
        super().__init__(data)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        _nonzero_rank(cls, operand_types[0])
        return [TensorType(i64, [2])]


@irdl_op_definition
class NonZeroOp(RelayOp):
    """The positions of the nonzero elements (ONNX ``NonZero``, NumPy's
    ``nonzero`` stacked): ``rank x count`` ``int64`` indices in row-major
    order; ``shape`` is ``relay.nonzero_shape``'s result.

    ```mlir
    %y = relay.nonzero %x, %s : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
    ```
    """

    name = "relay.nonzero"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "shape")

    def __init__(self, data: SSAValue, shape: SSAValue):
        super().__init__(data, shape)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        rank = _nonzero_rank(cls, operand_types[0])
        _shape_operand(cls, operand_types[1], 2)
        return [TensorType(i64, [rank, DYNAMIC_INDEX])]


def _compress_types(
    op: type[RelayOp], operand_types: Sequence[Attribute], axis: int | None
) -> tuple[TensorType, list[int], int | None]:
    """The data type, the result's shape (``?`` along the compressed axis)
    and the normalized axis (None: the flattened data)."""
    data = tensor_type(op, operand_types[0], "data")
    cond = tensor_type(op, operand_types[1], "condition")
    if len(cond.get_shape()) != 1 or not (
        isinstance(cond.element_type, IntegerType) and cond.element_type.width.data == 1
    ):
        raise RelayTypeError(f"'{op.name}' expects a 1-d i1 condition, got {cond}")
    shape = list(data.get_shape())
    if axis is None:
        return data, [DYNAMIC_INDEX], None
    axis = normalize_axis(op.name, axis, len(shape))
    shape[axis] = DYNAMIC_INDEX
    return data, shape, axis


@irdl_op_definition
class CompressShapeOp(RelayOp):
    """The shape of ``relay.compress``'s result: the data's shape with the
    number of true conditions along ``axis`` (or ``[count]`` without an
    axis, over the flattened data).

    ```mlir
    %s = relay.compress_shape %x, %c {axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi1>) -> tensor<2xi64>
    ```
    """

    name = "relay.compress_shape"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    condition = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "condition")

    def __init__(self, data: SSAValue, condition: SSAValue, axis: int | None = None):
        super().__init__(data, condition, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        _, shape, _ = _compress_types(cls, operand_types, attrs.get("axis"))
        return [TensorType(i64, [len(shape)])]


@irdl_op_definition
class CompressOp(RelayOp):
    """The slices of ``data`` along ``axis`` whose condition is true (ONNX
    ``Compress``, NumPy's ``compress``); without an axis, the elements of
    the flattened data. A condition shorter than the axis leaves the rest
    out. ``shape`` is ``relay.compress_shape``'s result.

    ```mlir
    %y = relay.compress %x, %c, %s {axis = 1 : i64} : (tensor<3x4xf32>, tensor<4xi1>, tensor<2xi64>) -> tensor<3x?xf32>
    ```
    """

    name = "relay.compress"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    condition = operand_def(TensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "condition", "shape")

    def __init__(
        self, data: SSAValue, condition: SSAValue, shape: SSAValue, axis: int | None = None
    ):
        super().__init__(data, condition, shape, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, shape, _ = _compress_types(cls, operand_types, attrs.get("axis"))
        _shape_operand(cls, operand_types[2], len(shape))
        return [TensorType(data.element_type, shape)]


def _unique_shapes(
    op: type[RelayOp], ty: Attribute, axis: int | None
) -> tuple[TensorType, list[list[int]]]:
    """The data type and the shapes of ``relay.unique``'s four results
    (``?`` the number of distinct slices)."""
    data = tensor_type(op, ty, "data")
    shape = list(data.get_shape())
    if not shape:
        raise RelayTypeError(f"'{op.name}' expects a tensor of rank >= 1, got a scalar")
    if DYNAMIC_INDEX in shape:
        raise RelayTypeError(f"'{op.name}' needs static input extents, got {data}")
    if axis is None:
        n = 1
        for d in shape:
            n *= d
        return data, [[DYNAMIC_INDEX], [DYNAMIC_INDEX], [n], [DYNAMIC_INDEX]]
    axis = normalize_axis(op.name, axis, len(shape))
    y = [DYNAMIC_INDEX if k == axis else d for k, d in enumerate(shape)]
    return data, [y, [DYNAMIC_INDEX], [shape[axis]], [DYNAMIC_INDEX]]


@irdl_op_definition
class UniqueShapeOp(RelayOp):
    """The shapes of ``relay.unique``'s four results, one ``i64`` tensor each.

    ```mlir
    %a, %b, %c, %d = relay.unique_shape %x : (tensor<6xf32>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
    ```
    """

    name = "relay.unique_shape"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    y_shape = result_def(TensorType)
    indices_shape = result_def(TensorType)
    inverse_shape = result_def(TensorType)
    counts_shape = result_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    is_sorted = prop_def(BoolAttr, default_value=bool_attr(True))
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(self, data: SSAValue, axis: int | None = None, is_sorted: bool = True):
        super().__init__(data, axis=axis, is_sorted=is_sorted)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        _, shapes = _unique_shapes(cls, operand_types[0], attrs.get("axis"))
        return [TensorType(i64, [len(s)]) for s in shapes]


@irdl_op_definition
class UniqueOp(RelayOp):
    """The distinct slices along ``axis`` (elements of the flattened data
    without one), ONNX ``Unique``: ``y`` (sorted ascending with
    ``is_sorted``, lexicographically for slices; else in order of first
    occurrence), the ``int64`` position of each one's first occurrence, each
    input slice's index in ``y``, and how often each occurs. The last four
    operands are ``relay.unique_shape``'s results.

    ```mlir
    %y, %i, %v, %c = relay.unique %x, %a, %b, %c, %d : (tensor<6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
    ```
    """

    name = "relay.unique"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    y_shape = operand_def(TensorType)
    indices_shape = operand_def(TensorType)
    inverse_shape = operand_def(TensorType)
    counts_shape = operand_def(TensorType)
    y = result_def(TensorType)
    indices = result_def(TensorType)
    inverse_indices = result_def(TensorType)
    counts = result_def(TensorType)
    axis = opt_prop_def(IntegerAttr)
    is_sorted = prop_def(BoolAttr, default_value=bool_attr(True))
    traits = traits_def(Pure())
    assembly_format = functional_format(
        "data", "y_shape", "indices_shape", "inverse_shape", "counts_shape"
    )

    def __init__(
        self,
        data: SSAValue,
        shapes: Sequence[SSAValue],
        axis: int | None = None,
        is_sorted: bool = True,
    ):
        super().__init__(data, *shapes, axis=axis, is_sorted=is_sorted)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, shapes = _unique_shapes(cls, operand_types[0], attrs.get("axis"))
        for ty, shape in zip(operand_types[1:], shapes, strict=True):
            _shape_operand(cls, ty, len(shape))
        return [TensorType(data.element_type, shapes[0])] + [TensorType(i64, s) for s in shapes[1:]]


def _nms_operands(op: type[RelayOp], operand_types: Sequence[Attribute]) -> None:
    """boxes ``B x N x 4``, scores ``B x C x N`` (same float type, static),
    and the one-element ``max_output_boxes_per_class`` (i64),
    ``iou_threshold`` and ``score_threshold`` (the scores' type)."""
    boxes = tensor_type(op, operand_types[0], "boxes")
    scores = tensor_type(op, operand_types[1], "scores")
    b, s = boxes.get_shape(), scores.get_shape()
    if (
        len(b) != 3
        or len(s) != 3
        or b[2] != 4
        or DYNAMIC_INDEX in (*b, *s)
        or b[0] != s[0]
        or b[1] != s[2]
    ):
        raise RelayTypeError(
            f"'{op.name}' expects static boxes BxNx4 and scores BxCxN, got {boxes} and {scores}"
        )
    if boxes.element_type != scores.element_type:
        raise RelayTypeError(f"'{op.name}' boxes and scores differ in type: {boxes}, {scores}")
    for ty, what, element in (
        (operand_types[2], "max_output_boxes_per_class", i64),
        (operand_types[3], "iou_threshold", scores.element_type),
        (operand_types[4], "score_threshold", scores.element_type),
    ):
        t = tensor_type(op, ty, what)
        if t.get_shape() not in ((), (1,)) or t.element_type != element:
            raise RelayTypeError(
                f"'{op.name}' expects {what} to be one {element} (a scalar or tensor<1x{element}>), got {t}"
            )


@irdl_op_definition
class NonMaxSuppressionShapeOp(RelayOp):
    """The shape of ``relay.non_max_suppression``'s result: ``[selected, 3]``.

    ```mlir
    %s = relay.non_max_suppression_shape %b, %s, %m, %i, %t : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<2xi64>
    ```
    """

    name = "relay.non_max_suppression_shape"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    boxes = operand_def(TensorType)
    scores = operand_def(TensorType)
    max_output_boxes_per_class = operand_def(TensorType)
    iou_threshold = operand_def(TensorType)
    score_threshold = operand_def(TensorType)
    result = result_def(TensorType)
    center_point_box = prop_def(BoolAttr, default_value=bool_attr(False))
    has_score_threshold = prop_def(BoolAttr, default_value=bool_attr(True))
    traits = traits_def(Pure())
    assembly_format = functional_format(
        "boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold"
    )

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        center_point_box: bool = False,
        has_score_threshold: bool = True,
    ):
        super().__init__(
            *inputs, center_point_box=center_point_box, has_score_threshold=has_score_threshold
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        _nms_operands(cls, operand_types)
        return [TensorType(i64, [2])]


@irdl_op_definition
class NonMaxSuppressionOp(RelayOp):
    """Greedy non-maximum suppression per batch and class (ONNX
    ``NonMaxSuppression``): candidates by descending score (the lower box
    index first on ties), those above ``score_threshold`` (when
    ``has_score_threshold``), each kept unless its IoU with a kept box
    exceeds ``iou_threshold``, at most ``max_output_boxes_per_class``;
    the result is ``selected x 3`` ``int64`` ``(batch, class, box)`` rows.
    Boxes are corners ``[y1, x1, y2, x2]`` (either diagonal) or, with
    ``center_point_box``, ``[x_center, y_center, width, height]``.

    ```mlir
    %r = relay.non_max_suppression %b, %s, %m, %i, %t, %n : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>, tensor<2xi64>) -> tensor<?x3xi64>
    ```
    """

    name = "relay.non_max_suppression"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    boxes = operand_def(TensorType)
    scores = operand_def(TensorType)
    max_output_boxes_per_class = operand_def(TensorType)
    iou_threshold = operand_def(TensorType)
    score_threshold = operand_def(TensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType)
    center_point_box = prop_def(BoolAttr, default_value=bool_attr(False))
    has_score_threshold = prop_def(BoolAttr, default_value=bool_attr(True))
    traits = traits_def(Pure())
    assembly_format = functional_format(
        "boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold", "shape"
    )

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        shape: SSAValue,
        center_point_box: bool = False,
        has_score_threshold: bool = True,
    ):
        super().__init__(
            *inputs,
            shape,
            center_point_box=center_point_box,
            has_score_threshold=has_score_threshold,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        _nms_operands(cls, operand_types)
        _shape_operand(cls, operand_types[5], 2)
        return [TensorType(i64, [DYNAMIC_INDEX, 3])]


# Ops whose output shape is the value of an input (ONNX Range,
# ConstantOfShape, Expand, Tile, Reshape, TopK with run-time K): ``relay.dyn.<op>``,
# with its shape function ``relay.dyn.<op>_shape`` (ConstantOfShape's shape
# is its input itself).


def _one_element(op: type[RelayOp], ty: Attribute, what: str) -> TensorType:
    t = tensor_type(op, ty, what)
    if t.get_shape() not in ((), (1,)):
        raise RelayTypeError(f"'{op.name}' expects {what} to hold one element, got {t}")
    return t


def _int_vector(op: type[RelayOp], ty: Attribute, what: str) -> int:
    """The length of a static 1-d i64 operand."""
    t = tensor_type(op, ty, what)
    shape = t.get_shape()
    if len(shape) != 1 or shape[0] == DYNAMIC_INDEX or t.element_type != i64:
        raise RelayTypeError(f"'{op.name}' expects {what} to be a static 1-d i64 tensor, got {t}")
    return shape[0]


def _static_data(op: type[RelayOp], ty: Attribute) -> TensorType:
    data = tensor_type(op, ty, "data")
    if DYNAMIC_INDEX in data.get_shape():
        raise RelayTypeError(f"'{op.name}' needs static input extents, got {data}")
    return data


class _ShapeFunctionOp(RelayOp):
    """Base of the ``relay.dyn.*_shape`` ops: operands as the op's, one
    ``i64`` shape result; ``rank`` gives its length."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def rank(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> int:
        raise NotImplementedError

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        return [TensorType(i64, [cls.rank(operand_types, attrs)])]


@irdl_op_definition
class DynArangeShapeOp(_ShapeFunctionOp):
    """``[max(ceil((limit - start) / delta), 0)]`` (ONNX ``Range``'s length).

    ```mlir
    %n = relay.dyn.arange_shape %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<1xi64>
    ```
    """

    name = "relay.dyn.arange_shape"
    start = operand_def(TensorType)
    limit = operand_def(TensorType)
    delta = operand_def(TensorType)
    assembly_format = functional_format("start", "limit", "delta")

    def __init__(self, start: SSAValue, limit: SSAValue, delta: SSAValue):
        super().__init__(start, limit, delta)

    @classmethod
    def rank(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> int:
        types = [
            _one_element(cls, t, w) for t, w in zip(operand_types, ("start", "limit", "delta"))
        ]
        if len({t.element_type for t in types}) != 1:
            raise RelayTypeError(f"'{cls.name}' start, limit and delta differ in type")
        return 1


@irdl_op_definition
class DynArangeOp(RelayOp):
    """``start + i * delta`` for ``i`` below ``shape[0]`` (ONNX ``Range``).

    ```mlir
    %r = relay.dyn.arange %s, %d, %n : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
    ```
    """

    name = "relay.dyn.arange"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    start = operand_def(TensorType)
    delta = operand_def(TensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = functional_format("start", "delta", "shape")

    def __init__(self, start: SSAValue, delta: SSAValue, shape: SSAValue):
        super().__init__(start, delta, shape)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        start = _one_element(cls, operand_types[0], "start")
        _one_element(cls, operand_types[1], "delta")
        _shape_operand(cls, operand_types[2], 1)
        return [TensorType(start.element_type, [DYNAMIC_INDEX])]


@irdl_op_definition
class DynFullOp(RelayOp):
    """``value`` (one element) everywhere in a tensor of the run-time shape
    ``shape`` (ONNX ``ConstantOfShape``).

    ```mlir
    %r = relay.dyn.full %v, %s : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
    """

    name = "relay.dyn.full"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    value = operand_def(TensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = functional_format("value", "shape")

    def __init__(self, value: SSAValue, shape: SSAValue):
        super().__init__(value, shape)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        value = _one_element(cls, operand_types[0], "value")
        rank = _int_vector(cls, operand_types[1], "shape")
        return [TensorType(value.element_type, [DYNAMIC_INDEX] * rank)]


@irdl_op_definition
class DynBroadcastToShapeOp(_ShapeFunctionOp):
    """The broadcast of the data's shape and the values of ``shape`` (ONNX
    ``Expand``).

    ```mlir
    %s = relay.dyn.broadcast_to_shape %x, %shape : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<3xi64>
    ```
    """

    name = "relay.dyn.broadcast_to_shape"
    data = operand_def(TensorType)
    shape = operand_def(TensorType)
    assembly_format = functional_format("data", "shape")

    def __init__(self, data: SSAValue, shape: SSAValue):
        super().__init__(data, shape)

    @classmethod
    def rank(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> int:
        data = _static_data(cls, operand_types[0])
        return max(len(data.get_shape()), _int_vector(cls, operand_types[1], "shape"))


@irdl_op_definition
class DynTileShapeOp(_ShapeFunctionOp):
    """The data's extents times the values of ``repeats`` (ONNX ``Tile``).

    ```mlir
    %s = relay.dyn.tile_shape %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xi64>
    ```
    """

    name = "relay.dyn.tile_shape"
    data = operand_def(TensorType)
    repeats = operand_def(TensorType)
    assembly_format = functional_format("data", "repeats")

    def __init__(self, data: SSAValue, repeats: SSAValue):
        super().__init__(data, repeats)

    @classmethod
    def rank(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> int:
        rank = len(_static_data(cls, operand_types[0]).get_shape())
        if _int_vector(cls, operand_types[1], "repeats") != rank:
            raise RelayTypeError(f"'{cls.name}' expects one repeat per axis ({rank})")
        return rank


@irdl_op_definition
class DynReshapeShapeOp(_ShapeFunctionOp):
    """ONNX ``Reshape``'s resolved shape: a 0 copies the data's extent
    (unless ``allowzero``), a -1 takes what is left of the size.

    ```mlir
    %s = relay.dyn.reshape_shape %x, %n : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<3xi64>
    ```
    """

    name = "relay.dyn.reshape_shape"
    data = operand_def(TensorType)
    newshape = operand_def(TensorType)
    allowzero = prop_def(BoolAttr, default_value=bool_attr(False))
    assembly_format = functional_format("data", "newshape")

    def __init__(self, data: SSAValue, newshape: SSAValue, allowzero: bool = False):
        super().__init__(data, newshape, allowzero=allowzero)

    @classmethod
    def rank(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> int:
        _static_data(cls, operand_types[0])
        return _int_vector(cls, operand_types[1], "newshape")


@irdl_op_definition
class DynTopKShapeOp(RelayOp):
    """The data's shape with ``k`` (one element) at ``axis``, once for each
    of ``relay.dyn.topk``'s results (a kernel argument is never passed twice).

    ```mlir
    %s, %t = relay.dyn.topk_shape %x, %k {axis = 1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<2xi64>, tensor<2xi64>)
    ```
    """

    name = "relay.dyn.topk_shape"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    k = operand_def(TensorType)
    values_shape = result_def(TensorType)
    indices_shape = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=IntegerAttr(-1, i64))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "k")

    def __init__(self, data: SSAValue, k: SSAValue, axis: int):
        super().__init__(data, k, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        rank = len(_static_data(cls, operand_types[0]).get_shape())
        normalize_axis(cls.name, attrs["axis"], rank)
        if _one_element(cls, operand_types[1], "k").element_type != i64:
            raise RelayTypeError(f"'{cls.name}' expects an i64 k")
        return [TensorType(i64, [rank]), TensorType(i64, [rank])]


class _ReshapedOp(RelayOp):
    """Base of the ops whose result is the data in the run-time shape
    ``shape`` (every extent ``?``)."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "shape")

    def __init__(self, data: SSAValue, shape: SSAValue):
        super().__init__(data, shape)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _static_data(cls, operand_types[0])
        rank = _int_vector(cls, operand_types[1], "shape")
        cls.check_rank(len(data.get_shape()), rank)
        return [TensorType(data.element_type, [DYNAMIC_INDEX] * rank)]

    @classmethod
    def check_rank(cls, data_rank: int, rank: int) -> None:
        """Whether the result may have ``rank`` axes."""


@irdl_op_definition
class DynBroadcastToOp(_ReshapedOp):
    """The data broadcast to the run-time shape ``shape`` (ONNX ``Expand``).

    ```mlir
    %r = relay.dyn.broadcast_to %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
    ```
    """

    name = "relay.dyn.broadcast_to"

    @classmethod
    def check_rank(cls, data_rank: int, rank: int) -> None:
        if rank < data_rank:
            raise RelayTypeError(f"'{cls.name}' cannot broadcast rank {data_rank} to rank {rank}")


@irdl_op_definition
class DynTileOp(_ReshapedOp):
    """The data repeated to the run-time shape ``shape`` (ONNX ``Tile``).

    ```mlir
    %r = relay.dyn.tile %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
    """

    name = "relay.dyn.tile"

    @classmethod
    def check_rank(cls, data_rank: int, rank: int) -> None:
        if rank != data_rank:
            raise RelayTypeError(f"'{cls.name}' expects a shape of rank {data_rank}, got {rank}")


@irdl_op_definition
class DynReshapeOp(_ReshapedOp):
    """The data's elements in the run-time shape ``shape`` (ONNX ``Reshape``).

    ```mlir
    %r = relay.dyn.reshape %x, %s : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
    ```
    """

    name = "relay.dyn.reshape"


@irdl_op_definition
class DynTopKOp(RelayOp):
    """``relay.topk`` with a run-time ``k``: the results have the shapes
    ``relay.dyn.topk_shape`` gave.

    ```mlir
    %v, %i = relay.dyn.topk %x, %s, %t {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
    ```
    """

    name = "relay.dyn.topk"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    values_shape = operand_def(TensorType)
    indices_shape = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    axis = prop_def(IntegerAttr, default_value=IntegerAttr(-1, i64))
    is_ascend = prop_def(BoolAttr, default_value=bool_attr(False))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "values_shape", "indices_shape")

    def __init__(
        self, data: SSAValue, shapes: Sequence[SSAValue], axis: int, is_ascend: bool = False
    ):
        super().__init__(data, *shapes, axis=axis, is_ascend=is_ascend)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _static_data(cls, operand_types[0])
        shape = list(data.get_shape())
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        _shape_operand(cls, operand_types[1], len(shape))
        _shape_operand(cls, operand_types[2], len(shape))
        shape[axis] = DYNAMIC_INDEX
        return [TensorType(data.element_type, shape), TensorType(i64, shape)]


def _resize_operands(
    op: type[RelayOp], operand_types: Sequence[Attribute], attrs: Mapping[str, Any]
) -> TensorType:
    """Static data, ``given`` (one float scale or i64 size per axis of
    ``axes``), and the axes valid."""
    data = _static_data(op, operand_types[0])
    rank = len(data.get_shape())
    axes = list(attrs["axes"])
    if not axes or len(set(axes)) != len(axes) or any(not 0 <= a < rank for a in axes):
        raise RelayTypeError(f"'{op.name}' axes {axes} must be distinct axes of rank {rank}")
    given = tensor_type(op, operand_types[1], "scales or sizes")
    if given.get_shape() != (len(axes),):
        raise RelayTypeError(
            f"'{op.name}' expects {len(axes)} scales or sizes (one per axis), got {given}"
        )
    if attrs["policy"] not in ("stretch", "not_larger", "not_smaller"):
        raise RelayTypeError(f"'{op.name}' unknown keep-aspect-ratio policy {attrs['policy']!r}")
    return data


@irdl_op_definition
class DynResizeShapeOp(_ShapeFunctionOp):
    """The shape of a resize by run-time scales (``floor(extent * scale)``)
    or sizes (under ``policy``, ONNX's ``keep_aspect_ratio_policy``).

    ```mlir
    %s = relay.dyn.resize_shape %x, %sizes {axes = array<i64: 2, 3>} : (tensor<1x1x4x4xf32>, tensor<2xi64>) -> tensor<4xi64>
    ```
    """

    name = "relay.dyn.resize_shape"
    data = operand_def(TensorType)
    given = operand_def(TensorType)
    axes = prop_def(DenseArrayBase)
    scales_given = prop_def(BoolAttr, default_value=bool_attr(False))
    policy = prop_def(StringAttr, default_value=StringAttr("stretch"))
    assembly_format = functional_format("data", "given")

    def __init__(self, data: SSAValue, given: SSAValue, **attrs: Any):
        super().__init__(data, given, **attrs)

    @classmethod
    def rank(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> int:
        return len(_resize_operands(cls, operand_types, attrs).get_shape())


@irdl_op_definition
class DynResizeOp(RelayOp):
    """A resize of ``axes`` to the run-time shape ``shape`` (ONNX ``Resize``
    with run-time scales or sizes): the scales come from ``given`` at run
    time, the crop of ``tf_crop_and_resize`` from ``roi`` (starts then ends,
    one per axis); the other attributes as ``relay.image.resize2d``'s
    (no antialiasing).

    ```mlir
    %r = relay.dyn.resize %x, %sizes, %roi, %s {axes = array<i64: 2, 3>, method = "linear"} : (tensor<1x1x4x4xf32>, tensor<2xi64>, tensor<4xf32>, tensor<4xi64>) -> tensor<1x1x?x?xf32>
    ```
    """

    name = "relay.dyn.resize"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    given = operand_def(TensorType)
    roi = operand_def(TensorType)
    shape = operand_def(TensorType)
    result = result_def(TensorType)
    axes = prop_def(DenseArrayBase)
    scales_given = prop_def(BoolAttr, default_value=bool_attr(False))
    policy = prop_def(StringAttr, default_value=StringAttr("stretch"))
    method = prop_def(StringAttr, default_value=StringAttr("nearest_neighbor"))
    coordinate_transformation_mode = prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    rounding_method = prop_def(StringAttr, default_value=StringAttr("round_prefer_floor"))
    cubic_alpha = prop_def(FloatAttr, default_value=FloatAttr(-0.75, f64))
    cubic_exclude = prop_def(BoolAttr, default_value=bool_attr(False))
    extrapolation_value = prop_def(FloatAttr, default_value=FloatAttr(0.0, f64))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "given", "roi", "shape")

    def __init__(
        self, data: SSAValue, given: SSAValue, roi: SSAValue, shape: SSAValue, **attrs: Any
    ):
        super().__init__(data, given, roi, shape, **attrs)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = _resize_operands(cls, operand_types, attrs)
        axes = list(attrs["axes"])
        roi = tensor_type(cls, operand_types[2], "roi")
        if roi.get_shape() != (2 * len(axes),):
            raise RelayTypeError(f"'{cls.name}' expects {2 * len(axes)} roi values, got {roi}")
        shape = list(data.get_shape())
        _shape_operand(cls, operand_types[3], len(shape))
        for a in axes:
            shape[a] = DYNAMIC_INDEX
        return [TensorType(data.element_type, shape)]


VALUE_SHAPE_OPS = [
    DynArangeShapeOp,
    DynArangeOp,
    DynFullOp,
    DynBroadcastToShapeOp,
    DynBroadcastToOp,
    DynTileShapeOp,
    DynTileOp,
    DynReshapeShapeOp,
    DynReshapeOp,
    DynTopKShapeOp,
    DynTopKOp,
    DynResizeShapeOp,
    DynResizeOp,
]
"""The ops whose output shape is an input's value, and their shape functions."""


DYNAMIC_OPS = [
    NonZeroShapeOp,
    NonZeroOp,
    CompressShapeOp,
    CompressOp,
    UniqueShapeOp,
    UniqueOp,
    NonMaxSuppressionShapeOp,
    NonMaxSuppressionOp,
    *VALUE_SHAPE_OPS,
]
"""The data-dependent ops and their shape functions."""
