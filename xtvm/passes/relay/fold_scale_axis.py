"""``relay-fold-scale-axis``: fold per-channel scales into convolution weights.

TVM's ``relay.transform.FoldScaleAxis``, in the simplified form that covers
batch norm next to a convolution (after ``relay-simplify-inference`` and
``relay-fold-constant``):

* backward (a scale of the conv's output, TVM's ``BackwardFoldScaleAxis``):
  ``multiply(conv2d(x, W), C)`` with ``C`` a constant per output channel
  becomes ``conv2d(x, W * C)``, also through a per-channel constant bias in
  between (``bias_add``/``add``): the bias is scaled too;
* forward (a scale of the conv's input, TVM's ``ForwardFoldScaleAxis``):
  ``conv2d(multiply(x, C), W)`` with ``C`` a constant per input channel
  becomes ``conv2d(x, W * C)`` (zero padding commutes with the scale).

The scaled weights and biases are new ``relay.const``s computed with NumPy.
A scale along the output channels is a scale of ``W``'s axis 0 (OIHW), which
is right for any ``groups``; a scale along the input channels multiplies
``W[o, i]`` by the scale of input channel ``(o // (O / groups)) * I + i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects.relay import AddOp, BiasAddOp, ConstOp, Conv2dOp, MultiplyOp
from xtvm.dialects.relay.base import is_float
from xtvm.constants import const_from_numpy, numpy_from_const
from xtvm.rewrite import (
    Constraint,
    Pat,
    Rule,
    apply_rules,
    documents_rules,
    rewrite,
    same_type,
)
from xtvm.rewrite.pattern import Captures


def channel_vector(value: np.ndarray, channels: int) -> np.ndarray | None:
    """``value`` as a 1-d array of size 1 or ``channels`` when it broadcasts
    against an NCHW tensor along the channel axis only (a scalar, ``[C]`` only
    if ``C`` is 1, ``[C, 1, 1]``, ``[1, C, 1, 1]``, ...), else None."""
    if value.ndim > 4:
        return None
    n, c, h, w = (1,) * (4 - value.ndim) + value.shape
    if (n, h, w) != (1, 1, 1) or c not in (1, channels):
        return None
    return value.reshape(-1)


def _weight(conv: Operation) -> np.ndarray:
    assert isinstance(conv, Conv2dOp) and isinstance(conv.weight.owner, ConstOp)
    return numpy_from_const(conv.weight.owner)


def _output_scale(c: ConstOp, conv: Operation) -> np.ndarray | None:
    return channel_vector(numpy_from_const(c), _weight(conv).shape[0])


def _input_scale(c: ConstOp, conv: Operation) -> np.ndarray | None:
    assert isinstance(conv, Conv2dOp)
    return channel_vector(numpy_from_const(c), _weight(conv).shape[1] * conv.attrs["groups"])


# --- constraints ------------------------------------------------------------


def float_conv(name: str) -> Constraint:
    """The conv ``name`` has a floating-point weight and result of one element
    type (scaling integer weights could overflow, or change an ``out_dtype``
    accumulation)."""

    def check(captures: Captures) -> bool:
        conv = captures[name]
        assert isinstance(conv, Conv2dOp)
        weight = conv.weight.type
        assert isinstance(weight, TensorType)
        same_type = conv.result.type.element_type == weight.element_type
        return is_float(weight.element_type) and same_type

    return Constraint(f"float_conv({name!r})", (name,), check)


def single_use(name: str) -> Constraint:
    """The op ``name``'s result has one use (the scaled path), so folding does
    not duplicate the convolution."""
    return Constraint(f"single_use({name!r})", (name,), lambda c: c[name].results[0].has_one_use())


def per_output_channel(name: str, conv: str = "conv") -> Constraint:
    """The constant ``name`` broadcasts along the output channels of ``conv`` only."""
    return Constraint(
        f"per_output_channel({name!r}, {conv!r})",
        (name, conv),
        lambda c: _output_scale(c[name], c[conv]) is not None,
    )


def per_input_channel(name: str, conv: str) -> Constraint:
    """The constant ``name`` broadcasts along the input channels of ``conv`` only."""
    return Constraint(
        f"per_input_channel({name!r}, {conv!r})",
        (name, conv),
        lambda c: _input_scale(c[name], c[conv]) is not None,
    )


def channel_bias_axis(name: str) -> Constraint:
    """The ``relay.nn.bias_add`` ``name`` adds along axis 1 (NCHW channels)."""
    return Constraint(
        f"channel_bias_axis({name!r})", (name,), lambda c: c[name].attrs["axis"] % 4 == 1
    )


# --- replacements -------------------------------------------------------------


def _const_like(array: np.ndarray, like: ConstOp) -> ConstOp:
    """A new constant holding ``array`` in ``like``'s dtype and name."""
    const = const_from_numpy(array.astype(numpy_from_const(like).dtype))
    const.result.name_hint = like.result.name_hint
    return const


