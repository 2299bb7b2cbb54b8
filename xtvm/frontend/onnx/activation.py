"""Converters for the activation functions, decomposed into relay
elementwise ops as TVM's importer does (each formula is exact, so the fused
kernel computes what the op defines): ``Elu``, ``Selu``, ``Celu``,
``LeakyRelu``, ``PRelu``, ``ThresholdedRelu``, ``HardSigmoid``,
``HardSwish``, ``Softplus``, ``Softsign``, ``Mish``, ``Gelu``, ``Shrink``
and ``Swish``. ``Relu`` is in ``nn``, ``Sigmoid`` and ``Tanh`` in
``tensor``.

Attribute values are constants of the input's element type. Where two
branches are chosen by a comparison, both are computed and
``relay.where`` picks one (the unchosen branch may overflow to ``inf``
harmlessly). Versions after the first only widen the element types (or
drop v1's ``consumed_inputs`` memory hint), so one method covers each op.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from xtvm.dialects.relay import (
    AbsOp,
    AddOp,
    CastOp,
    ClipOp,
    DivideOp,
    ErfOp,
    ExpOp,
    GreaterOp,
    LessOp,
    LogOp,
    MaximumOp,
    MinimumOp,
    MultiplyOp,
    SigmoidOp,
    SubtractOp,
    TanhOp,
    WhereOp,
)
from xtvm.dialects.relay.base import shape_str
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter, static_shape
from xtvm.frontend.onnx.tensor import element_dtype


def _const(node: OnnxNode, value: float, like: SSAValue) -> SSAValue:
    """A scalar constant of ``like``'s element type."""
    return node.const(np.array(value, element_dtype(like)))


def _float_input(node: OnnxNode) -> SSAValue:
    """Input 0, which must be a float tensor (the op's formula needs one)."""
    x = node.input(0)
    if not np.issubdtype(element_dtype(x), np.floating):
        raise node.error(f"{node.input_label(0)} must be a float tensor, got {element_dtype(x)}")
    return x


def _exp_minus_one(node: OnnxNode, x: SSAValue) -> SSAValue:
    """``exp(x) - 1``."""
    return node.emit(SubtractOp(node.emit(ExpOp(x)), _const(node, 1.0, x)))


def _softplus(node: OnnxNode, x: SSAValue) -> SSAValue:
    """``log(1 + exp(x))`` as ``max(x, 0) + log(1 + exp(-|x|))``, which does
    not overflow for large ``x``."""
    e = node.emit(ExpOp(node.emit(MultiplyOp(node.emit(AbsOp(x)), _const(node, -1.0, x)))))
    tail = node.emit(LogOp(node.emit(AddOp(_const(node, 1.0, x), e))))
    return node.emit(AddOp(node.emit(MaximumOp(x, _const(node, 0.0, x))), tail))


class Elu(OnnxOpConverter):
    """``Elu``: ``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        alpha = _const(node, node.attr("alpha", 1.0), x)
        negative = node.emit(MultiplyOp(alpha, _exp_minus_one(node, x)))
        positive = node.emit(GreaterOp(x, _const(node, 0.0, x)))
        return node.emit(WhereOp(positive, x, negative))


class Selu(OnnxOpConverter):
    """``Selu``: ``gamma * x`` where ``x > 0``, else ``gamma * alpha *
    (exp(x) - 1)``."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        alpha = node.attr("alpha", 1.67326319217681884765625)
        gamma = _const(node, node.attr("gamma", 1.05070102214813232421875), x)
        negative = node.emit(MultiplyOp(_const(node, alpha, x), _exp_minus_one(node, x)))
        positive = node.emit(GreaterOp(x, _const(node, 0.0, x)))
        return node.emit(MultiplyOp(gamma, node.emit(WhereOp(positive, x, negative))))


class Celu(OnnxOpConverter):
    """``Celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    @classmethod
    def _impl_v12(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        alpha = _const(node, node.attr("alpha", 1.0), x)
        zero = _const(node, 0.0, x)
        scaled = _exp_minus_one(node, node.emit(DivideOp(x, alpha)))
        negative = node.emit(MinimumOp(zero, node.emit(MultiplyOp(alpha, scaled))))
        return node.emit(AddOp(node.emit(MaximumOp(zero, x)), negative))


class LeakyRelu(OnnxOpConverter):
    """``LeakyRelu``: ``x`` where ``x >= 0``, else ``alpha * x``."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        scaled = node.emit(MultiplyOp(x, _const(node, node.attr("alpha", 0.01), x)))
        negative = node.emit(LessOp(x, _const(node, 0.0, x)))
        return node.emit(WhereOp(negative, scaled, x))


