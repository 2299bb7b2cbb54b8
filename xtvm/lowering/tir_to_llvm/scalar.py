"""The scalar `arith`/`math` lowerings: the pattern list and the table derived from it.

`SCALAR_PATTERNS` lists the op-family patterns of the category files
(`arith.py`, `math.py`); `LOWERINGS` maps each op class to its family's
`lower`, which is how a prim_func's lowering and the vectorizer reach them.
An op in neither file has no lowering.
"""

from __future__ import annotations

import functools

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from xtvm.lowering.tir_to_llvm.arith import ARITH_PATTERNS
from xtvm.lowering.tir_to_llvm.emitter import Emitter, Externs
from xtvm.lowering.tir_to_llvm.math import MATH_PATTERNS
from xtvm.lowering.tir_to_llvm.scalar_pattern import Lowering, ScalarPattern
from xtvm.lowering.tir_to_llvm.types import LoweringError, StorageFloat

SCALAR_PATTERNS: tuple[type[ScalarPattern], ...] = (*ARITH_PATTERNS, *MATH_PATTERNS)


BIT_MOVES = frozenset({arith.BitcastOp, arith.SelectOp})
"""The ops that take storage-only floats (bf16, f8: integers in llvm), as
they move bits; any other op on one would compute on its bits as an integer."""


def _no_storage_floats(lower: Lowering) -> Lowering:
    """``lower``, refusing an op with a storage-only float operand or result
    (``__wrapped__`` is ``lower``)."""

    @functools.wraps(lower)
    def checked(op: Operation, operands: Sequence[SSAValue], em: Emitter, externs: Externs):
        for value in (*op.operands, *op.results):
            if isinstance(value.type, StorageFloat):
                raise LoweringError(
                    f"convert-tir-to-llvm: {op.name} does not compute on {value.type} "
                    "(a storage-only type): convert it to f32 first (te.cast does)"
                )
        return lower(op, operands, em, externs)

    return checked


def _table() -> dict[type[Operation], Lowering]:
    table: dict[type[Operation], Lowering] = {}
    for pattern in SCALAR_PATTERNS:
        for op in pattern.ops:
            assert op not in table, f"{op.name} is in two scalar families"
            table[op] = pattern.lower if op in BIT_MOVES else _no_storage_floats(pattern.lower)
    return table


LOWERINGS: dict[type[Operation], Lowering] = _table()
"""How each supported `arith`/`math` op becomes llvm; anything else is an error."""


def scalar_patterns(externs: Externs) -> list[ScalarPattern]:
    """The scalar patterns of one conversion, declaring libm functions in `externs`."""
    return [pattern(externs) for pattern in SCALAR_PATTERNS]