def _recreate(op: Operation, operands: Sequence[SSAValue]) -> Operation:
    """A copy of ``op`` (same properties, attributes, result types and name) on
    ``operands``."""
    new = type(op).create(
        operands=operands,
        result_types=op.result_types,
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    new.results[0].name_hint = op.results[0].name_hint
    return new


def fold_output_scale(x: SSAValue, w: ConstOp, c: ConstOp, conv: Operation) -> list[Operation]:
    """``conv2d(x, W) * C`` → ``conv2d(x, W * C)``, ``C`` along ``W``'s axis 0."""
    scale = _output_scale(c, conv)
    assert scale is not None
    weight = _const_like(numpy_from_const(w) * scale.reshape(-1, 1, 1, 1), w)
    return [weight, _recreate(conv, [x, weight.result])]


def fold_output_scale_through_bias_add(
    x: SSAValue, w: ConstOp, b: ConstOp, c: ConstOp, conv: Operation, bias: Operation
) -> list[Operation]:
    """``bias_add(conv2d(x, W), B) * C`` → ``bias_add(conv2d(x, W * C), B * C)``."""
    scale = _output_scale(c, conv)
    assert scale is not None
    weight, new_conv = fold_output_scale(x, w, c, conv)
    new_bias = _const_like(numpy_from_const(b) * scale, b)
    return [weight, new_conv, new_bias, _recreate(bias, [new_conv.results[0], new_bias.result])]


def fold_output_scale_through_add(
    x: SSAValue, w: ConstOp, b: ConstOp, c: ConstOp, conv: Operation
) -> list[Operation]:
    """``(conv2d(x, W) + B) * C`` → ``conv2d(x, W * C) + B * C``."""
    weight, new_conv = fold_output_scale(x, w, c, conv)
    new_bias = _const_like(numpy_from_const(b) * numpy_from_const(c), b)
    return [weight, new_conv, new_bias, AddOp(new_conv.results[0], new_bias.result)]


def fold_input_scale(x: SSAValue, w: ConstOp, c: ConstOp, root: Operation) -> list[Operation]:
    """``conv2d(x * C, W)`` → ``conv2d(x, W')``, ``W'[o, i] = W[o, i] * C[channel]``
    with ``channel`` the input channel that ``W[o, i]`` reads in ``o``'s group."""
    scale = _input_scale(c, root)
    assert scale is not None
    weight = numpy_from_const(w)
    o, i, kh, kw = weight.shape
    groups = root.attrs["groups"]
    grouped = weight.reshape(groups, o // groups, i, kh, kw)
    factors = np.broadcast_to(scale, (groups * i,)).reshape(groups, 1, i, 1, 1)
    new_weight = _const_like((grouped * factors).reshape(weight.shape), w)
    return [new_weight, _recreate(root, [x, new_weight.result])]


# --- rules --------------------------------------------------------------------


def _conv() -> Pat:
    """A conv of anything by a constant weight (captures ``x``, ``w``, ``conv``)."""
    return Pat(Conv2dOp, "x", Pat(ConstOp, name="w"), name="conv")


def _const(name: str) -> Pat:
    return Pat(ConstOp, name=name)


_CONV_CHECKS = [float_conv("conv"), single_use("conv")]

RULES: list[Rule] = [
    rewrite(
        Pat(MultiplyOp, _conv(), _const("c"), commutative=True),
        when=[*_CONV_CHECKS, per_output_channel("c")],
        to=fold_output_scale,
        name="conv-output-scale",
        doc="conv2d(x, W) * C = conv2d(x, W * C)",
    ),
    rewrite(
        Pat(
            MultiplyOp,
            Pat(BiasAddOp, _conv(), _const("b"), name="bias"),
            _const("c"),
            commutative=True,
        ),
        when=[
            *_CONV_CHECKS,
            single_use("bias"),
            channel_bias_axis("bias"),
            per_output_channel("c"),
        ],
        to=fold_output_scale_through_bias_add,
        name="conv-bias-add-output-scale",
        doc="bias_add(conv2d(x, W), B) * C = bias_add(conv2d(x, W * C), B * C)",
    ),
    rewrite(
        Pat(
            MultiplyOp,
            Pat(AddOp, _conv(), _const("b"), commutative=True, name="bias"),
            _const("c"),
            commutative=True,
        ),
        when=[
            *_CONV_CHECKS,
            single_use("bias"),
            per_output_channel("b"),
            per_output_channel("c"),
        ],
        to=fold_output_scale_through_add,
        name="conv-add-output-scale",
        doc="(conv2d(x, W) + B) * C = conv2d(x, W * C) + B * C",
    ),
    rewrite(
        Pat(
            Conv2dOp,
            Pat(MultiplyOp, "x", _const("c"), commutative=True, name="scaled"),
            _const("w"),
        ),
        when=[float_conv("root"), same_type("x", "scaled"), per_input_channel("c", "root")],
        to=fold_input_scale,
        name="conv-input-scale",
        doc="conv2d(x * C, W) = conv2d(x, W * C along the input channels)",
    ),
]


@documents_rules(RULES)
@dataclass(frozen=True)
class FoldScaleAxisPass(ModulePass):
    """Fold constant per-channel multiplications into the constant weights of
    ``relay.nn.conv2d``.

    Input: relay IR, best after ``relay-simplify-inference`` and
    ``relay-fold-constant`` (so batch norms are constant scales and shifts).

    Output: no ``relay.multiply`` by a constant per-output-channel ``C`` (a
    scalar or shape ``[O, 1, 1]``, ``[1, O, 1, 1]``, ...) of a float conv with
    a constant weight, nor of a ``relay.nn.bias_add`` (axis 1) or
    ``relay.add`` of such a conv and a per-channel constant bias, is left when
    the conv (and the bias op) have no other use; no such conv reads a
    ``relay.multiply`` of its data by a constant per-input-channel scale.
    Scales along spatial axes, non-constant scales or weights, and integer
    convs are kept. Folding repeats (chained scales fold one by one); the
    unused old weights are erased.

    Invariants: every value keeps its type; results are unchanged up to
    floating-point rounding (the weights are scaled in their dtype).

    ```mlir
    %w = relay.const dense<...> : tensor<8x3x3x3xf32>
    %s = relay.const dense<...> : tensor<8x1x1xf32>
    %y = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
    %z = relay.multiply %y, %s : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
    // becomes
    %w = relay.const dense<...> : tensor<8x3x3x3xf32>    // W * s along axis 0
    %z = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
    ```
    """

    name = "relay-fold-scale-axis"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_rules(op, RULES)
