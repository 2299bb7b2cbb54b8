"""NumPy semantics of relay's control flow (``relay.if``, ``relay.while``).

Their bodies are regions, which only an IR evaluator can run: the evaluator
(``xtvm.passes.relay.evaluate``) passes each body as a Python callable from
values to values, and these functions say what is run when. A condition is
an ``i1`` tensor of one element (shape ``[]`` or ``[1]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Body = Callable[[Sequence[Any]], list[Any]]

MAX_ITERATIONS = 10_000_000
"""A loop still running after this many iterations is taken to be endless."""


def truth(condition: np.ndarray) -> bool:
    """The value of a condition tensor (one bool element)."""
    value = np.asarray(condition)
    if value.size != 1:
        raise ValueError(f"a condition must hold one element, got shape {list(value.shape)}")
    return bool(value.reshape(()))


def if_(condition: np.ndarray, then_body: Body, else_body: Body) -> list[Any]:
    """``relay.if``: the values of the branch the condition selects."""
    return then_body([]) if truth(condition) else else_body([])


def while_(inits: Sequence[Any], cond_body: Body, body: Body) -> list[Any]:
    """``relay.while``: from ``inits``, apply ``body`` while ``cond_body``
    (whose single result is a condition) holds; the last carried values."""
    carried = list(inits)
    for _ in range(MAX_ITERATIONS):
        (condition,) = cond_body(carried)
        if not truth(condition):
            return carried
        carried = body(carried)
    raise ValueError(f"relay.while did not stop after {MAX_ITERATIONS} iterations")
