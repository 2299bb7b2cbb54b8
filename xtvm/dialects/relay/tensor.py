"""Constants and elementwise maths: ``relay.const``, the broadcasting binary
ops, the unary elementwise ops, ``relay.clip``, ``relay.cast`` and
``relay.shape_of``.

A new binary op is a subclass of :class:`BinaryOp` with a name and a
docstring; a new unary op a subclass of :class:`UnaryOp` (or of
:class:`FloatUnaryOp` when it is defined on floating-point tensors only). The
type rule, traits, pattern kind and assembly format come from the base;
``ELEMENTS`` says which element types the op accepts (see
:data:`xtvm.dialects.relay.base.ELEMENT_KINDS`). More unary maths are in ``math``; comparisons,
logical and bitwise ops and ``relay.where`` in ``logical``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    AnyAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParamAttrConstraint,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import ConstantLike, Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    RelayTypeError,
    SameTypeOp,
    bool_attr,
    broadcast_shapes,
    check_elements,
    dtype_element_type,
    functional_format,
    same_element_type,
    tensor_type,
)
from xtvm.dtypes import element_type


@irdl_op_definition
class ConstOp(RelayOp):
    """A constant tensor (a weight, or a folded value).

    ```mlir
    %w = relay.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    ```
    Large constants print as ``dense_resource<key>`` blobs
    (:mod:`xtvm.ir.printing`), read back as dense attributes; a
    ``DenseResourceAttr`` stays only for a constant elided from the text
    (``dense_resource<__elided__>``), which has no values.
    """

    name = "relay.const"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    T: ClassVar = VarConstraint("T", base(TensorType))
    value = prop_def(
        ParamAttrConstraint(DenseIntOrFPElementsAttr, (T, AnyAttr()))
        | ParamAttrConstraint(DenseResourceAttr, (AnyAttr(), T))
    )
    result = result_def(T)

    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr | DenseResourceAttr):
        super().__init__(value=value)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        return [attrs["value"].type]


class BinaryOp(RelayOp):
    """Base of the broadcasting binary ops: NumPy broadcasting, equal dtypes
    of the ``ELEMENTS`` kind (numeric unless the op says otherwise).

    ```mlir
    %z = relay.add %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.BROADCAST
    ELEMENTS: ClassVar[str] = "numeric"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def()

    traits = traits_def(Pure())
    assembly_format = functional_format("lhs", "rhs")

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        lhs = tensor_type(cls, operand_types[0], "lhs")
        rhs = tensor_type(cls, operand_types[1], "rhs")
        same_element_type(cls.name, lhs, rhs)
        check_elements(cls.name, lhs, cls.ELEMENTS)
        shape = broadcast_shapes(cls.name, lhs.get_shape(), rhs.get_shape())
        return [TensorType(cls.result_element_type(lhs.element_type), shape)]

    @classmethod
    def result_element_type(cls, operand: Attribute) -> Attribute:
        """The result's element type from the operands' (theirs by default)."""
        return operand


@irdl_op_definition
class AddOp(BinaryOp):
    """Elementwise ``lhs + rhs`` with broadcasting."""

    name = "relay.add"


@irdl_op_definition
class SubtractOp(BinaryOp):
    """Elementwise ``lhs - rhs`` with broadcasting."""

    name = "relay.subtract"


@irdl_op_definition
class MultiplyOp(BinaryOp):
    """Elementwise ``lhs * rhs`` with broadcasting."""

    name = "relay.multiply"


@irdl_op_definition
class DivideOp(BinaryOp):
    """Elementwise ``lhs / rhs`` with broadcasting (true division for floats,
    truncating division for integers, as TVM)."""

    name = "relay.divide"


@irdl_op_definition
class FloorModOp(BinaryOp):
    """Elementwise remainder of the division rounded toward ``-inf``: the
    result has the sign of ``rhs`` (NumPy's ``mod``, ONNX ``Mod`` with
    ``fmod = 0``). ``x mod 0`` is 0 for integers, NaN for floats.

    ```mlir
    %z = relay.floor_mod %x, %y : (tensor<6xi32>, tensor<1xi32>) -> tensor<6xi32>
    ```
    """

    name = "relay.floor_mod"


@irdl_op_definition
class TruncModOp(BinaryOp):
    """Elementwise remainder of the division rounded toward zero: the result
    has the sign of ``lhs`` (C's ``%`` and ``fmod``, ONNX ``Mod`` with
    ``fmod = 1``). ``x mod 0`` is 0 for integers, NaN for floats.

    ```mlir
    %z = relay.trunc_mod %x, %y : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    ```
    """

    name = "relay.trunc_mod"


class UnaryOp(SameTypeOp):
    """Base of the elementwise unary ops: the result has the operand's type,
    whose elements are of the ``ELEMENTS`` kind (numeric unless the op says
    otherwise).

    ```mlir
    %y = relay.nn.relu %x : tensor<4x3xf32>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    ELEMENTS: ClassVar[str] = "numeric"

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        return [check_elements(cls.name, data, cls.ELEMENTS)]


@irdl_op_definition
class MaximumOp(BinaryOp):
    """Elementwise ``max(lhs, rhs)`` with broadcasting (NaN propagates, as NumPy)."""

    name = "relay.maximum"


@irdl_op_definition
class MinimumOp(BinaryOp):
    """Elementwise ``min(lhs, rhs)`` with broadcasting (NaN propagates, as NumPy)."""

    name = "relay.minimum"


