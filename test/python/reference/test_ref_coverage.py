"""Every relay op has a docstring with IR, a NumPy reference, a round-trip lit
test and the pattern kind TVM registers for it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xtvm.dialects.relay import (
    RELAY_OPS,
    CallLoweredOp,
    ConstOp,
    OpPattern,
    RelayOp,
    TupleGetOp,
    TupleOp,
)
from xtvm.reference.relay import REFERENCES

LIT = Path(__file__).parents[2] / "lit" / "dialects" / "relay"
# Structural ops: constants are their own value, tuples are plumbing and
# call_lowered runs compiled code.
NO_REFERENCE = {ConstOp, TupleOp, TupleGetOp, CallLoweredOp}

PATTERNS = {
    "relay.nn.conv2d": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.max_pool2d": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.avg_pool2d": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.global_max_pool2d": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.global_avg_pool2d": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.batch_norm": OpPattern.OPAQUE,
    **{f"relay.nn.conv{n}d": OpPattern.OUT_ELEMWISE_FUSABLE for n in (1, 3)},
    **{f"relay.nn.conv{n}d_transpose": OpPattern.OUT_ELEMWISE_FUSABLE for n in (1, 2)},
    "relay.nn.max_pool1d": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.max_pool2d_with_argmax": OpPattern.OPAQUE,
    "relay.nn.avg_pool3d": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.log_softmax": OpPattern.OPAQUE,
    "relay.nn.hardmax": OpPattern.OPAQUE,
    "relay.prod": OpPattern.COMM_REDUCE,
    "relay.argmax": OpPattern.COMM_REDUCE,
    "relay.argmin": OpPattern.COMM_REDUCE,
    "relay.topk": OpPattern.OPAQUE,
    "relay.cumsum": OpPattern.OPAQUE,
    "relay.cumprod": OpPattern.OPAQUE,
    "relay.reinterpret": OpPattern.ELEMWISE,
    "relay.det": OpPattern.OPAQUE,
    "relay.einsum": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.nn.lrn": OpPattern.OPAQUE,
    "relay.nn.dropout": OpPattern.OPAQUE,
    "relay.nn.batch_flatten": OpPattern.INJECTIVE,
    "relay.concatenate": OpPattern.INJECTIVE,
    "relay.split": OpPattern.INJECTIVE,
    "relay.squeeze": OpPattern.INJECTIVE,
    "relay.expand_dims": OpPattern.INJECTIVE,
    "relay.take": OpPattern.INJECTIVE,
    "relay.strided_slice": OpPattern.INJECTIVE,
    "relay.clip": OpPattern.ELEMWISE,
    "relay.cast": OpPattern.ELEMWISE,
    "relay.full": OpPattern.ELEMWISE,
    "relay.shape_of": OpPattern.OPAQUE,
    "relay.gather": OpPattern.INJECTIVE,
    "relay.gather_nd": OpPattern.INJECTIVE,
    "relay.scatter_elements": OpPattern.OPAQUE,
    "relay.scatter_nd": OpPattern.OPAQUE,
    "relay.broadcast_to": OpPattern.BROADCAST,
    "relay.tile": OpPattern.INJECTIVE,
    "relay.reverse_sequence": OpPattern.INJECTIVE,
    "relay.nn.pad": OpPattern.INJECTIVE,
    "relay.nn.depth_to_space": OpPattern.INJECTIVE,
    "relay.nn.space_to_depth": OpPattern.INJECTIVE,
    "relay.arange": OpPattern.INJECTIVE,
    "relay.one_hot": OpPattern.OUT_ELEMWISE_FUSABLE,
    "relay.trilu": OpPattern.ELEMWISE,
    **{f"relay.image.resize{d}d": OpPattern.INJECTIVE for d in (1, 2, 3)},
    **{
        f"relay.{n}": OpPattern.ELEMWISE
        for n in ("sigmoid", "tanh", "exp", "sqrt", "negative", "log", "abs")
    },
    **{f"relay.{n}": OpPattern.BROADCAST for n in ("maximum", "minimum", "power")},
    **{f"relay.{n}": OpPattern.COMM_REDUCE for n in ("sum", "mean", "max", "min")},
}


def _lit_text(kind: str) -> str:
    files = [p for p in LIT.glob("*.mlir") if p.stem.endswith("invalid") == (kind == "invalid")]
    return "\n".join(p.read_text() for p in files)


@pytest.mark.parametrize("op", RELAY_OPS, ids=lambda op: op.name)
def test_op_is_complete(op):
    assert op.__dict__.get("__doc__"), f"{op.name} has no docstring"
    # Family members (relay.exp, relay.sum, ...) show IR in their base's docstring.
    family = op.__mro__[: op.__mro__.index(RelayOp)]
    assert any("```mlir" in (cls.__doc__ or "") for cls in family), f"{op.name}: no IR example"
    if op not in NO_REFERENCE:
        assert op.name in REFERENCES, f"{op.name} has no NumPy reference"
    assert f"{op.name} " in _lit_text("round-trip"), f"{op.name} has no round-trip lit test"


def test_registered_names_are_unique_and_referenced_ops_exist():
    names = [op.name for op in RELAY_OPS]
    assert len(names) == len(set(names))
    assert set(REFERENCES) <= set(names)


@pytest.mark.parametrize("name", PATTERNS)
def test_pattern_kind(name):
    (op,) = [op for op in RELAY_OPS if op.name == name]
    assert op.PATTERN == PATTERNS[name]
    quoted = re.compile(rf"['\"]{re.escape(name)}['\"]")
    assert quoted.search(_lit_text("invalid")), f"{name} has no invalid-IR lit test"
