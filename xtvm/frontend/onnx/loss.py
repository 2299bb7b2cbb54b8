"""Converters for the loss ops ``NegativeLogLikelihoodLoss`` and
``SoftmaxCrossEntropyLoss``, decomposed exactly into existing relay ops
(``relay.gather`` of the target class, ``relay.take`` of its weight,
``relay.where`` for ``ignore_index``, ``relay.sum``/``relay.mean``, and
``relay.log_softmax`` for the cross entropy), as ONNX's function bodies of
these ops do.

For input ``x`` of shape ``[N, C, d1..dk]`` and target ``t`` of shape
``[N, d1..dk]``: ``loss[n, d] = -x[n, t[n, d], d] * w[n, d]`` with
``w = weight[t]`` (1 without weights) and ``w = 0`` where ``t ==
ignore_index``. ``reduction`` ``none`` returns ``loss``, ``sum`` its sum,
``mean`` (default) ``sum(loss) / sum(w)`` — the plain mean of ``loss`` when
there are neither weights nor an ``ignore_index``.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xtvm.constants import numpy_dtype
from xtvm.dialects.relay import (
    CastOp,
    DivideOp,
    ExpandDimsOp,
    GatherOp,
    LogSoftmaxOp,
    MeanOp,
    MultiplyOp,
    NegativeOp,
    NotEqualOp,
    SqueezeOp,
    SumOp,
    TakeOp,
    WhereOp,
)
from xtvm.frontend.onnx.converter import OnnxNode, OnnxOpConverter

REDUCTIONS = ("none", "sum", "mean")


def _dtype(value: SSAValue) -> np.dtype:
    ty = value.type
    assert isinstance(ty, TensorType)
    return numpy_dtype(ty.get_element_type())


def negative_log_likelihood(node: OnnxNode, x: SSAValue, weight_input: int) -> SSAValue:
    """The loss of log-probabilities ``x`` (``[N, C, ...]``) against the
    node's input 1 (the target classes), with the optional class weights of
    input ``weight_input`` and the node's ``reduction`` and
    ``ignore_index``."""
    reduction = node.attr("reduction", "mean")
    if reduction not in REDUCTIONS:
        raise node.unsupported_attr("reduction", f"expected one of {', '.join(REDUCTIONS)}")
    xshape, tshape = node.input_shape(0), node.input_shape(1)
    if len(xshape) < 2 or tshape != xshape[:1] + xshape[2:]:
        raise node.error(
            f"expected input of shape [N, C, d1..dk] and target [N, d1..dk], "
            f"got {list(xshape)} and {list(tshape)}"
        )
    target = node.input(1)
    tdtype = _dtype(target)
    if not np.issubdtype(tdtype, np.integer):
        raise node.error(f"{node.input_label(1)} must be an integer tensor, got {tdtype}")
    fdtype = _dtype(x)
    ignore_index = node.attr("ignore_index")
    keep = None
    if ignore_index is not None:
        keep = node.emit(NotEqualOp(target, node.const(np.array(ignore_index, tdtype))))
        # An ignored position reads class 0 (any valid class) and weighs 0.
        target = node.emit(WhereOp(keep, target, node.const(np.array(0, tdtype))))
    picked = node.emit(GatherOp(x, node.emit(ExpandDimsOp(target, 1)), axis=1))
    loss = node.emit(NegativeOp(node.emit(SqueezeOp(picked, [1]))))
    weight = None
    if node.has_input(weight_input):
        weight = node.emit(TakeOp(node.input(weight_input), target, axis=0, mode="clip"))
    if keep is not None:
        keep_weight = node.emit(CastOp(keep, str(fdtype)))
        weight = keep_weight if weight is None else node.emit(MultiplyOp(weight, keep_weight))
    if weight is not None:
        loss = node.emit(MultiplyOp(loss, weight))
    if reduction == "none":
        return loss
    if reduction == "sum":
        return node.emit(SumOp(loss))
    if weight is None:
        return node.emit(MeanOp(loss))
    return node.emit(DivideOp(node.emit(SumOp(loss)), node.emit(SumOp(weight))))


class NegativeLogLikelihoodLoss(OnnxOpConverter):
    """``NegativeLogLikelihoodLoss(input, target, weight?)``: see the module
    docstring. v12 and v13 differ only in element types."""

    @classmethod
    def _impl_v12(cls, node: OnnxNode) -> SSAValue:
        return negative_log_likelihood(node, node.input(0), 2)


class SoftmaxCrossEntropyLoss(OnnxOpConverter):
    """``SoftmaxCrossEntropyLoss(scores, labels, weights?)``: the negative
    log-likelihood of ``log_softmax(scores, axis=1)``; the optional second
    output is that log-probability tensor."""

    @classmethod
    def _impl_v12(cls, node: OnnxNode) -> list[SSAValue]:
        log_prob = node.emit(LogSoftmaxOp(node.input(0), axis=1))
        loss = negative_log_likelihood(node, log_prob, 2)
        return [loss, log_prob] if len(node.proto.output) > 1 else [loss]


CONVERTERS: dict[str, type[OnnxOpConverter]] = {
    "NegativeLogLikelihoodLoss": NegativeLogLikelihoodLoss,
    "SoftmaxCrossEntropyLoss": SoftmaxCrossEntropyLoss,
}
