"""Integer analysis of index expressions (TVM's `tvm.arith`).

* `constant`: reading, making and folding integer constants with exact
  two's complement semantics;
* `layout`: compact row-major strides and element offsets;
* `bound`: constant interval bounds of index expressions from constants and
  loop ranges, and the comparisons they decide.

`tir-simplify` is built on these; schedules and lowerings may use them too.
"""

from xtvm.arith.bound import UNKNOWN, Bound, const_int_bound, loop_extent, prove_cmpi
from xtvm.arith.constant import (
    BINARY_FOLDERS,
    INDEX_BITWIDTH,
    cmpi_predicate,
    fold_cmpi,
    int_constant,
    int_width,
    is_int_like,
    make_int_constant,
    to_signed,
    to_unsigned,
    trunc_div,
    trunc_rem,
)
from xtvm.arith.layout import compact_strides, row_major_offset

__all__ = [
    "BINARY_FOLDERS",
    "INDEX_BITWIDTH",
    "UNKNOWN",
    "Bound",
    "cmpi_predicate",
    "compact_strides",
    "const_int_bound",
    "fold_cmpi",
    "int_constant",
    "int_width",
    "is_int_like",
    "loop_extent",
    "make_int_constant",
    "prove_cmpi",
    "row_major_offset",
    "to_signed",
    "to_unsigned",
    "trunc_div",
    "trunc_rem",
]