class PRelu(OnnxOpConverter):
    """``PRelu``: ``x`` where ``x >= 0``, else ``slope * x``; ``slope``
    broadcasts to ``x`` (and must not change its shape)."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x, slope = node.input(0), node.input(1)
        scaled = node.emit(MultiplyOp(x, slope))
        if static_shape(scaled) != static_shape(x):
            raise node.error(
                f"{node.input_label(1)} of shape {shape_str(static_shape(slope))} must "
                f"broadcast to the shape of X, {shape_str(static_shape(x))}"
            )
        negative = node.emit(LessOp(x, _const(node, 0, x)))
        return node.emit(WhereOp(negative, scaled, x))


class ThresholdedRelu(OnnxOpConverter):
    """``ThresholdedRelu``: ``x`` where ``x > alpha``, else 0."""

    @classmethod
    def _impl_v10(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        above = node.emit(GreaterOp(x, _const(node, node.attr("alpha", 1.0), x)))
        return node.emit(WhereOp(above, x, _const(node, 0.0, x)))


def _hard_sigmoid(node: OnnxNode, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    """``clip(alpha * x + beta, 0, 1)``."""
    line = node.emit(
        AddOp(node.emit(MultiplyOp(x, _const(node, alpha, x))), _const(node, beta, x))
    )
    return node.emit(ClipOp(line, 0.0, 1.0))


class HardSigmoid(OnnxOpConverter):
    """``HardSigmoid``: ``max(0, min(1, alpha * x + beta))``."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        return _hard_sigmoid(node, x, node.attr("alpha", 0.2), node.attr("beta", 0.5))


class HardSwish(OnnxOpConverter):
    """``HardSwish``: ``x * max(0, min(1, x / 6 + 1 / 2))``."""

    @classmethod
    def _impl_v14(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        return node.emit(MultiplyOp(x, _hard_sigmoid(node, x, 1 / 6, 0.5)))


class Softplus(OnnxOpConverter):
    """``Softplus``: ``log(1 + exp(x))``, computed without overflow."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        return _softplus(node, _float_input(node))


class Softsign(OnnxOpConverter):
    """``Softsign``: ``x / (1 + |x|)``."""

    @classmethod
    def _impl_v1(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        denominator = node.emit(AddOp(_const(node, 1.0, x), node.emit(AbsOp(x))))
        return node.emit(DivideOp(x, denominator))


class Mish(OnnxOpConverter):
    """``Mish``: ``x * tanh(softplus(x))``."""

    @classmethod
    def _impl_v18(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        return node.emit(MultiplyOp(x, node.emit(TanhOp(_softplus(node, x)))))


class Gelu(OnnxOpConverter):
    """``Gelu``: ``x / 2 * (1 + erf(x / sqrt(2)))``, or with ``approximate =
    "tanh"``: ``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))``."""

    @classmethod
    def _impl_v20(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        approximate = node.attr("approximate", "none")
        if approximate == "none":
            inner = node.emit(ErfOp(node.emit(MultiplyOp(x, _const(node, 1 / math.sqrt(2), x)))))
        elif approximate == "tanh":
            cube = node.emit(MultiplyOp(node.emit(MultiplyOp(x, x)), x))
            poly = node.emit(AddOp(x, node.emit(MultiplyOp(cube, _const(node, 0.044715, x)))))
            scale = _const(node, math.sqrt(2 / math.pi), x)
            inner = node.emit(TanhOp(node.emit(MultiplyOp(poly, scale))))
        else:
            raise node.unsupported_attr("approximate", "it must be 'none' or 'tanh'", "none")
        half = node.emit(MultiplyOp(x, _const(node, 0.5, x)))
        return node.emit(MultiplyOp(half, node.emit(AddOp(_const(node, 1.0, x), inner))))


class Shrink(OnnxOpConverter):
    """``Shrink``: ``x + bias`` where ``x < -lambd``, ``x - bias`` where ``x >
    lambd``, else 0. Integer tensors are shrunk in float64 and converted
    back (the attributes are floats)."""

    @classmethod
    def _impl_v9(cls, node: OnnxNode) -> SSAValue:
        x = node.input(0)
        dtype = element_dtype(x)
        if not np.issubdtype(dtype, np.floating):
            x = node.emit(CastOp(x, "float64"))
        lambd, bias = node.attr("lambd", 0.5), node.attr("bias", 0.0)
        low = node.emit(LessOp(x, _const(node, -lambd, x)))
        high = node.emit(GreaterOp(x, _const(node, lambd, x)))
        raised = node.emit(AddOp(x, _const(node, bias, x)))
        lowered = node.emit(SubtractOp(x, _const(node, bias, x)))
        inner = node.emit(WhereOp(high, lowered, _const(node, 0.0, x)))
        out = node.emit(WhereOp(low, raised, inner))
        return out if np.issubdtype(dtype, np.floating) else node.emit(CastOp(out, dtype.name))


class Swish(OnnxOpConverter):
    """``Swish``: ``x * sigmoid(alpha * x)``."""

    @classmethod
    def _impl_v24(cls, node: OnnxNode) -> SSAValue:
        x = _float_input(node)
        scaled = node.emit(MultiplyOp(x, _const(node, node.attr("alpha", 1.0), x)))
        return node.emit(MultiplyOp(x, node.emit(SigmoidOp(scaled))))


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "Elu": Elu,
    "Selu": Selu,
    "Celu": Celu,
    "LeakyRelu": LeakyRelu,
    "PRelu": PRelu,
    "ThresholdedRelu": ThresholdedRelu,
    "HardSigmoid": HardSigmoid,
    "HardSwish": HardSwish,
    "Softplus": Softplus,
    "Softsign": Softsign,
    "Mish": Mish,
    "Gelu": Gelu,
    "Shrink": Shrink,
    "Swish": Swish,
}
