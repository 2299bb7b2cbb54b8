"""Ops whose values come from positions: ``relay.arange``, ``relay.one_hot``
and ``relay.trilu`` (which keeps or zeroes elements by position)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import BoolAttr, FloatAttr, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    bool_attr,
    dtype_element_type,
    functional_format,
    i64_attr,
    shape_str,
    tensor_type,
)
from xtvm.dialects.relay.indexing import index_tensor


def arange_length(start: float, stop: float, step: float) -> int:
    """``max(ceil((stop - start) / step), 0)``, exact for integral bounds."""
    if all(float(v).is_integer() for v in (start, stop, step)):
        a, b, s = int(start), int(stop), int(step)
        return max(-((a - b) // s), 0)
    return max(math.ceil((stop - start) / step), 0)


@irdl_op_definition
class ArangeOp(RelayOp):
    """``[start, start + step, ...]`` up to ``stop`` (excluded), of
    ``dtype`` (TVM's ``arange`` with constant bounds, ONNX ``Range``):
    ``max(ceil((stop - start) / step), 0)`` elements, element ``i`` being
    ``start + i * step`` computed in ``dtype``. The bounds are ``f64``
    attributes (exact for integers up to 2**53).

    ```mlir
    %r = relay.arange {start = 1.0 : f64, stop = 7.0 : f64, step = 2.0 : f64, dtype = "int64"} : tensor<3xi64>
    ```
    """

    name = "relay.arange"
    PATTERN: ClassVar[OpPattern] = OpPattern.INJECTIVE
    result = result_def(TensorType)
    start = prop_def(FloatAttr)
    stop = prop_def(FloatAttr)
    step = prop_def(FloatAttr)
    dtype = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, start: float, stop: float, step: float, dtype: str):
        super().__init__(start=start, stop=stop, step=step, dtype=dtype)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        start, stop, step = attrs["start"], attrs["stop"], attrs["step"]
        if step == 0 or not all(math.isfinite(v) for v in (start, stop, step)):
            raise RelayTypeError(
                f"'{cls.name}' needs finite bounds and a non-zero step, got "
                f"start {start}, stop {stop}, step {step}"
            )
        element = dtype_element_type(cls.name, attrs["dtype"])
        return [TensorType(element, [arange_length(start, stop, step)])]


@irdl_op_definition
class OneHotOp(RelayOp):
    """One-hot encoding (TVM's ``one_hot``, ONNX ``OneHot``): a new axis of
    ``depth`` entries at ``axis`` (default -1, the last; ``[-rank - 1,
    rank]``) holds ``on_value`` where its position equals the index and
    ``off_value`` elsewhere. Negative indices count from the end (``-1`` is
    ``depth - 1``); indices outside ``[-depth, depth - 1]`` give
    ``off_value`` everywhere. ``on_value`` and ``off_value`` are scalars of
    the result's element type.

    ```mlir
    %y = relay.one_hot %i, %on, %off {depth = 5 : i64} : (tensor<3xi64>, tensor<f32>, tensor<f32>) -> tensor<3x5xf32>
    ```
    """

    name = "relay.one_hot"
    PATTERN: ClassVar[OpPattern] = OpPattern.OUT_ELEMWISE_FUSABLE
    indices = operand_def(TensorType)
    on_value = operand_def(TensorType)
    off_value = operand_def(TensorType)
    result = result_def(TensorType)
    depth = prop_def(IntegerAttr)
    axis = prop_def(IntegerAttr, default_value=i64_attr(-1))
    traits = traits_def(Pure())
    assembly_format = functional_format("indices", "on_value", "off_value")

    def __init__(
        self,
        indices: SSAValue,
        on_value: SSAValue,
        off_value: SSAValue,
        depth: int,
        axis: int | None = None,
    ):
        super().__init__(indices, on_value, off_value, depth=depth, axis=axis)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        indices = index_tensor(cls.name, operand_types[0])
        on = tensor_type(cls, operand_types[1], "on_value")
        off = tensor_type(cls, operand_types[2], "off_value")
        if on.get_shape() or off.get_shape() or on.element_type != off.element_type:
            raise RelayTypeError(
                f"'{cls.name}' on_value and off_value must be scalars of one element "
                f"type, got {on} and {off}"
            )
        depth, axis = attrs["depth"], attrs["axis"]
        if depth < 0:
            raise RelayTypeError(f"'{cls.name}' depth must be >= 0, got {depth}")
        shape = list(indices.get_shape())
        rank = len(shape)
        if not -rank - 1 <= axis <= rank:
            raise RelayTypeError(
                f"'{cls.name}' axis {axis} is out of range [{-rank - 1}, {rank}] for "
                f"indices of rank {rank}"
            )
        axis %= rank + 1
        return [TensorType(on.element_type, [*shape[:axis], depth, *shape[axis:]])]


@irdl_op_definition
class TriluOp(RelayOp):
    """Keeps the upper (``upper = true``, default) or lower triangle of the
    last two axes and zeroes the rest (TVM's ``trilu``, ONNX ``Trilu``):
    element ``[..., i, j]`` stays when ``j - i >= k`` (upper) or ``j - i <=
    k`` (lower). ``k`` (default 0) shifts the diagonal up.

    ```mlir
    %y = relay.trilu %x {upper = false, k = -1 : i64} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
    ```
    """

    name = "relay.trilu"
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    data = operand_def(TensorType)
    result = result_def(TensorType)
    upper = prop_def(BoolAttr, default_value=bool_attr(True))
    k = prop_def(IntegerAttr, default_value=i64_attr(0))
    traits = traits_def(Pure())
    assembly_format = functional_format("data")

    def __init__(self, data: SSAValue, upper: bool | None = None, k: int | None = None):
        super().__init__(data, upper=upper, k=k)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "data")
        if len(data.get_shape()) < 2:
            raise RelayTypeError(
                f"'{cls.name}' expects data of rank >= 2, got {shape_str(data.get_shape())}"
            )
        return [data]


CREATION_OPS: list[type[RelayOp]] = [ArangeOp, OneHotOp, TriluOp]
