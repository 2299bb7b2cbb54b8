"""A small builder of llvm-dialect control-flow graphs: blocks, constants, branches."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.lowering.tir_to_llvm.types import LoweringError

OpT = TypeVar("OpT", bound=Operation)

# Constants, GEPs and loads are most of a model's llvm ops: they are created
# from shared (immutable) attributes with `Op.create`, which skips the
# per-op argument and property checks of IRDL constructors (~5x faster).
_PTR = llvm.LLVMPointerType()
_GEP_SSA_INDEX = DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])
_NO_WRAP = IntegerAttr(0, 32)
_UNIT = UnitAttr()


_ORDERING = IntegerAttr(0, i64)  # a non-atomic load


@lru_cache(maxsize=4096)
def _int_attr(value: int, ty: IntegerType) -> IntegerAttr:
    return IntegerAttr(int(value), ty)


@lru_cache(maxsize=None)
def _icmp_flag(predicate: str) -> IntegerAttr:
    return IntegerAttr(llvm.ICmpPredicateFlag(predicate).to_int(), i64)


class Emitter:
    """Appends llvm ops to a current block of one function region."""

    def __init__(self, region: Region, block: Block | None = None):
        """Emit into `block`, or into a new first block of `region`."""
        self.region = region
        self.block = self.new_block() if block is None else block

    def new_block(self, arg_types: Sequence[Attribute] = ()) -> Block:
        """A new block at the end of the region (not made current)."""
        block = Block(arg_types=arg_types)
        self.region.add_block(block)
        return block

    def emit(self, op: OpT) -> OpT:
        """Append `op` to the current block."""
        self.block.add_op(op)
        return op

    def value(self, op: Operation) -> SSAValue:
        """Append a single-result op and return its result."""
        return self.emit(op).results[0]

    def int_const(self, value: int, ty: Attribute = i64) -> SSAValue:
        assert isinstance(ty, IntegerType)
        if ty == i1:
            value = -1 if value else 0
        attr = _int_attr(value, ty)
        return self.value(llvm.ConstantOp.create(result_types=[ty], properties={"value": attr}))

    def float_const(self, value: float, ty: Attribute) -> SSAValue:
        attr = FloatAttr(value, ty)  # type: ignore[arg-type]  (not cached: 0.0 == -0.0)
        return self.value(llvm.ConstantOp.create(result_types=[ty], properties={"value": attr}))

    def icmp(self, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.value(llvm.ICmpOp(lhs, rhs, _icmp_flag(predicate)))

    def add(self, lhs: SSAValue, rhs: SSAValue, nsw: bool = True) -> SSAValue:
        return self.value(llvm.AddOp(lhs, rhs, overflow=_nsw(nsw)))

    def mul(self, lhs: SSAValue, rhs: SSAValue, nsw: bool = True) -> SSAValue:
        return self.value(llvm.MulOp(lhs, rhs, overflow=_nsw(nsw)))

    def gep(self, base: SSAValue, index: SSAValue, element: Attribute) -> SSAValue:
        """`&base[index]` over elements of type `element` (inbounds)."""
        properties = {
            "rawConstantIndices": _GEP_SSA_INDEX,
            "elem_type": element,
            "noWrapFlags": _NO_WRAP,
            "inbounds": _UNIT,
        }
        return self.value(
            llvm.GEPOp.create(operands=[base, index], result_types=[_PTR], properties=properties)
        )

    def byte_gep(self, base: SSAValue, offset: int) -> SSAValue:
        """`base + offset` bytes (inbounds)."""
        return self.value(llvm.GEPOp(base, [offset], IntegerType(8), inbounds=True))

    def load(self, ptr: SSAValue, ty: Attribute, align: int) -> SSAValue:
        properties = {"ordering": _ORDERING, "alignment": _int_attr(align, i64)}
        return self.value(
            llvm.LoadOp.create(operands=[ptr], result_types=[ty], properties=properties)
        )

    def is_null(self, ptr: SSAValue) -> SSAValue:
        """`ptr == NULL` as i1 (llvm.icmp takes no pointers in xDSL: via ptrtoint)."""
        return self.icmp("eq", self.value(llvm.PtrToIntOp(ptr, i64)), self.int_const(0))

    def not_null(self, ptr: SSAValue) -> SSAValue:
        """`ptr != NULL` as i1."""
        return self.icmp("ne", self.value(llvm.PtrToIntOp(ptr, i64)), self.int_const(0))

    def br(self, dest: Block, *args: SSAValue) -> None:
        self.emit(llvm.BrOp(dest, *args))

    def cond_br(
        self,
        cond: SSAValue,
        then: Block,
        else_: Block,
        then_args: Sequence[SSAValue] = (),
        else_args: Sequence[SSAValue] = (),
    ) -> None:
        self.emit(llvm.CondBrOp(cond, then, then_args, else_, else_args))

    def ret(self, value: SSAValue) -> None:
        self.emit(llvm.ReturnOp(value))

    def ret_code(self, code: int) -> None:
        """`return code` as i32."""
        self.ret(self.int_const(code, i32))


@lru_cache(maxsize=None)
def _nsw(enabled: bool) -> IntegerAttr:
    """The overflow flags of an add or mul (as the i32 attribute the op
    stores: given an ``OverflowAttr``, its constructor converts it again
    for every op)."""
    flags = llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP] if enabled else "none")
    return IntegerAttr(flags.to_int(), 32)


class Externs:
    """The external C functions a module calls, declared once each.

    A second use of the same name with another signature is an error.
    """

    def __init__(self) -> None:
        self.signatures: dict[str, llvm.LLVMFunctionType] = {}

    def call(
        self,
        em: Emitter,
        name: str,
        args: Sequence[SSAValue],
        result: Attribute | None,
    ) -> SSAValue | None:
        """Emit `name(args)` (returning `result`, or nothing when None)."""
        signature = llvm.LLVMFunctionType([a.type for a in args], result)
        known = self.signatures.setdefault(name, signature)
        if known != signature:
            raise LoweringError(
                f"convert-tir-to-llvm: external function '{name}' is called as "
                f"{signature} and as {known}"
            )
        call = em.emit(llvm.CallOp(name, *args, return_type=result))
        return call.returned

    def declarations(self) -> list[llvm.FuncOp]:
        """One body-less `llvm.func` per called function."""
        return [
            llvm.FuncOp(name, signature, linkage=llvm.LinkageAttr("external"))
            for name, signature in self.signatures.items()
        ]
