"""``te``: TVM's tensor-expression DSL. Describe each output element as an
expression of the inputs; ``create_prim_func`` turns the description into a
``tir.prim_func`` loop program.

```python
from xtvm import te

A = te.placeholder((4, 8), name="A")
W = te.placeholder((16, 8), name="W")
k = te.reduce_axis((0, 8), name="k")
D = te.compute((4, 16), lambda i, j: te.sum(A[i, k] * W[j, k], axis=k), name="D")
R = te.compute((4, 16), lambda i, j: te.max(D[i, j], 0.0), name="R")
func = te.create_prim_func([A, W, R], "dense_relu")   # one loop nest
```

Modules: ``expr`` (the expression tree), ``intrin`` (scalar functions),
``reduction`` (reducers), ``traversal`` (walking and rewriting),
``operation`` (tensors, placeholder, compute),
``placement`` (inline / attach / materialize), ``emit`` (expressions to
ops), ``lower`` (loop nests, ``create_prim_func``), ``symbolic`` (shape
variables: extents known at run time, ``te.var("n")``).
"""

from xtvm.te.expr import IterVar, PrimExpr, Var, cast
from xtvm.te.intrin import (
    abs,
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    call_extern,
    call_intrin,
    ceil,
    const,
    copysign,
    cos,
    cosh,
    eager_select,
    erf,
    exp,
    floor,
    floordiv,
    floormod,
    if_then_else,
    isfinite,
    isinf,
    isnan,
    log,
    max_value,
    min_value,
    power,
    round,
    select,
    shift_left,
    shift_right,
    sigmoid,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
    truncdiv,
    truncmod,
)
from xtvm.te.lower import create_prim_func
from xtvm.te.operation import (
    ComputeOp,
    Operation,
    PlaceholderOp,
    Tensor,
    compute,
    placeholder,
    reduce_axis,
)
from xtvm.te.reduction import CommReducer, comm_reducer, max, min, sum
from xtvm.te.symbolic import assume_equal, require, shape_scope, var

__all__ = [
    "abs",
    "assume_equal",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "call_extern",
    "call_intrin",
    "cast",
    "ceil",
    "comm_reducer",
    "CommReducer",
    "compute",
    "ComputeOp",
    "const",
    "copysign",
    "cos",
    "cosh",
    "create_prim_func",
    "eager_select",
    "erf",
    "exp",
    "floor",
    "floordiv",
    "floormod",
    "if_then_else",
    "isfinite",
    "isinf",
    "isnan",
    "IterVar",
    "log",
    "max",
    "max_value",
    "min",
    "min_value",
    "Operation",
    "placeholder",
    "PlaceholderOp",
    "power",
    "PrimExpr",
    "reduce_axis",
    "require",
    "round",
    "select",
    "shape_scope",
    "shift_left",
    "shift_right",
    "sigmoid",
    "sin",
    "sinh",
    "sqrt",
    "sum",
    "tan",
    "tanh",
    "Tensor",
    "trunc",
    "truncdiv",
    "truncmod",
    "var",
    "Var",
]
