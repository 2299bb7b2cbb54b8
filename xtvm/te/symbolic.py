"""Symbolic dimensions: tensor shapes whose extents are known only at run
time (TVM's ``te.var`` / ``te.size_var`` in a shape).

```python
n = te.var("n")
A = te.placeholder((n, 784), name="A")
B = te.compute((n, 784), lambda i, j: A[i, j] * 2.0, name="B")
func = te.create_prim_func([A, B], "double")  # loops over [0, n); n read from A at call time
```

A dimension (:data:`Dim`) is a Python ``int`` or an ``index`` expression
over shape variables (:func:`var`). ``create_prim_func`` binds each shape
variable from the first argument axis whose extent is exactly that variable,
and the kernel's entry checks every other argument axis that names it
(``tir.shape_vars``, see ``docs/dynamic-shapes.md``).

Two computations may need two variables to be equal at run time (adding two
``?x784`` tensors elementwise). :func:`assume_equal` records that inside a
:func:`shape_scope`; ``create_prim_func``, run in the same scope, then
treats them as one variable: one value in the loops, and the entry checks
that both argument axes hold it. Other conditions (a ``?`` broadcast to a
static 5 must be 1 or 5) are required with :func:`require`: the kernel
asserts them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from xtvm.te.expr import IntImm, PrimExpr, Var
from xtvm.te.traversal import walk

Dim = int | PrimExpr
"""One extent of a shape: a static ``int`` or an ``index`` expression of
shape variables."""


def var(name: str = "n") -> Var:
    """A shape variable: an ``index`` extent known only at run time."""
    return Var(name, "index")


def is_static(shape: Sequence[Dim]) -> bool:
    """Whether every extent of ``shape`` is a Python ``int``."""
    return all(isinstance(d, int) for d in shape)


def static_value(dim: Dim) -> int | None:
    """``dim`` as an ``int`` when it is one (or a constant expression), else None."""
    if isinstance(dim, int):
        return dim
    return dim.value if isinstance(dim, IntImm) else None


def free_vars(dims: Sequence[Dim]) -> list[Var]:
    """The shape variables the extents ``dims`` use, in first-use order."""
    found: dict[int, Var] = {}
    for d in dims:
        if not isinstance(d, int):
            for e in walk(d):
                if isinstance(e, Var):
                    found.setdefault(id(e), e)
    return list(found.values())


def format_dim(dim: Dim) -> str:
    return str(dim) if isinstance(dim, int) else repr(dim)


class ShapeEqualities:
    """Shape variables assumed equal (a union-find over variables by
    identity; the representative of a class is its first variable), and the
    conditions on them that the kernel checks when it is called
    (:func:`require`)."""

    def __init__(self) -> None:
        self._parent: dict[int, Var] = {}
        self.requirements: list[tuple[PrimExpr, str]] = []

    def find(self, v: Var) -> Var:
        """The representative of ``v``'s class (``v`` when it is alone)."""
        while (parent := self._parent.get(id(v))) is not None and parent is not v:
            v = parent
        return v

    def union(self, a: Var, b: Var) -> Var:
        """Put ``a`` and ``b`` in one class; return its representative."""
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self._parent[id(rb)] = ra
            self._parent.setdefault(id(ra), ra)
        return ra


_SCOPE: ContextVar[ShapeEqualities | None] = ContextVar("xtvm_te_shape_scope", default=None)


@contextmanager
def shape_scope() -> Iterator[ShapeEqualities]:
    """A scope in which :func:`assume_equal` records equalities of shape
    variables for the kernels built inside it (``create_prim_func``)."""
    scope = ShapeEqualities()
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def current_equalities() -> ShapeEqualities:
    """The equalities of the innermost :func:`shape_scope` (an empty set outside one)."""
    return _SCOPE.get() or ShapeEqualities()


def same_dims(a: Sequence[Dim], b: Sequence[Dim]) -> bool:
    """Whether two shapes are the same: equal static extents and, for shape
    variables, one class of the current :func:`shape_scope`'s equalities
    (``?x64`` with one ``?`` unified with the other by a matmul)."""
    equal = current_equalities()
    return len(a) == len(b) and all(
        x == y if isinstance(x, int) and isinstance(y, int)
        else x is y or (isinstance(x, Var) and isinstance(y, Var) and equal.find(x) is equal.find(y))
        for x, y in zip(a, b)
    )


def require(condition: PrimExpr, message: str) -> None:
    """Make the kernel being built (in the current :func:`shape_scope`)
    check ``condition``, a ``bool`` expression of shape variables, when it is
    called: a ``tir.assert`` with ``message`` after the variables are read.
    Outside a scope it is a ``ValueError`` (nothing would check it)."""
    scope = _SCOPE.get()
    if scope is None:
        raise ValueError(f"{message}: a run-time check needs te.shape_scope()")
    scope.requirements.append((condition, message))


def assume_equal(a: Dim, b: Dim, what: str) -> Dim:
    """The one extent two extents ``a`` and ``b`` must share at run time
    (``what`` names the computation, for the error). Equal static extents
    give themselves; two shape variables are unified in the current
    :func:`shape_scope` (the kernel's entry checks that both hold the same
    value); anything else that cannot be proven equal is a ``ValueError``."""
    if a is b or (isinstance(a, int) and isinstance(b, int) and a == b):
        return a
    scope = _SCOPE.get()
    if isinstance(a, Var) and isinstance(b, Var) and scope is not None:
        return scope.union(a, b)
    raise ValueError(
        f"{what}: the extents {format_dim(a)} and {format_dim(b)} must be equal, which "
        "cannot be checked when the kernel is built"
        + ("" if scope is not None or isinstance(a, int) else " (outside te.shape_scope())")
    )
