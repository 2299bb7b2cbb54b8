"""relay.if and relay.while at the relay level: parsed from text, verified,
and evaluated with the NumPy semantics (``xtvm.reference.relay.control``)
against NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import Builtin
from xdsl.parser import Parser

from xtvm.dialects.relay import RELAY
from xtvm.passes.relay.evaluate import evaluate_function
from xtvm.reference.relay import control

LIT = Path(__file__).parents[2] / "lit" / "dialects" / "relay" / "control.mlir"


@pytest.fixture(scope="module")
def module():
    ctx = Context()
    for dialect in (Builtin, func.Func, RELAY):
        ctx.load_dialect(dialect)
    parsed = Parser(ctx, LIT.read_text()).parse_module()
    parsed.verify()
    return parsed


@pytest.mark.parametrize("cond", [True, False])
def test_select(module, cond):
    x, y = np.arange(5, dtype=np.float32), np.full(5, 2, np.float32)
    (got,) = evaluate_function(module, "select", [np.array(cond), x, y])
    np.testing.assert_array_equal(got, x + y if cond else x)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_power_loop(module, n):
    """The body multiplies the accumulator by x n times: x ** (n + 1)."""
    x = np.array([1.5, -2.0], np.float32)
    (got,) = evaluate_function(module, "power", [x, np.array(n, np.int64)])
    np.testing.assert_allclose(got, x ** (n + 1), rtol=1e-6)


def test_join_of_different_sizes(module):
    (got,) = evaluate_function(
        module,
        "join",
        [np.array([False]), *(np.ones(n, np.float32) for n in (5, 3, 2))],
    )
    assert got.shape == (3,)


def test_condition_must_hold_one_element():
    with pytest.raises(ValueError, match="a condition must hold one element, got shape"):
        control.if_(np.array([True, False]), lambda _: [], lambda _: [])


def test_while_without_end_is_an_error(monkeypatch):
    monkeypatch.setattr(control, "MAX_ITERATIONS", 5)
    with pytest.raises(ValueError, match="did not stop after 5 iterations"):
        control.while_([np.array(0)], lambda v: [np.array(True)], lambda v: v)
