"""IR utilities every level shares: where an op came from, and how an error
about it reads.

Ops parsed from a file carry a ``FileLineColLoc`` (:mod:`xtvm.ir.parse`
attaches one to every op); ops built in Python carry none. Diagnostics use
:func:`location_of` to prefix ``file:line:col:`` and print the op itself;
:mod:`xtvm.ir.diagnostics` turns parser, verifier and pass errors into
located diagnostics, which the tools print with the source line.

Text in and out: :mod:`xtvm.ir.parse` reads a module with locations,
:mod:`xtvm.ir.printing` writes one with its weights (large constants as
MLIR ``dense_resource`` blobs), and :mod:`xtvm.ir.resources` holds the blob
format both share.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation


def location_of(op: Operation) -> str | None:
    """``file:line:col`` of ``op`` if it was parsed from a file, else None."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return None


def op_summary(op: Operation, limit: int = 400) -> str:
    """The op as IR text, cut to ``limit`` characters (regions can be huge)."""
    text = str(op)
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def describe_op(op: Operation) -> str:
    """``'name' at file:line:col`` (or ``'name'``) for messages."""
    where = location_of(op)
    return f"'{op.name}' at {where}" if where else f"'{op.name}'"
