"""``relay.det`` (ONNX ``Det``): the determinant of each square matrix of
the input's last two axes. TVM's relay has no linear-algebra ops; this one
is new."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    functional_format,
    tensor_type,
)
from xtvm.dtypes import dtype_name


@irdl_op_definition
class DetOp(RelayOp):
    """The determinants of ``[..., n, n]`` floating-point matrices: a
    tensor of shape ``[...]``.

    ```mlir
    %d = relay.det %x : (tensor<3x2x2xf32>) -> tensor<3xf32>
    ```
    """

    name = "relay.det"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(self, input: SSAValue):
        super().__init__(input)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        shape = tuple(data.get_shape())
        dtype = dtype_name(data.get_element_type())
        if not dtype.startswith("float"):
            raise RelayTypeError(f"'{cls.name}' needs floating-point matrices, got {dtype}")
        square = len(shape) >= 2 and (shape[-1] == shape[-2] or DYNAMIC_INDEX in shape[-2:])
        if not square:  # a ? side may be either
            raise RelayTypeError(
                f"'{cls.name}' needs square matrices in the last two axes, got shape {list(shape)}"
            )
        return [TensorType(data.get_element_type(), shape[:-2])]
