"""``relay.reinterpret`` (TVM's ``reinterpret``, ONNX ``BitCast``): the
bits of each element read as another type of the same width."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    dtype_element_type,
    functional_format,
    tensor_type,
)
from xtvm.dtypes import dtype_name


def storage_bits(dtype: str) -> int:
    """The bits an element of ``dtype`` occupies (a bool takes a byte)."""
    if dtype == "bool":
        return 8
    return int(dtype[len(dtype.rstrip("0123456789")) :])


@irdl_op_definition
class ReinterpretOp(RelayOp):
    """The bits of each element as ``dtype``, which has the input's width:
    float32 ``1.0`` → int32 ``1065353216``. ``bool`` counts as 8 bits
    (stored as the byte 0 or 1).

    ```mlir
    %y = relay.reinterpret %x {dtype = "int32"} : (tensor<4xf32>) -> tensor<4xi32>
    ```
    """

    name = "relay.reinterpret"
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    dtype = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(self, input: SSAValue, dtype: str):
        super().__init__(input, dtype=dtype)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        element = dtype_element_type(cls.name, attrs["dtype"])
        src, dst = dtype_name(data.get_element_type()), attrs["dtype"]
        if storage_bits(src) != storage_bits(dst):
            raise RelayTypeError(
                f"'{cls.name}' cannot read {src} ({storage_bits(src)} bits) as "
                f"{dst} ({storage_bits(dst)} bits): the widths must be equal"
            )
        return [TensorType(element, data.get_shape())]
