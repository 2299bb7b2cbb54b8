"""Source patterns: trees of ops to match, with named captures.

``Pat(AddOp, "x", Pat(ConstOp, name="c"))`` matches a ``relay.add`` whose
first operand is any value (captured as ``x``) and whose second operand is
the result of a ``relay.const`` (captured as ``c``). An operand pattern is

* a string: capture the operand value under that name (a name used twice
  must bind the same value); ``"_"`` matches anything without capturing;
* a :class:`Pat`: the operand must be a result of an op that matches it;
* ``None``: anything.

``commutative=True`` also tries a binary op's operands swapped. Matching is
exhaustive: :func:`match` yields every way a pattern binds, so a rule's
constraints can reject one binding and accept the swapped one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Union

from xdsl.ir import Operation, OpResult, SSAValue

Capture = SSAValue | Operation
Captures = Mapping[str, Capture]
OperandPattern = Union["Pat", str, None]

ROOT = "root"
"""The capture name under which every rule sees its matched root op."""


class Pat:
    """A pattern for one op: its class, its operands' patterns and a capture name."""

    def __init__(
        self,
        op: type[Operation],
        *operands: OperandPattern,
        name: str | None = None,
        commutative: bool = False,
    ):
        if not (isinstance(op, type) and issubclass(op, Operation)):
            raise TypeError(f"Pat expects an op class first, got {op!r}")
        for operand in operands:
            if not (operand is None or isinstance(operand, str | Pat)):
                raise TypeError(
                    f"Pat({op.__name__}, ...): an operand pattern is a capture name, a Pat "
                    f"or None, got {operand!r}"
                )
        if commutative and len(operands) != 2:
            raise ValueError(
                f"Pat({op.__name__}, ...): commutative patterns need two operand patterns"
            )
        self.op = op
        self.operands: tuple[OperandPattern, ...] = operands
        self.name = name
        self.commutative = commutative

    def __repr__(self) -> str:
        parts = [self.op.__name__, *(repr(o) for o in self.operands)]
        if self.name is not None:
            parts.append(f"name={self.name!r}")
        if self.commutative:
            parts.append("commutative=True")
        return f"Pat({', '.join(parts)})"

    def captures(self) -> dict[str, str]:
        """Every capture name in the pattern → ``"op"`` or ``"value"``."""
        found: dict[str, str] = {}

        def add(name: str, kind: str) -> None:
            if found.setdefault(name, kind) != kind:
                raise ValueError(f"{self!r}: '{name}' names both an op and a value")

        def visit(pat: Pat) -> None:
            if pat.name is not None:
                add(pat.name, "op")
            for operand in pat.operands:
                if isinstance(operand, Pat):
                    visit(operand)
                elif isinstance(operand, str) and operand != "_":
                    add(operand, "value")

        visit(self)
        return found


def match(pattern: Pat, op: Operation) -> Iterator[dict[str, Capture]]:
    """Every binding of ``pattern`` rooted at ``op`` (``root`` is bound to ``op``)."""
    return _match_op(pattern, op, {ROOT: op})


def _bind(captures: dict[str, Capture], name: str, value: Capture) -> dict[str, Capture] | None:
    bound = captures.get(name)
    if bound is None:
        return {**captures, name: value}
    return captures if bound is value else None


def _match_op(
    pat: Pat, op: Operation, captures: dict[str, Capture]
) -> Iterator[dict[str, Capture]]:
    if not isinstance(op, pat.op):
        return
    if pat.name is not None:
        bound = _bind(captures, pat.name, op)
        if bound is None:
            return
        captures = bound
    if not pat.operands:
        yield captures
        return
    if len(op.operands) != len(pat.operands):
        return
    orders = [tuple(op.operands)]
    if pat.commutative:
        orders.append(orders[0][::-1])
    for operands in orders:
        yield from _match_operands(pat.operands, operands, captures)


def _match_operands(
    pats: Sequence[OperandPattern], values: Sequence[SSAValue], captures: dict[str, Capture]
) -> Iterator[dict[str, Capture]]:
    if not pats:
        yield captures
        return
    for bound in _match_value(pats[0], values[0], captures):
        yield from _match_operands(pats[1:], values[1:], bound)


def _match_value(
    pat: OperandPattern, value: SSAValue, captures: dict[str, Capture]
) -> Iterator[dict[str, Capture]]:
    if pat is None or pat == "_":
        yield captures
    elif isinstance(pat, str):
        bound = _bind(captures, pat, value)
        if bound is not None:
            yield bound
    elif isinstance(value, OpResult):
        yield from _match_op(pat, value.op, captures)
