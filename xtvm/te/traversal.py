"""Walking and rewriting tensor expressions (TVM's ``ExprFunctor`` /
``post_order_visit`` / ``substitute``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields, replace
from typing import Any

from xtvm.te.expr import BinaryOp, PrimExpr, Var, binary


def children(expr: PrimExpr) -> Iterator[PrimExpr]:
    """The direct subexpressions of ``expr`` (not the axes of a Reduce)."""
    for f in fields(expr):
        value = getattr(expr, f.name)
        if isinstance(value, PrimExpr):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, PrimExpr))


def walk(expr: PrimExpr) -> Iterator[PrimExpr]:
    """Every node of ``expr`` in pre-order, a shared node once (expressions
    are DAGs: a chain of bit-level float conversions reuses each value many
    times, and a walk per use would take exponential time)."""
    seen: set[int] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        stack.extend(reversed(list(children(e))))


def map_children(expr: PrimExpr, fn: Callable[[PrimExpr], PrimExpr]) -> PrimExpr:
    """``expr`` with ``fn`` applied to each direct subexpression; the node
    itself when nothing changed. Arithmetic is rebuilt with folding."""
    changes: dict[str, Any] = {}
    for f in fields(expr):
        value = getattr(expr, f.name)
        if isinstance(value, PrimExpr):
            new = fn(value)
            if new is not value:
                changes[f.name] = new
        elif isinstance(value, tuple) and any(isinstance(v, PrimExpr) for v in value):
            new_tuple = tuple(fn(v) for v in value)
            if any(n is not v for n, v in zip(new_tuple, value)):
                changes[f.name] = new_tuple
    if not changes:
        return expr
    if isinstance(expr, BinaryOp):
        return binary(type(expr), changes.get("a", expr.a), changes.get("b", expr.b))
    return replace(expr, **changes)


def post_order_map(expr: PrimExpr, fn: Callable[[PrimExpr], PrimExpr]) -> PrimExpr:
    """Rebuild ``expr`` bottom-up, applying ``fn`` to every rebuilt node.
    A node shared in the tree is rewritten once."""
    done: dict[int, PrimExpr] = {}

    def visit(e: PrimExpr) -> PrimExpr:
        key = id(e)
        if key not in done:
            done[key] = fn(map_children(e, visit))
        return done[key]

    return visit(expr)


def substitute(expr: PrimExpr, mapping: dict[Var, PrimExpr]) -> PrimExpr:
    """``expr`` with variables replaced by expressions."""
    by_id = {id(v): e for v, e in mapping.items()}
    return post_order_map(expr, lambda e: by_id.get(id(e), e) if isinstance(e, Var) else e)
