"""Reductions: ``relay.sum``, ``relay.mean``, ``relay.max``, ``relay.min``,
``relay.prod``, and the index reductions ``relay.argmax``, ``relay.argmin``.

They share :class:`ReduceOp`, TVM's reduction attributes and type rule:

* ``axis``: the axes to reduce (negative counts from the end); absent means
  every axis, an empty list means none;
* ``exclude``: reduce every axis *not* in ``axis`` instead;
* ``keepdims``: keep reduced axes as size 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, TensorType, i64
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
    shape_str,
    tensor_type,
)


class ReduceOp(RelayOp):
    """Base of the reductions.

    ```mlir
    %s = relay.sum %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
    %m = relay.max %x : (tensor<2x3x4xf32>) -> tensor<f32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.COMM_REDUCE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = opt_prop_def(DenseArrayBase)
    keepdims = prop_def(BoolAttr, default_value=bool_attr(False))
    exclude = prop_def(BoolAttr, default_value=bool_attr(False))
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(
        self,
        input: SSAValue,
        axis: Sequence[int] | None = None,
        keepdims: bool | None = None,
        exclude: bool | None = None,
        **flags: bool | None,
    ):
        """The reduction; the flags of a subclass (``select_last_index``)
        are passed by name."""
        super().__init__(input, keepdims=keepdims, exclude=exclude, **flags, axis=axis)

    @classmethod
    def reduced_axes(cls, rank: int, attrs: Mapping[str, Any]) -> list[int]:
        """The sorted, non-negative axes the op reduces over."""
        axis = attrs.get("axis")
        if axis is None:
            chosen = list(range(rank))
        else:
            chosen = [normalize_axis(cls.name, a, rank) for a in axis]
            if len(set(chosen)) != len(chosen):
                raise RelayTypeError(f"'{cls.name}' axis {list(axis)} repeats an axis")
        if attrs["exclude"]:
            chosen = [a for a in range(rank) if a not in chosen]
        return sorted(chosen)

    @classmethod
    def reduced_shape(cls, shape: Sequence[int], attrs: Mapping[str, Any]) -> list[int]:
        """The result shape: reduced axes dropped, or kept as size 1."""
        axes = cls.reduced_axes(len(shape), attrs)
        if attrs["keepdims"]:
            return [1 if i in axes else d for i, d in enumerate(shape)]
        return [d for i, d in enumerate(shape) if i not in axes]

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        return [TensorType(data.element_type, cls.reduced_shape(data.get_shape(), attrs))]


@irdl_op_definition
class SumOp(ReduceOp):
    """Sum over the reduced axes."""

    name = "relay.sum"


@irdl_op_definition
class MeanOp(ReduceOp):
    """Arithmetic mean over the reduced axes."""

    name = "relay.mean"


@irdl_op_definition
class ProdOp(ReduceOp):
    """Product over the reduced axes (1 over an empty set)."""

    name = "relay.prod"


@irdl_op_definition
class MaxOp(ReduceOp):
    """Maximum over the reduced axes (NaN propagates; ``-inf``, or the
    smallest integer, over an empty set)."""

    name = "relay.max"


@irdl_op_definition
class MinOp(ReduceOp):
    """Minimum over the reduced axes (NaN propagates; ``+inf``, or the
    largest integer, over an empty set)."""

    name = "relay.min"


class ArgReduceOp(ReduceOp):
    """Base of the index reductions: the ``int64`` position of the extreme
    element over the reduced axes (TVM's ``argmax``/``argmin``, whose index
    type is ``int32``; ``int64`` here, as ONNX). Over several axes the index
    counts in the row-major order of the reduced axes. Ties give the first
    position, or the last with ``select_last_index``.

    ```mlir
    %i = relay.argmax %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
    %j = relay.argmin %x {axis = array<i64: -1>, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
    ```
    """

    select_last_index = prop_def(BoolAttr, default_value=bool_attr(False))

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = data.get_shape()
        axes = cls.reduced_axes(len(shape), attrs)
        if any(shape[a] == 0 for a in axes):
            raise RelayTypeError(f"'{cls.name}' reduces an axis of size 0 (shape {shape_str(shape)})")
        return [TensorType(i64, cls.reduced_shape(shape, attrs))]


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    """Position of the maximum over the reduced axes."""

    name = "relay.argmax"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    """Position of the minimum over the reduced axes."""

    name = "relay.argmin"
