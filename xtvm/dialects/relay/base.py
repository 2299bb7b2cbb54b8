"""What every relay op shares: fusion pattern kinds, the type-rule protocol,
the element-type checks, and the base class that carries them.

A relay op is an xDSL op on tensor values. Besides its fields it declares

* ``PATTERN``: its fusion pattern kind (TVM's ``OpPatternKind``), read by
  ``relay-fuse-ops``;
* ``infer(operand_types, attrs)``: its type rule, a classmethod from operand
  types and Python attribute values (every property, defaults included:
  what ``op.attrs`` holds) to result types. It raises
  :class:`RelayTypeError` with a message naming the op when the operands or
  attributes are invalid.

An attribute's default is declared once, on its property
(``prop_def(..., default_value=...)``): the parser and the constructor fill
it in, so ``op.attrs`` is complete and type rules, references and lowerings
read ``attrs["axis"]``. A property that may be absent (``opt_prop_def``)
means something when absent (``axis`` of a reduction: every axis).

The verifier runs the type rule and checks the declared result types against
it: a declared type may be less precise than the inferred one (``?`` where the
rule knows the size, or ``tensor<*xf32>``), which ``relay-infer-type`` then
refines, but never different.

:class:`RelayOp`'s constructor builds an op from its operands and attribute
values, so that an op's ``__init__`` only names its parameters; properties
are written in the attribute dictionary (``{axis = 1 : i64}``), and
:func:`functional_format` is the assembly format most ops share.

The op's NumPy semantics live in ``xtvm/reference/relay/``, keyed by op name,
so this module (and ``xtvm-opt``) never imports NumPy.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
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
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    VarResultDef,
    base,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from xtvm.dtypes import element_type


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
    """Base of every relay op: a pattern kind, a type rule and its verifier,
    properties written in the attribute dictionary, and a constructor from
    operands and attribute values."""

    PATTERN: ClassVar[OpPattern] = OpPattern.OPAQUE
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, *operands: SSAValue | Sequence[SSAValue], **attrs: Any):
        """The op on ``operands``, in declaration order (a sequence for a
        variadic operand), with the attribute values ``attrs``: Python values
        (see :func:`property_attr`) or attributes. A value that is None is
        left out, so the property takes its declared default (or stays absent
        if it is optional). The result types are the type rule's."""
        definition = self.get_irdl_definition()
        properties: dict[str, Attribute] = {}
        for name, value in attrs.items():
            if name not in definition.properties:
                raise TypeError(f"'{self.name}' has no attribute '{name}'")
            if value is not None:
                properties[name] = property_attr(definition.properties[name].constr, value)
        values = self.with_defaults({k: attr_to_py(v) for k, v in properties.items()})
        types = self.infer(
            [v.type for o in operands for v in ([o] if isinstance(o, SSAValue) else o)], values
        )
        variadic = any(isinstance(d, VarResultDef) for _, d in definition.results)
        super().__init__(
            operands=list(operands),
            result_types=[types] if variadic else types,
            properties=properties,
        )

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]) -> list[Attribute]:
        """Result types from operand types and attribute values (defaults included)."""
        raise NotImplementedError(f"{cls.name} has no type rule")

    @property
    def attrs(self) -> dict[str, Any]:
        """The op's properties as Python values (for type rules and references);
        a property left out holds its default."""
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
        """The result types the type rule gives for the op's operands and attributes."""
        return self.infer([o.type for o in self.operands], self.attrs)

    def error(self, message: str) -> RelayTypeError:
        """A type error naming the op."""
        return RelayTypeError(f"'{self.name}' {message}")

    def verify_(self) -> None:
        """Ranked operands, and result types the type rule gives (or less
        precise ones)."""
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


class SameTypeOp(RelayOp):
    """Base of the pure ops on one tensor whose result has its type
    (elementwise maths, normalizations, scans); its type rule checks the
    attributes.

    ```mlir
    %y = relay.nn.softmax %x {axis = 1 : i64} : tensor<1x10xf32>
    ```
    """

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"


def functional_format(*operands: str) -> str:
    """The assembly format most relay ops share: the named operands, the
    attribute dictionary, then the functional type,
    ``relay.op %a, %b {attrs} : (ta, tb) -> tr``."""
    named = " `,` ".join(f"${name}" for name in operands)
    return f"{named} attr-dict `:` functional-type(operands, results)".lstrip()


def property_attr(constraint: AttrConstraint, value: Any) -> Attribute:
    """``value`` as the attribute of a property with ``constraint``: an
    attribute as is, a string as a ``StringAttr``, a sequence of integers as
    an ``array<i64: ...>`` (of other numbers, ``array<f64: ...>``), and a
    number as the first of ``i64`` and ``f64`` (``f64`` and ``i64`` for a
    number that is not an integer), then bool, that the property accepts:
    ``2`` is ``2.0 : f64`` for a float property, ``1`` is ``true`` for a
    bool one."""
    if isinstance(value, Attribute):
        return value
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, Iterable):
        values = list(value)
        if all(isinstance(v, numbers.Integral) for v in values):
            return int_array(values)
        return f64_array(values)
    makers: tuple[Callable[[Any], Attribute], ...] = (
        (i64_attr, f64_attr, bool_attr)
        if isinstance(value, numbers.Integral)
        else (f64_attr, i64_attr, bool_attr)
    )
    for make in makers:
        if constraint.verifies(attr := make(value)):
            return attr
    raise TypeError(f"no attribute for {value!r} satisfies {constraint}")


