"""Scatters: ``relay.scatter_elements`` and ``relay.scatter_nd``.

Both return ``data`` with entries replaced (or combined, by ``reduction``)
with ``updates`` at run-time ``indices``. Negative indices count from the
end and out-of-range ones wrap around (modulo the axis size), so a kernel
never writes outside its output. When several updates hit one entry,
``"update"`` keeps the last one in row-major order of ``indices`` (what
sequential ONNX semantics give); the other reductions combine all of them
with the entry of ``data``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    functional_format,
    i64_attr,
    normalize_axis,
    same_element_type,
    shape_str,
    tensor_type,
)
from xtvm.dialects.relay.indexing import index_tensor

REDUCTIONS = ("update", "add", "mul", "min", "max")
"""How an update combines with the entry it hits (TVM's names; ONNX's
``"none"`` is ``"update"``)."""


def _reduction(op_name: str, value: str) -> str:
    if value not in REDUCTIONS:
        raise RelayTypeError(
            f"'{op_name}' reduction must be one of {', '.join(REDUCTIONS)}, got '{value}'"
        )
    return value


def _compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(x == y or DYNAMIC_INDEX in (x, y) for x, y in zip(a, b))


class ScatterOp(RelayOp):
    """Base of the scatters: operands ``data``, ``indices`` and ``updates``,
    the result of ``data``'s type, and ``reduction`` (see :data:`REDUCTIONS`).

    ```mlir
    %y = relay.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<1x2xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    result = result_def(TensorType)
    reduction = prop_def(StringAttr, default_value=StringAttr("update"))
    traits = traits_def(Pure())
    assembly_format = functional_format("data", "indices", "updates")

    @classmethod
    def checked(
        cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]
    ) -> tuple[TensorType, TensorType, TensorType]:
        """``(data, indices, updates)`` after the checks both scatters share."""
        data = tensor_type(cls, operand_types[0], "data")
        indices = index_tensor(cls.name, operand_types[1])
        updates = tensor_type(cls, operand_types[2], "updates")
        same_element_type(cls.name, data, updates)
        _reduction(cls.name, attrs["reduction"])
        return data, indices, updates


@irdl_op_definition
class ScatterElementsOp(ScatterOp):
    """``data`` with ``updates[q]`` written at ``q with q[axis] =
    indices[q]`` for every position ``q`` of ``indices`` (TVM's
    ``scatter_elements``, ONNX ``ScatterElements`` and ``Scatter``).
    ``indices`` and ``updates`` have one shape, of the rank of ``data`` and
    no larger along any other axis than ``data``.

    ```mlir
    %y = relay.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
    ```
    """

    name = "relay.scatter_elements"
    axis = prop_def(IntegerAttr, default_value=i64_attr(0))

    def __init__(
        self,
        data: SSAValue,
        indices: SSAValue,
        updates: SSAValue,
        axis: int | None = None,
        reduction: str | None = None,
    ):
        super().__init__(data, indices, updates, axis=axis, reduction=reduction)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, indices, updates = cls.checked(operand_types, attrs)
        shape, ishape = data.get_shape(), indices.get_shape()
        if not _compatible(ishape, updates.get_shape()):
            raise RelayTypeError(
                f"'{cls.name}' updates must have the shape of indices {shape_str(ishape)}, "
                f"got {shape_str(updates.get_shape())}"
            )
        if len(ishape) != len(shape):
            raise RelayTypeError(
                f"'{cls.name}' indices must have the rank of data ({len(shape)}), "
                f"got shape {shape_str(ishape)}"
            )
        axis = normalize_axis(cls.name, attrs["axis"], len(shape))
        for d, (n, m) in enumerate(zip(shape, ishape)):
            if DYNAMIC_INDEX in (n, m):
                continue
            if (d != axis and m > n) or (d == axis and n == 0 and m > 0):
                raise RelayTypeError(
                    f"'{cls.name}' indices shape {shape_str(ishape)} does not fit data "
                    f"shape {shape_str(shape)} at axis {d}"
                )
        return [data]


@irdl_op_definition
class ScatterNdOp(ScatterOp):
    """``data`` with slices replaced at index tuples (TVM's ``scatter_nd``):
    ``indices`` has shape ``(M, Y_0, ..., Y_{K-1})``, its first axis holding
    tuples of ``M`` indices into the leading axes of ``data``; ``updates``
    has shape ``(Y_0, ..., Y_{K-1}, X_M, ..., X_{N-1})``: ``out[indices[:,
    y], x] = updates[y, x]``. (ONNX ``ScatterND`` puts the tuple on the last
    axis: its converter transposes the indices.)

    ```mlir
    %y = relay.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<4x3xf32>, tensor<1x2xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
    """

    name = "relay.scatter_nd"

    def __init__(
        self,
        data: SSAValue,
        indices: SSAValue,
        updates: SSAValue,
        reduction: str | None = None,
    ):
        super().__init__(data, indices, updates, reduction=reduction)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data, indices, updates = cls.checked(operand_types, attrs)
        shape, ishape = data.get_shape(), indices.get_shape()
        if not ishape or ishape[0] == DYNAMIC_INDEX or not 1 <= ishape[0] <= len(shape):
            raise RelayTypeError(
                f"'{cls.name}' indices of shape {shape_str(ishape)} must hold tuples of "
                f"1 to {len(shape)} indices along their first axis"
            )
        expected = [*ishape[1:], *shape[ishape[0] :]]
        if not _compatible(expected, updates.get_shape()):
            raise RelayTypeError(
                f"'{cls.name}' updates must have shape {shape_str(expected)}, "
                f"got {shape_str(updates.get_shape())}"
            )
        if 0 in shape[: ishape[0]] and 0 not in ishape[1:]:
            raise RelayTypeError(f"'{cls.name}' cannot scatter into an empty axis of data")
        return [data]


SCATTER_OPS: list[type[RelayOp]] = [ScatterElementsOp, ScatterNdOp]
