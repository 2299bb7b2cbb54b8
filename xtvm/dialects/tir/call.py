"""Calls out of TIR: `tir.call_extern` (C functions) and `tir.call_intrin` (LLVM intrinsics)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException


class _CallOpBase(IRDLOperation):
    """Shared fields of the two call ops: a callee name, arguments, at most one result."""

    callee = prop_def(StringAttr)
    args = var_operand_def()
    res = var_result_def()

    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"

    def __init__(
        self,
        callee: str,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute] = (),
    ):
        super().__init__(
            operands=[args],
            result_types=[result_types],
            properties={"callee": StringAttr(callee)},
        )

    def verify_(self) -> None:
        if len(self.res) > 1:
            raise VerifyException(f"{self.name} returns at most one value, got {len(self.res)}")
        if not self.callee.data:
            raise VerifyException(f"{self.name} needs a non-empty callee name")


@irdl_op_definition
class CallExternOp(_CallOpBase):
    """Calls an external C function by name (TVM `call_extern`), e.g. from libm.

    %r = tir.call_extern "expf"(%x) : (f32) -> f32
    """

    name = "tir.call_extern"


@irdl_op_definition
class CallIntrinOp(_CallOpBase):
    """Calls an LLVM intrinsic by its full name (TVM `call_llvm_intrin`).

    %r = tir.call_intrin "llvm.fma.f32"(%a, %b, %c) : (f32, f32, f32) -> f32
    """

    name = "tir.call_intrin"

    def verify_(self) -> None:
        super().verify_()
        if not self.callee.data.startswith("llvm."):
            raise VerifyException(
                f"tir.call_intrin callee must be an LLVM intrinsic name starting with "
                f"'llvm.', got {self.callee.data!r}"
            )


PREFETCH = "llvm.prefetch.p0"
"""`tir.call_intrin "llvm.prefetch.p0"(%v, rw, locality, cache)` with `%v` a
`tir.load` read by nothing else prefetches that element's address (LLVM's
`llvm.prefetch`: a hint, no value; on x86 `locality` 3 is `prefetcht0`, 2
`prefetcht1`, 1 `prefetcht2`, 0 `prefetchnta`); the load itself is not
emitted. The int8 convs prefetch their next weight block this way
(`xtvm.topi.x86.conv2d_int8.prefetch_next_block`)."""
