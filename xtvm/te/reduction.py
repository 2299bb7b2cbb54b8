"""Commutative reducers: ``te.sum``, ``te.max``, ``te.min`` and
``te.comm_reducer`` for new ones (TVM's ``CommReducer``).

```python
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
```

Called with two expressions and no axis, ``te.max(a, b)`` and ``te.min(a,
b)`` are elementwise, as in TVM.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xtvm.te import intrin
from xtvm.te.expr import (
    ExprOp,
    IterVar,
    Max,
    Min,
    PrimExpr,
    Reduce,
    _operands,
    binary,
    convert,
)


@dataclass(frozen=True, eq=False)
class CommReducer:
    """A commutative, associative ``combine`` with an ``identity`` element per dtype."""

    name: str
    combine: Callable[[PrimExpr, PrimExpr], PrimExpr]
    identity: Callable[[str], PrimExpr]

    def __call__(
        self,
        expr: Any,
        axis: IterVar | Sequence[IterVar] | Any = None,
        where: Any = None,
    ) -> PrimExpr:
        """The reduction of ``expr`` over ``axis`` (optionally only ``where``
        a condition holds), or ``combine(expr, axis)`` when ``axis`` is an
        expression and not an iteration variable."""
        if isinstance(axis, ExprOp | int | float) and not isinstance(axis, IterVar):
            a, b = _operands(expr, axis)
            return self.combine(a, b)
        if axis is None:
            raise TypeError(f"te.{self.name} needs axis=: a reduce_axis or a list of them")
        axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
        for a in axes:
            if not isinstance(a, IterVar) or a.kind != "comm_reduce":
                raise TypeError(f"te.{self.name} axis must be made by te.reduce_axis, got {a!r}")
        source = convert(expr)
        condition = None if where is None else convert(where, "bool")
        if condition is not None and condition.dtype != "bool":
            raise TypeError(f"te.{self.name} where= needs a bool condition, got {condition!r}")
        return Reduce(self, source, axes, condition)


def comm_reducer(
    fcombine: Callable[[PrimExpr, PrimExpr], PrimExpr],
    fidentity: Callable[[str], PrimExpr],
    name: str = "reduce",
) -> CommReducer:
    """A reducer from ``fcombine(lhs, rhs)`` and ``fidentity(dtype)``."""
    return CommReducer(name, fcombine, fidentity)


sum = comm_reducer(lambda x, y: x + y, lambda t: intrin.const(0, t), name="sum")  # noqa: A001
max = comm_reducer(lambda x, y: binary(Max, x, y), intrin.min_value, name="max")  # noqa: A001
min = comm_reducer(lambda x, y: binary(Min, x, y), intrin.max_value, name="min")  # noqa: A001