@irdl_op_definition
class PowerOp(BinaryOp):
    """Elementwise ``lhs ** rhs`` with broadcasting."""

    name = "relay.power"


class FloatUnaryOp(UnaryOp):
    """Base of the unary ops defined on floating-point tensors only.

    ```mlir
    %y = relay.exp %x : tensor<4x3xf32>
    ```
    """

    ELEMENTS: ClassVar[str] = "float"


@irdl_op_definition
class SigmoidOp(FloatUnaryOp):
    """``1 / (1 + exp(-x))`` elementwise."""

    name = "relay.sigmoid"


@irdl_op_definition
class TanhOp(FloatUnaryOp):
    """Hyperbolic tangent elementwise."""

    name = "relay.tanh"


@irdl_op_definition
class ExpOp(FloatUnaryOp):
    """``e ** x`` elementwise."""

    name = "relay.exp"


@irdl_op_definition
class SqrtOp(FloatUnaryOp):
    """Square root elementwise (NaN below zero)."""

    name = "relay.sqrt"


@irdl_op_definition
class LogOp(FloatUnaryOp):
    """Natural logarithm elementwise (``-inf`` at zero, NaN below)."""

    name = "relay.log"


@irdl_op_definition
class NegativeOp(UnaryOp):
    """``-x`` elementwise (wraps around for the smallest signed integer)."""

    name = "relay.negative"


@irdl_op_definition
class AbsOp(UnaryOp):
    """``|x|`` elementwise."""

    name = "relay.abs"


@irdl_op_definition
class ClipOp(UnaryOp):
    """Clamps every element to ``[a_min, a_max]``: ``min(max(x, a_min), a_max)``
    (so ``a_max`` wins when ``a_min > a_max``, as in ONNX). The bounds are
    ``f64`` attributes converted to the element type; ``±inf`` leaves a side
    unbounded.

    ```mlir
    %y = relay.clip %x {a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64} : tensor<1x8xf32>
    ```
    """

    name = "relay.clip"
    a_min = prop_def(FloatAttr)
    a_max = prop_def(FloatAttr)

    def __init__(self, input: SSAValue, a_min: float, a_max: float):
        super().__init__(input, a_min=a_min, a_max=a_max)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        if attrs["a_min"] != attrs["a_min"] or attrs["a_max"] != attrs["a_max"]:
            raise RelayTypeError(f"'{cls.name}' bounds must not be NaN")
        return super().infer(operand_types, attrs)


@irdl_op_definition
class CastOp(RelayOp):
    """Converts the elements to ``dtype`` (a dtype name such as ``"float32"``
    or ``"int8"``): float → int truncates toward zero, as C and TVM.

    To and from the storage-only floats (``bfloat16``, ``float8_*``;
    docs/element-types.md) the value goes through float32 and rounds to
    nearest even; an overflow gives infinity or NaN as ``ml_dtypes`` does,
    unless ``saturate`` clamps it to the largest finite value (ONNX ``Cast``
    ``saturate=1``). ``round_mode`` (``up``, ``down``, ``nearest``) applies to
    ``float8_e8m0fnu`` only, as in ONNX.

    ```mlir
    %y = relay.cast %x {dtype = "int32"} : (tensor<4xf32>) -> tensor<4xi32>
    %z = relay.cast %x {dtype = "float8_e4m3fn", saturate = true} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
    ```
    """

    name = "relay.cast"
    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    dtype = prop_def(StringAttr)
    saturate = prop_def(BoolAttr, default_value=bool_attr(False))
    round_mode = prop_def(StringAttr, default_value=StringAttr("up"))
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(
        self, input: SSAValue, dtype: str, saturate: bool | None = None, round_mode: str | None = None
    ):
        super().__init__(input, dtype=dtype, saturate=saturate, round_mode=round_mode)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        if attrs.get("round_mode", "up") not in ("up", "down", "nearest"):
            raise RelayTypeError(
                f"'{cls.name}' round_mode must be up, down or nearest, got {attrs['round_mode']!r}"
            )
        data = tensor_type(cls, operand_types[0], "its input")
        return [TensorType(dtype_element_type(cls.name, attrs["dtype"]), data.get_shape())]


@irdl_op_definition
class ShapeOfOp(RelayOp):
    """The shape of a tensor as a 1-d integer tensor of its rank; ``dtype`` is
    ``"int64"`` (default, as ONNX ``Shape``) or ``"int32"``.

    ```mlir
    %s = relay.shape_of %x : (tensor<1x3x224x224xf32>) -> tensor<4xi64>
    ```
    """

    name = "relay.shape_of"
    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    input = operand_def(TensorType)
    result = result_def(TensorType)
    dtype = prop_def(StringAttr, default_value=StringAttr("int64"))
    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    def __init__(self, input: SSAValue, dtype: str | None = None):
        super().__init__(input, dtype=dtype)

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = tensor_type(cls, operand_types[0], "its input")
        dtype = attrs["dtype"]
        if dtype not in ("int32", "int64"):
            raise RelayTypeError(f"'{cls.name}' dtype must be int32 or int64, got '{dtype}'")
        return [TensorType(element_type(dtype), [len(data.get_shape())])]


BINARY_OPS = [
    AddOp,
    SubtractOp,
    MultiplyOp,
    DivideOp,
    FloorModOp,
    TruncModOp,
    MaximumOp,
    MinimumOp,
    PowerOp,
]
