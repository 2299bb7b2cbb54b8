"""What every relay op shares: fusion pattern kinds, the type-rule protocol and
the base classes that carry them.

A relay op is an xDSL op on tensor values. Besides its fields it declares

* ``PATTERN``: its fusion pattern kind (TVM's ``OpPatternKind``), read by
  ``relay-fuse-ops``;
* ``infer(operand_types, attrs)``: its type rule, a classmethod from operand
  types and Python attribute values to result types. It raises
  :class:`RelayTypeError` with a message naming the op when the operands or
  attributes are invalid.

The verifier runs the type rule and checks the declared result types against
it: a declared type may be less precise than the inferred one (``?`` where the
rule knows the size, or ``tensor<*xf32>``), which ``relay-infer-type`` then
refines, but never different.

The op's NumPy semantics live in ``xtvm/reference/relay/``, keyed by op name,
so this module (and ``xtvm-opt``) never imports NumPy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException


class OpPattern(IntEnum):
    """TVM's fusion pattern kinds, from most to least fusable."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


class RelayTypeError(VerifyException):
    """An op's operands or attributes break its type rule."""


TensorLike = TensorType | UnrankedTensorType


def attr_to_py(attr: Attribute) -> Any:
    """The Python value of an attribute as type rules and references see it."""
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(value)
        return value
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return tuple(attr_to_py(a) for a in attr.data)
    return attr


def shape_str(shape: Sequence[int]) -> str:
    return "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape) or "scalar"


def is_refinement(declared: Attribute, inferred: Attribute) -> bool:
    """Whether ``declared`` is ``inferred`` or a less precise form of it."""
    if declared == inferred:
        return True
    if isinstance(declared, TupleType) and isinstance(inferred, TupleType):
        return len(declared.types) == len(inferred.types) and all(
            is_refinement(d, i) for d, i in zip(declared.types, inferred.types)
        )
    if not isinstance(inferred, TensorType):
        return False
    if isinstance(declared, UnrankedTensorType):
        return declared.element_type == inferred.element_type
    if not isinstance(declared, TensorType):
        return False
    if declared.element_type != inferred.element_type:
        return False
    d_shape, i_shape = declared.get_shape(), inferred.get_shape()
    return len(d_shape) == len(i_shape) and all(
        d == i or d == DYNAMIC_INDEX for d, i in zip(d_shape, i_shape)
    )


class RelayOp(IRDLOperation):
    """Base of every relay op: a pattern kind, a type rule and its verifier."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> list[Attribute]:
        """Result types from operand types and attribute values."""
        raise NotImplementedError(f"{cls.name} has no type rule")

    @property
    def attrs(self) -> dict[str, Any]:
        """The op's properties as Python values (for type rules and references)."""
        return {name: attr_to_py(value) for name, value in self.properties.items()}

    @classmethod
    def with_defaults(cls, attrs: Mapping[str, Any]) -> dict[str, Any]:
        """``attrs`` completed with the default of every property left out, so
        a type rule can be called with only the attributes that differ."""
        defaults = {
            name: attr_to_py(prop.default_value)
            for name, prop in cls.get_irdl_definition().properties.items()
            if prop.default_value is not None
        }
        return defaults | dict(attrs)

    def inferred_types(self) -> list[Attribute]:
        return self.infer([o.type for o in self.operands], self.attrs)

    def error(self, message: str) -> RelayTypeError:
        return RelayTypeError(f"'{self.name}' {message}")

    def verify_(self) -> None:
        for operand in self.operands:
            if isinstance(operand.type, UnrankedTensorType):
                raise self.error(
                    "operand types must be ranked; run relay-infer-type on the producer"
                )
        inferred = self.inferred_types()
        declared = [r.type for r in self.results]
        if len(inferred) != len(declared) or not all(
            is_refinement(d, i) for d, i in zip(declared, inferred)
        ):
            shown = ", ".join(str(t) for t in inferred)
            raise self.error(
                f"result type {', '.join(str(t) for t in declared)} does not match "
                f"the inferred type {shown}"
            )


