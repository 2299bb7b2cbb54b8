"""The scalar `arith`/`math` lowerings: the pattern list and the table derived from it.

`SCALAR_PATTERNS` lists the op-family patterns of the category files
(`arith.py`, `math.py`); `LOWERINGS` maps each op class to its family's
`lower`, which is how a prim_func's lowering and the vectorizer reach them.
An op in neither file has no lowering.
"""

from __future__ import annotations

from xdsl.ir import Operation

from xtvm.lowering.tir_to_llvm.arith import ARITH_PATTERNS
from xtvm.lowering.tir_to_llvm.emitter import Externs
from xtvm.lowering.tir_to_llvm.math import MATH_PATTERNS
from xtvm.lowering.tir_to_llvm.scalar_pattern import Lowering, ScalarPattern

SCALAR_PATTERNS: tuple[type[ScalarPattern], ...] = (*ARITH_PATTERNS, *MATH_PATTERNS)


def _table() -> dict[type[Operation], Lowering]:
    table: dict[type[Operation], Lowering] = {}
    for pattern in SCALAR_PATTERNS:
        for op in pattern.ops:
            assert op not in table, f"{op.name} is in two scalar families"
            table[op] = pattern.lower
    return table


LOWERINGS: dict[type[Operation], Lowering] = _table()
"""How each supported `arith`/`math` op becomes llvm; anything else is an error."""


def scalar_patterns(externs: Externs) -> list[ScalarPattern]:
    """The scalar patterns of one conversion, declaring libm functions in `externs`."""
    return [pattern(externs) for pattern in SCALAR_PATTERNS]
