"""Primitive functions: the fused groups that become one kernel each.

``relay-fuse-ops`` outlines each group of fused ops into a private
``func.func`` marked with the unit attribute ``relay.primitive``;
``convert-relay-to-tir`` lowers each such function (and each relay op left
alone in a graph function) to one ``tir.prim_func``. Both name the kernel
as TVM does: ``fused_`` and the op names without ``relay.``, with ``_1``,
``_2``, ... appended when the name is taken.

```mlir
func.func private @fused_nn_dense_add(%p0: tensor<1x8xf32>, ...) -> tensor<1x4xf32>
    attributes {relay.primitive} { ... }
```
"""

from __future__ import annotations

import hashlib
from collections.abc import Set
from typing import TypeGuard

from xdsl.dialects import func
from xdsl.ir import Operation

PRIMITIVE_ATTR = "relay.primitive"
"""The unit attribute marking a fused function (made by ``relay-fuse-ops``):
lowering turns each such function into one kernel."""

MAX_NAME_LENGTH = 80
"""Longer kernel names are cut and given a hash suffix (as TVM)."""


def is_primitive(op: Operation) -> TypeGuard[func.FuncOp]:
    """Whether ``op`` is a ``func.func`` marked ``relay.primitive``."""
    return isinstance(op, func.FuncOp) and PRIMITIVE_ATTR in op.attributes


def kernel_name(*op_names: str) -> str:
    """TVM's kernel name of ops, in program order: ``relay.nn.dense``,
    ``relay.add`` → ``fused_nn_dense_add`` (cut to ``MAX_NAME_LENGTH``
    characters plus a hash when longer)."""
    name = "fused_" + "_".join(n.removeprefix("relay.").replace(".", "_") for n in op_names)
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[:MAX_NAME_LENGTH]}_{digest}"
    return name


def unique_name(name: str, taken: Set[str]) -> str:
    """``name``, or the first of ``name_1``, ``name_2``, ... not in ``taken``."""
    unique, n = name, 0
    while unique in taken:
        n += 1
        unique = f"{name}_{n}"
    return unique