def tensor_type(op: type[RelayOp] | str, value: Attribute, what: str) -> TensorType:
    """Check that ``value`` is a ranked tensor type, naming op and operand if not."""
    name = op if isinstance(op, str) else op.name
    if not isinstance(value, TensorType):
        raise RelayTypeError(f"'{name}' expects {what} to be a ranked tensor, got {value}")
    return value


def broadcast_shapes(op_name: str, lhs: Sequence[int], rhs: Sequence[int]) -> list[int]:
    """NumPy broadcasting of two shapes (``?`` broadcasts like an unknown size)."""
    rank = max(len(lhs), len(rhs))
    a = [1] * (rank - len(lhs)) + list(lhs)
    b = [1] * (rank - len(rhs)) + list(rhs)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif x == DYNAMIC_INDEX or y == DYNAMIC_INDEX:
            out.append(y if x == DYNAMIC_INDEX else x)
        else:
            raise RelayTypeError(
                f"'{op_name}' cannot broadcast shapes {shape_str(lhs)} and {shape_str(rhs)}"
            )
    return out


def normalize_axis(op_name: str, axis: int, rank: int, what: str = "axis") -> int:
    """A possibly negative axis as an index in [0, rank), or a type error."""
    if not -rank <= axis < rank:
        raise RelayTypeError(f"'{op_name}' {what} {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def int_array(values: Sequence[int]) -> DenseArrayBase:
    """An ``array<i64: ...>`` property."""
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def i64_attr(value: int) -> IntegerAttr:
    """An ``N : i64`` property."""
    return IntegerAttr(int(value), i64)


def f64_attr(value: float) -> FloatAttr:
    """An ``X : f64`` property."""
    return FloatAttr(float(value), f64)


def bool_attr(value: bool) -> IntegerAttr:
    """A ``true``/``false`` property."""
    return BoolAttr.from_bool(bool(value))


def int_tuple(
    op_name: str, what: str, values: Sequence[int], count: int, minimum: int
) -> tuple[int, ...]:
    """``values`` as a tuple of ``count`` integers ``>= minimum``, or a type error."""
    if len(values) != count or any(v < minimum for v in values):
        raise RelayTypeError(
            f"'{op_name}' {what} must be {count} integers >= {minimum}, got {list(values)}"
        )
    return tuple(values)


def is_float(element_type: Attribute) -> bool:
    """Whether an element type is a floating-point type."""
    return isinstance(element_type, AnyFloat)


def same_element_type(op_name: str, *types: TensorType) -> Attribute:
    """The element type all ``types`` share, or a type error."""
    first = types[0].element_type
    for other in types[1:]:
        if other.element_type != first:
            raise RelayTypeError(
                f"'{op_name}' operands must have one element type, "
                f"got {first} and {other.element_type}"
            )
    return first


def window_output_size(
    op_name: str,
    what: str,
    size: int,
    pad_before: int,
    pad_after: int,
    window: int,
    stride: int,
    dilation: int,
    ceil_mode: bool = False,
) -> int:
    """Number of positions of a sliding window (convolution or pooling) along
    one spatial axis, ONNX/onnxruntime rules.

    The dilated window spans ``(window - 1) * dilation + 1`` elements. With
    ``ceil_mode`` a last partial window is kept, unless it would start in the
    trailing padding. ``?`` in gives ``?`` out.
    """
    if size == DYNAMIC_INDEX:
        return DYNAMIC_INDEX
    span = (window - 1) * dilation + 1
    padded = size + pad_before + pad_after
    if span > padded:
        raise RelayTypeError(
            f"'{op_name}' window {what} {span} (with dilation) is larger than the "
            f"padded input {what} {padded}"
        )
    if not ceil_mode:
        return (padded - span) // stride + 1
    out = -(-(padded - span) // stride) + 1
    if (out - 1) * stride >= size + pad_before:
        out -= 1
    return out
