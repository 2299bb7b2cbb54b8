"""Computes of ``relay.nn.*`` ops (convolution and pooling in ``conv`` and ``pool``)."""

from __future__ import annotations

from xtvm import topi
from xtvm.lowering.relay_to_tir.base import ComputeFn

COMPUTES: dict[str, ComputeFn] = {
    "relay.nn.relu": lambda ins, attrs, outs: topi.relu(ins[0]),
    "relay.nn.dense": lambda ins, attrs, outs: topi.dense(*ins),
    "relay.nn.matmul": lambda ins, attrs, outs: topi.matmul(
        *ins, bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b"))
    ),
    "relay.nn.bias_add": lambda ins, attrs, outs: topi.bias_add(*ins, attrs.get("axis", 1)),
    "relay.nn.softmax": lambda ins, attrs, outs: topi.softmax(ins[0], attrs.get("axis", -1)),
    "relay.nn.log_softmax": lambda ins, attrs, outs: topi.log_softmax(
        ins[0], attrs.get("axis", -1)
    ),
    "relay.nn.hardmax": lambda ins, attrs, outs: topi.hardmax(ins[0], attrs.get("axis", -1)),
    "relay.nn.batch_norm": lambda ins, attrs, outs: topi.batch_norm(*ins, **attrs),
    "relay.nn.lrn": lambda ins, attrs, outs: topi.lrn(ins[0], **attrs),
    "relay.nn.dropout": lambda ins, attrs, outs: topi.dropout(ins[0]),
    "relay.nn.batch_flatten": lambda ins, attrs, outs: topi.batch_flatten(ins[0]),
}
