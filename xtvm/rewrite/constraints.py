"""Constraints on captured values: the ``when=[...]`` part of a rule.

A constraint is a predicate over the captures of one match. The helpers
here cover the common relay checks; any Python function whose parameters
are capture names works too (``lambda x, root: ...``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from xtvm.dialects.relay import ConstOp, TransposeOp
from xtvm.constants import numpy_from_const
from xtvm.rewrite.pattern import Capture, Captures


@dataclass(frozen=True)
class Constraint:
    """A named predicate over the captures ``names`` of a match."""

    description: str
    names: tuple[str, ...]
    check: Callable[[Captures], bool]

    def __repr__(self) -> str:
        return self.description


def value_of(capture: Capture) -> SSAValue:
    """A captured value, or the single result of a captured op."""
    if isinstance(capture, SSAValue):
        return capture
    if len(capture.results) != 1:
        raise TypeError(f"'{capture.name}' has {len(capture.results)} results, not one value")
    return capture.results[0]


def const_of(capture: Capture) -> ConstOp | None:
    """The ``relay.const`` a capture is (or is the result of), else None."""
    op = capture if isinstance(capture, Operation) else capture.owner
    return op if isinstance(op, ConstOp) else None


def permutation_of(op: Operation) -> list[int]:
    """The axis permutation of a ``relay.transpose`` (its default: reversed)."""
    assert isinstance(op, TransposeOp)
    rank = len(op.input.type.get_shape())
    return TransposeOp.permutation(rank, op.attrs.get("axes"))


def const_value(name: str, value: float) -> Constraint:
    """``name`` is a ``relay.const`` whose elements all equal ``value`` (a splat
    or all-equal constant)."""

    def check(captures: Captures) -> bool:
        const = const_of(captures[name])
        return const is not None and bool(np.all(numpy_from_const(const) == value))

    return Constraint(f"const_value({name!r}, {value!r})", (name,), check)


def same_type(a: str, b: str) -> Constraint:
    """The values ``a`` and ``b`` (or the results of captured ops) have one type."""
    return Constraint(
        f"same_type({a!r}, {b!r})",
        (a, b),
        lambda c: value_of(c[a]).type == value_of(c[b]).type,
    )


def static_shape(name: str) -> Constraint:
    """The value ``name`` is a tensor without dynamic dimensions."""

    def check(captures: Captures) -> bool:
        ty = value_of(captures[name]).type
        return isinstance(ty, TensorType) and ty.has_static_shape()

    return Constraint(f"static_shape({name!r})", (name,), check)


def _compose(first: Sequence[int], then: Sequence[int]) -> list[int]:
    """The permutation of transposing by ``first``, then by ``then``."""
    return [first[a] for a in then]


def inverse_permutations(first: str, then: str) -> Constraint:
    """The transposes ``first`` and ``then`` undo each other."""

    def check(captures: Captures) -> bool:
        perm = _compose(permutation_of(captures[first]), permutation_of(captures[then]))
        return perm == list(range(len(perm)))

    return Constraint(f"inverse_permutations({first!r}, {then!r})", (first, then), check)


def identity_permutation(name: str) -> Constraint:
    """The transpose ``name`` keeps every axis in place."""
    return Constraint(
        f"identity_permutation({name!r})",
        (name,),
        lambda c: (p := permutation_of(c[name])) == list(range(len(p))),
    )


def composed_permutation(first: Operation, then: Operation) -> list[int]:
    """One permutation equal to transposing by ``first``, then by ``then``."""
    return _compose(permutation_of(first), permutation_of(then))
