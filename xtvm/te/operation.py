"""Tensors and the operations that produce them: ``te.placeholder``,
``te.compute`` and ``te.reduce_axis`` (TVM's ``te.Tensor``, ``PlaceholderOp``,
``ComputeOp``).

```python
A = te.placeholder((4, 8), "float32", name="A")
k = te.reduce_axis((0, 8), name="k")
S = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="S")
B = te.compute((4, 8), lambda i, j: A[i, j] / S[i], name="B")
```

A tensor is one output of one operation. An extent of a shape is an
``int``, or an ``index`` expression of shape variables known only at run
time (``n = te.var("n")``, see :mod:`xtvm.te.symbolic`). The axis
variables of a compute are named after the parameters of its function
(``i0, i1, ...`` for ``lambda *i``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from xtvm.te import dtype as dt
from xtvm.te.expr import (
    ExprOp,
    IterVar,
    PrimExpr,
    ProducerLoad,
    Reduce,
    Var,
    cast,
    convert,
)
from xtvm.te.symbolic import Dim
from xtvm.te.traversal import walk


@dataclass(frozen=True, eq=False)
class Operation:
    """Base of the operations: a name, a ``tag`` naming the op family (used by
    schedules, e.g. ``"dense"``, ``"elemwise"``) and free-form ``attrs``."""

    name: str
    tag: str
    attrs: dict[str, Any]

    @property
    def input_tensors(self) -> list[Tensor]:
        """The tensors this operation reads, in first-use order."""
        return []


@dataclass(frozen=True, eq=False)
class PlaceholderOp(Operation):
    """An input tensor, bound to a buffer argument of the lowered function."""


@dataclass(frozen=True, eq=False)
class ComputeOp(Operation):
    """A tensor defined elementwise by ``body`` over ``axis``; when ``body`` is
    a :class:`Reduce`, its axes are ``reduce_axis``."""

    axis: tuple[IterVar, ...]
    body: PrimExpr

    @property
    def reduce_axis(self) -> tuple[IterVar, ...]:
        return self.body.axis if isinstance(self.body, Reduce) else ()

    @property
    def input_tensors(self) -> list[Tensor]:
        seen: dict[int, Tensor] = {}
        for load in loads(self.body):
            seen.setdefault(id(load.producer), load.producer)
        return list(seen.values())


@dataclass(frozen=True, eq=False)
class Tensor:
    """The output of an operation; ``tensor[i, j]`` reads one element."""

    op: Operation
    shape: tuple[Dim, ...]
    dtype: str

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, indices: Any) -> PrimExpr:
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) == 1 and isinstance(indices[0], list | tuple):
            indices = tuple(indices[0])
        if len(indices) != self.ndim:
            raise IndexError(
                f"tensor {self.name} of shape {list(self.shape)} needs {self.ndim} "
                f"indices, got {len(indices)}"
            )
        index_exprs = []
        for i in indices:
            e = convert(i, "index")
            if not dt.is_int(e.dtype):
                raise TypeError(f"index {e!r} of {self.name} has dtype {e.dtype}; expected an integer")
            index_exprs.append(cast("index", e))
        return ProducerLoad(self, tuple(index_exprs))

    def __call__(self, *indices: Any) -> PrimExpr:
        return self[indices]

    def __repr__(self) -> str:
        return f"Tensor({self.name}, shape={list(self.shape)}, dtype={self.dtype})"


def loads(expr: PrimExpr) -> Iterator[ProducerLoad]:
    """Every tensor element read in ``expr`` (including reduction sources)."""
    return (e for e in walk(expr) if isinstance(e, ProducerLoad))


def _check_dim(d: Any, dims: Sequence[Any], what: str) -> Dim:
    """One extent: a non-negative ``int``, or an integer expression (as ``index``)."""
    if isinstance(d, IterVar):
        d = d.var
    if isinstance(d, PrimExpr) and dt.is_int(d.dtype) and d.dtype != "bool":
        return cast("index", d)
    if not isinstance(d, int) or isinstance(d, bool) or d < 0:
        raise ValueError(
            f"{what} shape {list(dims)} must be non-negative integers or shape variables"
        )
    return d


def _check_shape(shape: Sequence[Dim] | Dim, what: str) -> tuple[Dim, ...]:
    dims = (shape,) if isinstance(shape, int | PrimExpr) else tuple(shape)
    return tuple(_check_dim(d, dims, what) for d in dims)


def placeholder(
    shape: Sequence[Dim] | Dim, dtype: str = "float32", name: str = "placeholder"
) -> Tensor:
    """An input tensor of ``shape`` (extents may be shape variables)."""
    dims = _check_shape(shape, f"placeholder {name}")
    return Tensor(PlaceholderOp(name, "", {}), dims, dt.check_dtype(dtype))


def reduce_axis(dom: tuple[Dim, Dim], name: str = "rv") -> IterVar:
    """A reduction axis over ``[dom[0], dom[1])`` (``dom[1]`` may be a shape
    variable's expression)."""
    lo, hi = dom
    if isinstance(hi, PrimExpr) and isinstance(lo, int):
        return IterVar(Var(name, "index"), lo, _check_dim(hi, dom, f"reduce_axis {name}"), "comm_reduce")
    if not isinstance(lo, int) or not isinstance(hi, int) or hi < lo:
        raise ValueError(f"reduce_axis {name} needs integer bounds lo <= hi, got {dom}")
    return IterVar(Var(name, "index"), lo, hi, "comm_reduce")


def _axis_names(fcompute: Callable[..., Any], ndim: int) -> list[str]:
    params = list(inspect.signature(fcompute).parameters.values())
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return [f"i{d}" for d in range(ndim)]
    if len(params) != ndim:
        raise ValueError(
            f"te.compute of a {ndim}-d shape needs a function of {ndim} indices, "
            f"got one of {len(params)} parameters"
        )
    return [p.name for p in params]


def compute(
    shape: Sequence[Dim] | Dim,
    fcompute: Callable[..., Any],
    name: str = "compute",
    tag: str = "",
    attrs: dict[str, Any] | None = None,
) -> Tensor:
    """The tensor whose element ``[i0, i1, ...]`` is ``fcompute(i0, i1, ...)``.

    The body may be a reduction (``te.sum(..., axis=k)``), but only as a
    whole: ``te.sum(...) + 1`` needs a second compute. An ``index``-typed body
    is stored as ``int32``.
    """
    dims = _check_shape(shape, f"compute {name}")
    axis = tuple(IterVar(Var(n, "index"), 0, d) for n, d in zip(_axis_names(fcompute, len(dims)), dims))
    value = fcompute(*(a.var for a in axis))
    if not isinstance(value, ExprOp | int | float | bool):
        raise TypeError(f"compute {name} must return an expression, got {value!r}")
    body = convert(value)
    if body.dtype == "index":
        body = cast("int32", body)
    nested = body.source if isinstance(body, Reduce) else body
    for e in walk(nested):
        if isinstance(e, Reduce):
            raise ValueError(
                f"compute {name}: a reduction must be the whole body, found {e!r} "
                f"inside {body!r}; compute it in its own stage"
            )
    if isinstance(body, Reduce):
        for a in body.axis:
            if any(a.var is b.var for b in axis):
                raise ValueError(f"compute {name}: {a!r} is both a data and a reduction axis")
    op = ComputeOp(name, tag, dict(attrs or {}), axis, body)
    return Tensor(op, dims, body.dtype)
