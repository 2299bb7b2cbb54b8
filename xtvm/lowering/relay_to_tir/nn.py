"""Lowerings of ``relay.nn.*`` ops (convolution and pooling in ``conv`` and
``pool``, the packed x86 ops in ``packed``; LRN takes the x86 row schedule,
:func:`xtvm.topi.x86.lrn`)."""

from __future__ import annotations

from xtvm import topi
from xtvm.dialects.relay.nn import (
    BatchFlattenOp,
    BatchNormOp,
    BiasAddOp,
    DenseOp,
    DropoutOp,
    HardmaxOp,
    LogSoftmaxOp,
    LrnOp,
    MatmulOp,
    ReluOp,
    SoftmaxOp,
)
from xtvm.lowering.relay_to_tir.patterns import lower, ops_of
from xtvm.te.symbolic import is_static
from xtvm.topi import x86
from xtvm.topi.dynamic import softmax_last_axis


def _softmax(x, axis: int):
    """``topi.softmax``; along the last axis of a tensor with run-time
    extents, the variant that evaluates ``exp`` once per element."""
    if not is_static(x.shape) and axis % x.ndim == x.ndim - 1:
        return softmax_last_axis(x)
    return topi.softmax(x, axis)


PATTERNS = [
    lower(ReluOp, lambda ins, attrs, outs: topi.relu(ins[0])),
    lower(DenseOp, lambda ins, attrs, outs: topi.dense(*ins, attrs.get("out_dtype"))),
    lower(
        MatmulOp,
        lambda ins, attrs, outs: topi.matmul(
            *ins, attrs["transpose_a"], attrs["transpose_b"], attrs.get("out_dtype")
        ),
    ),
    lower(BiasAddOp, lambda ins, attrs, outs: topi.bias_add(*ins, attrs["axis"])),
    lower(SoftmaxOp, lambda ins, attrs, outs: _softmax(ins[0], attrs["axis"])),
    lower(
        LogSoftmaxOp, lambda ins, attrs, outs: topi.log_softmax(ins[0], attrs["axis"])
    ),
    lower(HardmaxOp, lambda ins, attrs, outs: topi.hardmax(ins[0], attrs["axis"])),
    lower(BatchNormOp, lambda ins, attrs, outs: topi.batch_norm(*ins, **attrs)),
    lower(LrnOp, lambda ins, attrs, outs: x86.lrn(ins[0], **attrs)),
    lower(DropoutOp, lambda ins, attrs, outs: topi.dropout(ins[0])),
    lower(BatchFlattenOp, lambda ins, attrs, outs: topi.batch_flatten(ins[0])),
]
OPS = ops_of(PATTERNS)
