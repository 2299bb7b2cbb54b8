"""The packed entry point `int32_t NAME(void** args, int32_t num_args)` in C.

The same checks, in the same order and with the same error codes, as the
llvm path's entry (docs/abi.md), from the one description of them,
`xtvm.lowering.tir_to_llvm.packed_api.argument_checks`: the argument count,
then per argument the tensor and its data not NULL, `ndim`, the dtype word,
every shape dimension, and the strides (NULL or compact); a dynamic axis
binds its shape variable (its first axis in argument order) or must equal
it; then `NAME_impl` is called with `data + byte_offset` of each tensor (a
scalar parameter's value is read there), then the shape variables.
"""

from __future__ import annotations

from xtvm.dialects.tir import DYNAMIC, PrimFuncOp
from xtvm.lowering.tir_to_c.types import c_type
from xtvm.lowering.tir_to_llvm.function import impl_name
from xtvm.lowering.tir_to_llvm.packed_api import (
    KIND_COUNT,
    KIND_DTYPE,
    KIND_NDIM,
    KIND_NULL,
    KIND_SHAPE,
    KIND_STRIDES,
    argument_checks,
)


def _fail(kind: int, index: int | str) -> str:
    return f"return ({kind} << 16) | {index};"


def packed_entry(func: PrimFuncOp, symbol: str | None = None) -> str:
    """The C text of the packed entry of `func` (named `symbol`, default its name)."""
    checks = argument_checks(func)
    axis_vars = func.axis_vars()
    bound: dict[str, str] = {}  # shape variable -> the C value it is bound to
    lines = [
        f"int32_t {symbol or func.sym_name.data}(void** args, int32_t num_args) {{",
        f"  if (num_args != {len(checks)}) {_fail(KIND_COUNT, '(num_args & 0xFFFF)')}",
    ]
    passed = []
    for check in checks:
        i = check.index
        t = f"t{i}"
        lines += [
            f"  const DLTensor* {t} = (const DLTensor*)args[{i}];",
            f"  if ({t} == NULL || {t}->data == NULL) {_fail(KIND_NULL, i)}",
            f"  if ({t}->ndim != {len(check.shape)}) {_fail(KIND_NDIM, i)}",
            f"  if (XTVM_DTYPE_WORD({t}) != {check.dtype_word:#x}u) {_fail(KIND_DTYPE, i)}",
        ]
        for k, extent in enumerate(check.shape):
            if extent != DYNAMIC:
                lines.append(f"  if ({t}->shape[{k}] != {extent}) {_fail(KIND_SHAPE, i)}")
            elif (var := axis_vars[(i, k)]) in bound:
                lines.append(f"  if ({t}->shape[{k}] != {bound[var]}) {_fail(KIND_SHAPE, i)}")
            else:  # the first axis of the variable binds it
                bound[var] = f"v{len(bound)}"
                lines.append(f"  const int64_t {bound[var]} = {t}->shape[{k}];")
        if DYNAMIC in check.shape:  # compact wherever the extent exceeds 1 at this call
            lines += [f"  if ({t}->strides != NULL) {{", "    int64_t expected = 1;"]
            for k in range(len(check.shape) - 1, -1, -1):
                lines.append(
                    f"    if ({t}->shape[{k}] != 1 && {t}->strides[{k}] != expected) "
                    + _fail(KIND_STRIDES, i)
                )
                if k:
                    lines.append(f"    expected *= {t}->shape[{k}];")
            lines.append("  }")
        elif check.strides:
            wrong = " || ".join(f"{t}->strides[{k}] != {s}" for k, s in check.strides)
            lines.append(f"  if ({t}->strides != NULL && ({wrong})) {_fail(KIND_STRIDES, i)}")
        start = f"(char*){t}->data + {t}->byte_offset"
        ty = c_type(check.type)
        passed.append(f"({ty})({start})" if check.is_buffer else f"*({ty}*)({start})")
    passed += [bound[var] for var in func.shape_vars]
    lines.append(f"  return {impl_name(func)}({', '.join(passed)});")
    lines.append("}")
    return "\n".join(lines)