def tensor_type(op: type[RelayOp] | str, value: Attribute, what: str) -> TensorType:
    """Check that ``value`` is a ranked tensor type, naming op and operand if not."""
    name = op if isinstance(op, str) else op.name
    if not isinstance(value, TensorType):
        raise RelayTypeError(f"'{name}' expects {what} to be a ranked tensor, got {value}")
    return value


def same_extent(a: int, b: int) -> bool:
    """Whether two extents may be equal at run time: equal, or one is ``?``."""
    return a == b or DYNAMIC_INDEX in (a, b)


def same_extents(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether two shapes may be equal at run time (:func:`same_extent` per axis)."""
    return len(a) == len(b) and all(same_extent(x, y) for x, y in zip(a, b))


def product(dims: Sequence[int]) -> int:
    """The element count of ``dims``, ``?`` when one of them is."""
    total = 1
    for d in dims:
        if d == DYNAMIC_INDEX:
            return DYNAMIC_INDEX
        total *= d
    return total


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


def f64_array(values: Sequence[float]) -> DenseArrayBase:
    """An ``array<f64: ...>`` property."""
    return DenseArrayBase.from_list(f64, [float(v) for v in values])


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


def is_float(ty: Attribute) -> bool:
    """Whether an element type is a floating-point type."""
    return isinstance(ty, AnyFloat)


def _is_bool(ty: Attribute) -> bool:
    return isinstance(ty, IntegerType) and ty.width.data == 1


ELEMENT_KINDS: dict[str, tuple[str, Callable[[Attribute], bool]]] = {
    # kind: (how an error names it, which element types it holds)
    "any": ("any", lambda t: True),
    "numeric": ("a numeric (not bool)", lambda t: not _is_bool(t)),
    "integer": ("an integer", lambda t: isinstance(t, IntegerType) and not _is_bool(t)),
    "float": ("a floating-point", is_float),
    "bool": ("a bool (i1)", _is_bool),
}
"""The element-type families an op may accept (an elementwise op's ``ELEMENTS``)."""


def check_elements(op_name: str, ty: TensorType, kind: str) -> TensorType:
    """``ty`` if its element type is of ``kind`` (a key of
    :data:`ELEMENT_KINDS`), else a type error naming the op."""
    description, accepts = ELEMENT_KINDS[kind]
    if not accepts(ty.element_type):
        raise RelayTypeError(f"'{op_name}' expects {description} tensor, got {ty.element_type}")
    return ty


def same_element_type(op_name: str, *types: TensorType, what: str = "operands") -> Attribute:
    """The element type all ``types`` share, or a type error naming the op
    and ``what`` the types are."""
    first = types[0].element_type
    for other in types[1:]:
        if other.element_type != first:
            raise RelayTypeError(
                f"'{op_name}' {what} must have one element type, "
                f"got {first} and {other.element_type}"
            )
    return first


def dtype_element_type(op_name: str, dtype: str) -> Attribute:
    """The element type of a dtype attribute, or a type error naming the op."""
    try:
        return element_type(dtype)
    except ValueError:
        raise RelayTypeError(f"'{op_name}' has unsupported dtype '{dtype}'") from None


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
    pool: bool = False,
) -> int:
    """Number of positions of a sliding window (convolution or pooling) along
    one spatial axis, ONNX/onnxruntime rules.

    The dilated window spans ``(window - 1) * dilation + 1`` elements. With
    ``ceil_mode`` a last partial window is kept, unless it would start in the
    trailing padding. ``?`` in gives ``?`` out.

    A convolution's window must fit in the padded input. A ``pool``'s may be
    larger, as onnxruntime computes ``(padded - span) / stride + 1`` with
    C's division (toward zero) in floor mode and ``ceil`` in ceil mode:
    ``3`` elements, window ``4``, stride ``2`` give one window over the 3
    elements; stride ``1`` gives none (an empty output); a negative count is
    an error.
    """
    if size == DYNAMIC_INDEX:
        return DYNAMIC_INDEX
    span = (window - 1) * dilation + 1
    padded = size + pad_before + pad_after
    too_large = RelayTypeError(
        f"'{op_name}' window {what} {span} (with dilation) is larger than the "
        f"padded input {what} {padded}"
    )
    if span > padded and not pool:
        raise too_large
    excess = padded - span
    if not ceil_mode:
        out = (excess // stride if excess >= 0 else -(-excess // stride)) + 1
    else:
        out = -(-excess // stride) + 1
        if (out - 1) * stride >= size + pad_before:
            out -= 1
    if out < 0:
        raise too_large
    return out
