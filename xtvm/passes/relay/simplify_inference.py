"""``relay-simplify-inference``: rewrite training-time ops into inference arithmetic.

TVM's ``relay.transform.SimplifyInference``. ``relay.nn.batch_norm`` becomes
one multiply and one add by per-channel values computed from its parameters
with relay ops (so ``relay-fold-constant`` turns them into constants when the
parameters are weights); ``relay.nn.dropout`` is the identity at inference.
``relay.nn.lrn`` has no cheaper form and stays, as in TVM.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xtvm.dialects.relay import (
    AddOp,
    BatchNormOp,
    DivideOp,
    DropoutOp,
    ExpandDimsOp,
    MultiplyOp,
    NegativeOp,
    SqrtOp,
    SubtractOp,
)
from xtvm.dialects.relay.base import is_float
from xtvm.constants import const_from_numpy, numpy_dtype
from xtvm.rewrite import Pat, Rule, apply_rules, documents_rules, rewrite


def _scalar(value: float, like: SSAValue) -> Operation:
    """A rank-0 ``relay.const`` of ``like``'s element type."""
    assert isinstance(like.type, TensorType)
    return const_from_numpy(np.array(value, numpy_dtype(like.type.element_type)))


def batch_norm_to_scale_shift(
    x: SSAValue,
    gamma: SSAValue,
    beta: SSAValue,
    mean: SSAValue,
    var: SSAValue,
    root: BatchNormOp,
) -> list[Operation]:
    """The ops computing ``x * scale + shift`` along the batch norm's axis, with
    ``scale = gamma / sqrt(var + eps)`` (``1 / sqrt(var + eps)`` without
    ``scale``) and ``shift = beta - mean * scale`` (``-(mean * scale)``
    without ``center``); the last op's result is the normalized tensor."""
    attrs = root.attrs
    assert isinstance(x.type, TensorType)
    rank = len(x.type.get_shape())
    ops: list[Operation] = []

    def add(op: Operation, name: str | None = None) -> SSAValue:
        ops.append(op)
        op.results[0].name_hint = name
        return op.results[0]

    eps = add(_scalar(attrs["epsilon"], var), "eps")
    std = add(SqrtOp(add(AddOp(var, eps), "var_eps")), "std")
    numerator = gamma if attrs["scale"] else add(_scalar(1.0, var), "one")
    scale = add(DivideOp(numerator, std), "scale")
    mean_scale = add(MultiplyOp(mean, scale), "mean_scale")
    shift = add(
        SubtractOp(beta, mean_scale) if attrs["center"] else NegativeOp(mean_scale), "shift"
    )
    # [C] -> [C, 1, ..., 1]: broadcast along `axis` of the data.
    trailing = rank - attrs["axis"] % rank - 1
    if trailing:
        scale = add(ExpandDimsOp(scale, 1, trailing), "scale")
        shift = add(ExpandDimsOp(shift, 1, trailing), "shift")
    add(AddOp(add(MultiplyOp(x, scale)), shift))
    return ops


RULES: list[Rule] = [
    rewrite(
        Pat(BatchNormOp, "x", "gamma", "beta", "mean", "var"),
        when=[lambda x: is_float(x.type.element_type)],
        to=batch_norm_to_scale_shift,
        name="batch-norm-scale-shift",
        doc="batch_norm(x, gamma, beta, mean, var) = x * scale + shift",
    ),
    rewrite(Pat(DropoutOp, "x"), to="x", name="dropout-identity", doc="dropout(x) = x"),
]


@documents_rules(RULES)
@dataclass(frozen=True)
class SimplifyInferencePass(ModulePass):
    """Replace ``relay.nn.batch_norm`` by a multiply and an add, and drop
    ``relay.nn.dropout``.

    Input: relay IR with exact result types (run ``relay-infer-type`` first: a
    batch norm whose declared type is less precise than its data's is kept).

    Output: no ``relay.nn.dropout``, and no floating-point
    ``relay.nn.batch_norm``; each batch norm along ``axis`` of a rank-``r``
    tensor is ``sqrt``/``divide``/``multiply``/``subtract`` ops on its 1-d
    parameters, ``relay.expand_dims`` by ``r - axis - 1`` axes (none when
    ``axis`` is the last), then ``multiply`` and ``add`` on the data. With
    constant parameters, ``relay-fold-constant`` leaves only the last two.
    ``relay.nn.lrn`` is kept.

    Invariants: every value keeps its type; the results equal batch norm's up
    to floating-point rounding (the per-channel values are computed in the
    tensor's element type, as in TVM).

    ```mlir
    %y = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.000000e-03 : f64} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    // becomes
    %eps = relay.const dense<1.000000e-03> : tensor<f32>
    %var_eps = relay.add %v, %eps : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    %std = relay.sqrt %var_eps : tensor<8xf32>
    %scale = relay.divide %g, %std : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %mean_scale = relay.multiply %m, %scale : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %shift = relay.subtract %b, %mean_scale : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %scale_1 = relay.expand_dims %scale {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
    %shift_1 = relay.expand_dims %shift {axis = 1 : i64, num_newaxis = 2 : i64} : (tensor<8xf32>) -> tensor<8x1x1xf32>
    %y = relay.multiply %x, %scale_1 : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
    %y_1 = relay.add %y, %shift_1 : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
    ```
    """

    name = "relay-simplify-inference"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_rules(op, RULES)
