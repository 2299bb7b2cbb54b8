"""Liveness of the tensors of a straight-line graph function.

Positions are indices of the function's ops. A tensor that a kernel writes —
a ``relay.call_lowered`` result, or a ``memory.alloc_tensor`` result (which
its ``memory.invoke_kernel`` writes) — is *planned*: it lives from its
defining op to the last op that uses it. A returned tensor's last use is
``func.return``, the last op, so no kernel overwrites an output. Graph
inputs and ``relay.const`` results are *external*: the caller or the
parameters own them.

``relay.tuple`` and ``relay.tuple_get`` only group values: a use of a tuple
is a use of every tensor inside it, a use of a field taken out of one with
``relay.tuple_get`` a use of that field (the ``relay.tuple_get`` itself is
not). ``memory.kill`` ops are markers derived from this analysis and are not
uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from io import StringIO

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException

from xtvm.dialects.memory import (
    MAX_STORAGE_BYTES,
    AllocTensorOp,
    KillOp,
    format_bytes,
    tensor_nbytes,
)
from xtvm.dialects.relay import CallLoweredOp, ConstOp, TupleGetOp, TupleOp
from xtvm.passes.memory.planner import Lifetime


class MemoryPlanError(DiagnosticException):
    """The graph function cannot be planned statically."""


def op_text(op: Operation) -> str:
    """The op in its custom syntax, for error messages."""
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


@dataclass
class GraphLiveness:
    """The lifetimes of one graph function's tensors."""

    ops: list[Operation]
    external: list[SSAValue] = field(default_factory=list)
    """Graph inputs, then constants, in program order."""
    lifetimes: dict[SSAValue, Lifetime] = field(default_factory=dict)
    """Every planned tensor, in program order."""
    outputs: set[SSAValue] = field(default_factory=set)
    """Planned tensors that the function returns."""

    def whole_program(self, nbytes: int) -> Lifetime:
        """The lifetime of an external tensor: before the first op to after the last."""
        return Lifetime(-1, len(self.ops), nbytes)


def static_nbytes(value: SSAValue, what: str) -> int:
    """The byte size of a tensor value, or a :class:`MemoryPlanError` naming it."""
    nbytes = tensor_nbytes(value.type)
    if nbytes is None:
        owner = value.owner
        where = f":\n{op_text(owner)}" if isinstance(owner, Operation) else ""
        raise MemoryPlanError(
            f"memory planning: {what} has type {value.type}, which has no static size "
            f"(dynamic shapes take the vm path){where}"
        )
    if nbytes > MAX_STORAGE_BYTES:
        owner = value.owner
        where = f":\n{op_text(owner)}" if isinstance(owner, Operation) else ""
        raise MemoryPlanError(
            f"memory planning: {what} ({value.type}) needs {format_bytes(nbytes)}, more than "
            f"can be allocated (a {format_bytes(MAX_STORAGE_BYTES)} address space){where}"
        )
    return nbytes


def check_straight_line(fn: func.FuncOp) -> None:
    """Raise unless ``fn`` is one block of ops without regions."""
    if len(fn.body.blocks) != 1:
        raise MemoryPlanError(
            f"memory planning needs a straight-line graph function; "
            f"@{fn.sym_name.data} has {len(fn.body.blocks)} blocks"
        )
    for op in fn.body.block.ops:
        if op.regions:
            raise MemoryPlanError(
                f"memory planning needs a straight-line graph function; @{fn.sym_name.data} "
                f"holds '{op.name}' with regions (control flow takes the vm path):\n{op_text(op)}"
            )


def tensors_in(value: SSAValue) -> Iterator[SSAValue]:
    """The tensors a value stands for: itself, or those inside a relay tuple."""
    owner = value.owner
    if isinstance(owner, TupleOp):
        for f in owner.fields:
            yield from tensors_in(f)
    elif isinstance(owner, TupleGetOp) and isinstance(owner.tuple.owner, TupleOp):
        index = owner.index.value.data
        yield from tensors_in(owner.tuple.owner.fields[index])
    else:
        yield value


def analyze_liveness(fn: func.FuncOp) -> GraphLiveness:
    """Lifetimes of the planned tensors of a straight-line graph function."""
    check_straight_line(fn)
    ops = list(fn.body.block.ops)
    live = GraphLiveness(ops, external=list(fn.args))
    for i, op in enumerate(ops):
        if isinstance(op, KillOp | TupleGetOp):
            continue  # a field taken out of a tuple is used where the field is used
        for operand in op.operands:
            for t in tensors_in(operand):
                if (lifetime := live.lifetimes.get(t)) is None:
                    continue
                live.lifetimes[t] = Lifetime(lifetime.start, i, lifetime.nbytes)
                if isinstance(op, func.ReturnOp):
                    live.outputs.add(t)
        if isinstance(op, ConstOp):
            live.external.append(op.result)
        elif isinstance(op, CallLoweredOp):
            callee = op.callee.string_value()
            for k, r in enumerate(op.res):
                nbytes = static_nbytes(r, f"result {k} of the call of @{callee}")
                live.lifetimes[r] = Lifetime(i, i, nbytes)
        elif isinstance(op, AllocTensorOp):
            live.lifetimes[op.result] = Lifetime(i, i, op.nbytes)
    return live
