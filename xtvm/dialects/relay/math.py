"""Unary elementwise maths beyond ``tensor``'s: rounding (``relay.floor``,
``relay.ceil``, ``relay.round``, ``relay.trunc``), ``relay.sign``, the
trigonometric and hyperbolic functions and their inverses, ``relay.erf``,
and the float classifications ``relay.isnan``, ``relay.isinf`` and
``relay.isfinite`` (``bool`` results). Names and semantics are TVM's.

Each op is one class on the family base (:class:`FloatUnaryOp` for the
maths, :class:`UnaryOp` for ``sign``, :class:`ClassifyOp` for the
classifications): a name and a docstring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from xtvm.dialects.relay.base import (
    OpPattern,
    RelayOp,
    check_elements,
    functional_format,
    tensor_type,
)
from xtvm.dialects.relay.tensor import FloatUnaryOp, UnaryOp


@irdl_op_definition
class FloorOp(FloatUnaryOp):
    """Rounds every element toward ``-inf``.

    ```mlir
    %y = relay.floor %x : tensor<4xf32>
    ```
    """

    name = "relay.floor"


@irdl_op_definition
class CeilOp(FloatUnaryOp):
    """Rounds every element toward ``+inf``."""

    name = "relay.ceil"


@irdl_op_definition
class RoundOp(FloatUnaryOp):
    """Rounds every element to the nearest integer, halves to even (NumPy's
    ``round``, ONNX ``Round``): ``0.5 → 0``, ``1.5 → 2``, ``-2.5 → -2``."""

    name = "relay.round"


@irdl_op_definition
class TruncOp(FloatUnaryOp):
    """Rounds every element toward zero."""

    name = "relay.trunc"


@irdl_op_definition
class SignOp(UnaryOp):
    """``-1``, ``0`` or ``1`` by the sign of every element (of any numeric
    type); NaN stays NaN.

    ```mlir
    %y = relay.sign %x : tensor<5xi32>
    ```
    """

    name = "relay.sign"


@irdl_op_definition
class SinOp(FloatUnaryOp):
    """Sine elementwise (radians)."""

    name = "relay.sin"


@irdl_op_definition
class CosOp(FloatUnaryOp):
    """Cosine elementwise (radians)."""

    name = "relay.cos"


@irdl_op_definition
class TanOp(FloatUnaryOp):
    """Tangent elementwise (radians)."""

    name = "relay.tan"


@irdl_op_definition
class AsinOp(FloatUnaryOp):
    """Arcsine elementwise: ``[-1, 1] → [-π/2, π/2]``, NaN outside."""

    name = "relay.asin"


@irdl_op_definition
class AcosOp(FloatUnaryOp):
    """Arccosine elementwise: ``[-1, 1] → [0, π]``, NaN outside."""

    name = "relay.acos"


@irdl_op_definition
class AtanOp(FloatUnaryOp):
    """Arctangent elementwise: ``→ (-π/2, π/2)``."""

    name = "relay.atan"


@irdl_op_definition
class SinhOp(FloatUnaryOp):
    """Hyperbolic sine elementwise."""

    name = "relay.sinh"


@irdl_op_definition
class CoshOp(FloatUnaryOp):
    """Hyperbolic cosine elementwise."""

    name = "relay.cosh"


@irdl_op_definition
class AsinhOp(FloatUnaryOp):
    """Inverse hyperbolic sine elementwise."""

    name = "relay.asinh"


@irdl_op_definition
class AcoshOp(FloatUnaryOp):
    """Inverse hyperbolic cosine elementwise (NaN below 1)."""

    name = "relay.acosh"


@irdl_op_definition
class AtanhOp(FloatUnaryOp):
    """Inverse hyperbolic tangent elementwise (``±inf`` at ``±1``, NaN beyond)."""

    name = "relay.atanh"


@irdl_op_definition
class ErfOp(FloatUnaryOp):
    """The Gauss error function elementwise.

    ```mlir
    %y = relay.erf %x : tensor<1x3x32x32xf32>
    ```
    """

    name = "relay.erf"


class ClassifyOp(RelayOp):
    """Base of the float classifications: a ``bool`` tensor of the operand's
    shape.

    ```mlir
    %m = relay.isnan %x : (tensor<4xf32>) -> tensor<4xi1>
    ```
    """

    PATTERN: ClassVar[OpPattern] = OpPattern.ELEMWISE
    input = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = functional_format("input")

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], attrs: Mapping[str, Any]):
        data = check_elements(cls.name, tensor_type(cls, operand_types[0], "its input"), "float")
        return [TensorType(i1, data.get_shape())]


@irdl_op_definition
class IsNanOp(ClassifyOp):
    """Whether every element is NaN."""

    name = "relay.isnan"


@irdl_op_definition
class IsInfOp(ClassifyOp):
    """Whether every element is ``+inf`` or ``-inf``."""

    name = "relay.isinf"


@irdl_op_definition
class IsFiniteOp(ClassifyOp):
    """Whether every element is neither infinite nor NaN."""

    name = "relay.isfinite"


MATH_OPS: list[type[RelayOp]] = [
    FloorOp,
    CeilOp,
    RoundOp,
    TruncOp,
    SignOp,
    SinOp,
    CosOp,
    TanOp,
    AsinOp,
    AcosOp,
    AtanOp,
    SinhOp,
    CoshOp,
    AsinhOp,
    AcoshOp,
    AtanhOp,
    ErfOp,
    IsNanOp,
    IsInfOp,
    IsFiniteOp,
]
"""The ops of this module, for ``RELAY_OPS``."""
