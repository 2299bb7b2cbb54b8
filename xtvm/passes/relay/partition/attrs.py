"""The attributes the partitioning passes write and read, and lookups on them.

* ``relay.composite = "dnnl.conv2d_bias_relu"`` on a ``func.func``: a
  composite function (``relay-merge-composite``), called with ``func.call``;
* ``relay.target = "dnnl"`` on an op of a graph function: the codegen that
  takes it (``relay-annotate-target``);
* ``relay.region = N`` on an annotated op: its region
  (``relay-merge-compiler-regions``; an annotated op without one is a region
  of its own);
* ``relay.compiler = "dnnl"`` and ``relay.global_symbol`` on a
  ``func.func``: a partitioned function (``relay-partition-graph``), the
  input of ``relay-external-codegen``.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from xtvm.dialects.relay.primitive import PRIMITIVE_ATTR

COMPOSITE_ATTR = "relay.composite"
TARGET_ATTR = "relay.target"
REGION_ATTR = "relay.region"
COMPILER_ATTR = "relay.compiler"
GLOBAL_SYMBOL_ATTR = "relay.global_symbol"

_NOT_GRAPH = (PRIMITIVE_ATTR, COMPOSITE_ATTR, COMPILER_ATTR)


def is_graph_function(op: Operation) -> bool:
    """A ``func.func`` with a body that is a graph (not a fused, composite
    or partitioned function)."""
    return (
        isinstance(op, func.FuncOp)
        and not op.is_declaration
        and not any(a in op.attributes for a in _NOT_GRAPH)
    )


def graph_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The module's graph functions, in order."""
    return [op for op in module.ops if is_graph_function(op)]  # type: ignore[misc]


def string_attr(op: Operation, name: str) -> str | None:
    """The string attribute ``name`` of ``op``, or None."""
    value = op.attributes.get(name)
    return value.data if isinstance(value, StringAttr) else None


def functions_by_name(module: ModuleOp) -> dict[str, func.FuncOp]:
    """Every ``func.func`` of the module by symbol name."""
    return {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}


def composite_callee(op: Operation, functions: dict[str, func.FuncOp]) -> func.FuncOp | None:
    """The composite function ``op`` calls, if it is such a call."""
    if isinstance(op, func.CallOp):
        callee = functions.get(op.callee.string_value())
        if callee is not None and COMPOSITE_ATTR in callee.attributes:
            return callee
    return None


def ops_of(function: func.FuncOp) -> Iterator[Operation]:
    """The ops of a function's single block."""
    yield from function.body.block.ops
