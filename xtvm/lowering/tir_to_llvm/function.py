"""A `tir.prim_func` body → `llvm.func @NAME_impl`: loops become a control-flow graph.

    tir.for %i = %lb to %ub kind "serial" { BODY }
becomes
      llvm.br ^header(%lb : i64)
    ^header(%i: i64):
      %go = llvm.icmp "slt" %i, %ub : i64
      llvm.cond_br %go, ^body, ^exit
    ^body:
      BODY
      %next = llvm.add %i, %c1 overflow<nsw> : i64
      llvm.br ^header(%next : i64)
    ^exit:

Serial and unrolled loops lower the same way (LLVM's O3 pipeline unrolls
and may vectorise); a vectorized loop of constant extent becomes one
iteration on LLVM vectors (`vectorize.py`); an outermost parallel loop is outlined and run by
OpenMP threads (`parallel.py`). Buffers are `ptr noalias` arguments;
element `[i, j]` of a `memref<MxNxT>` is `getelementptr inbounds T, %A,
i*N + j`. `tir.allocate` is hoisted to the entry block: an `alloca` up to
`STACK_LIMIT_BYTES`, else `aligned_alloc(64, ...)` released by `free` on
every exit. A prim_func with shape variables (`tir.shape_vars`) takes one
more i64 argument per variable, after the buffers, in the attribute's
order; `tir.shape_var` is that argument. A dynamic `tir.allocate` is an
`aligned_alloc` where it stands (its pointer kept in an entry-block slot,
NULL until then, which every exit frees); a NULL result returns an assert's
code (`assert_messages` names the buffer). `NAME_impl` returns i32: 0, or `(7 << 16) | k` when the k-th
`tir.assert` (in program order) fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    MemRefType,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.arith import row_major_offset
from xtvm.dialects.tir import (
    PREFETCH,
    AllocateOp,
    AssertOp,
    CallExternOp,
    CallIntrinOp,
    ForOp,
    IfOp,
    LoadOp,
    PrimFuncOp,
    ReturnOp,
    ShapeVarOp,
    StoreOp,
    YieldOp,
)
from xtvm.dtypes import storage_nbytes
from xtvm.lowering.tir_to_llvm import sub_byte
from xtvm.lowering.tir_to_llvm.emitter import Emitter, Externs
from xtvm.lowering.tir_to_llvm.scalar import LOWERINGS
from xtvm.lowering.tir_to_llvm.types import PTR, LoweringError, byte_size, llvm_type
from xtvm.lowering.tir_to_llvm.vectorize import (
    LANE_INTRINSICS,
    lane_intrinsic_on_scalars,
    lower_vectorized_for,
)

STACK_LIMIT_BYTES = 1024 * 1024
"""Allocations up to this size live on the stack, larger ones on the heap."""

HEAP_ALIGNMENT = 64
"""Byte alignment of heap-allocated buffers (one cache line, any vector width)."""

ASSERT_KIND = 7
"""Error kind of a failed `tir.assert` (docs/abi.md)."""


def buffer_storage(ty: MemRefType) -> tuple[Attribute, int, int]:
    """A static `tir.allocate` buffer's LLVM element type, element count and
    bytes (sub-byte elements as their packed bytes; at least 1 byte): what
    decides stack (`STACK_LIMIT_BYTES`) or heap."""
    element = llvm_type(ty.element_type)
    count = math.prod(ty.get_shape())
    if (packed := storage_nbytes(ty.element_type, count)) is not None:
        element, count = i8, packed
    return element, count, max(count * byte_size(element), 1)


def impl_name(func: PrimFuncOp) -> str:
    """The symbol of a prim_func's loop program."""
    return f"{func.sym_name.data}_impl"


def is_prefetch_address(op: LoadOp) -> bool:
    """Whether `op`'s only use is the address operand of a prefetch."""
    uses = list(op.res.uses)
    return (
        len(uses) == 1
        and isinstance(call := uses[0].operation, CallIntrinOp)
        and call.callee.data == PREFETCH
        and uses[0].index == 0
    )


@dataclass
class ModuleLowering:
    """What the kernels of one module share while they are lowered."""

    externs: Externs = field(default_factory=Externs)
    kernels: list[llvm.FuncOp] = field(default_factory=list)
    """The `NAME_impl` function of each lowered prim_func, in order."""
    outlined: list[llvm.FuncOp] = field(default_factory=list)
    """Functions made from parallel loop bodies (see `parallel.py`)."""
    uses_openmp: bool = False


class BodyLowering:
    """Lowers tir ops, op by op, into the blocks of one llvm.func returning i32.

    Used for a kernel's `NAME_impl` and for each outlined parallel loop chunk.
    `asserts` is the kernel's assert counter, shared with its outlined chunks
    so that every assert keeps its program-order index.
    """

    def __init__(
        self,
        func: PrimFuncOp,
        module: ModuleLowering,
        name: str,
        asserts: list[int],
        inside_parallel: bool = False,
    ):
        self.func = func
        self.module = module
        self.externs = module.externs
        self.name = name
        self.asserts = asserts
        self.inside_parallel = inside_parallel
        self.region = Region()
        self.em = Emitter(self.region)
        self.entry = self.em.block
        self.values: dict[SSAValue, SSAValue] = {}
        self.heap: list[SSAValue] = []
        self.heap_slots: list[SSAValue] = []
        """Entry-block slots holding dynamic allocations (NULL until made)."""
        self.shape_vars: dict[str, SSAValue] = {}
        self.prologue = Emitter(self.region, Block())
        self._index_constants: dict[int, SSAValue] = {}

    def index_constant(self, value: int) -> SSAValue:
        """An i64 constant, made once per function in its entry block."""
        if value not in self._index_constants:
            self._index_constants[value] = self.prologue.int_const(value)
        return self._index_constants[value]

    def bind_args(self, values: Sequence[SSAValue]) -> None:
        """Make each tir value an argument of the function, in order."""
        for value in values:
            arg = self.entry.insert_arg(llvm_type(value.type), len(self.entry.args))
            arg.name_hint = value.name_hint
            self.values[value] = arg

    def bind_shape_vars(self) -> None:
        """One i64 argument per shape variable of the prim_func, in order."""
        for name in self.func.shape_vars:
            arg = self.entry.insert_arg(i64, len(self.entry.args))
            arg.name_hint = name
            self.shape_vars[name] = arg

    def finish(self) -> llvm.FuncOp:
        """The llvm.func: allocations first, pointer arguments `noalias`."""
        prologue = list(self.prologue.block.ops)
        for op in prologue:
            op.detach()
        if prologue:
            self.entry.insert_ops_before(prologue, self.entry.first_op)
        arg_types = self.entry.arg_types
        arg_attrs = [
            DictionaryAttr({"llvm.noalias": UnitAttr()} if t == PTR else {}) for t in arg_types
        ]
        return llvm.FuncOp(
            self.name,
            llvm.LLVMFunctionType(arg_types, i32),
            linkage=llvm.LinkageAttr("external"),
            body=self.region,
            other_props={"arg_attrs": llvm.ArrayAttr(arg_attrs)},
        )

    def get(self, value: SSAValue) -> SSAValue:
        return self.values[value]

    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)
            for result in op.results:
                lowered = self.values[result]
                if lowered.name_hint is None:
                    lowered.name_hint = result.name_hint

    def lower_op(self, op: Operation) -> None:
        """Lower one op; a `LoweringError` it raises is about `op` (or an op
        nested in it)."""
        try:
            structural = STRUCTURAL_LOWERINGS.get(type(op))
            if structural is not None:
                structural(self, op)
                return
            lowering = LOWERINGS.get(type(op))
            if lowering is None:
                raise LoweringError(
                    f"convert-tir-to-llvm: no lowering for {op.name} in "
                    f"@{self.func.sym_name.data}:\n{op!s}"
                )
            operands = [self.get(o) for o in op.operands]
            self.values[op.results[0]] = lowering(op, operands, self.em, self.externs)
        except LoweringError as e:
            e.op = e.op or op
            raise

    def lower_for(self, op: ForOp) -> None:
        # A loop storing packed sub-byte elements runs serially (`sub_byte`).
        if (
            op.kind.data == "parallel"
            and not self.inside_parallel
            and not sub_byte.stores_sub_byte(op)
        ):
            from xtvm.lowering.tir_to_llvm.parallel import lower_parallel_for

            lower_parallel_for(self, op)
        elif (
            op.kind.data == "vectorized"
            and not sub_byte.touches_sub_byte(op)
            and lower_vectorized_for(self, op)
        ):
            pass
        else:
            self.emit_loop(op, self.get(op.lb), self.get(op.ub))

    def emit_loop(self, op: ForOp, lb: SSAValue, ub: SSAValue) -> None:
        """`for (i = lb; i < ub; ++i) body` as header, body and exit blocks."""
        em = self.em
        header = em.new_block([i64])
        body = em.new_block()
        exit_ = em.new_block()
        em.br(header, lb)
        em.block = header
        iv = header.args[0]
        em.cond_br(em.icmp("slt", iv, ub), body, exit_)
        em.block = body
        iv.name_hint = op.induction_var.name_hint
        self.values[op.induction_var] = iv
        self.lower_block(op.body.block)
        em.br(header, em.add(iv, self.index_constant(1)))
        em.block = exit_

    def lower_if(self, op: IfOp) -> None:
        em = self.em
        then = em.new_block()
        merge = em.new_block()
        else_ = em.new_block() if op.else_region.blocks else merge
        em.cond_br(self.get(op.cond), then, else_)
        for block, region in ((then, op.then_region), (else_, op.else_region)):
            if region.blocks:
                em.block = block
                self.lower_block(region.block)
                em.br(merge)
        em.block = merge

    def lower_load(self, op: LoadOp) -> None:
        if bits := sub_byte.buffer_bits(op.buffer):
            self.values[op.res] = sub_byte.load(self, op, bits)
            return
        ptr = self.address(op.buffer, op.indices)
        if is_prefetch_address(op):  # read by nothing but a prefetch: its address
            self.values[op.res] = ptr
            return
        ty = llvm_type(op.res.type)
        self.values[op.res] = self.em.load(ptr, ty, byte_size(ty))

    def lower_store(self, op: StoreOp) -> None:
        if bits := sub_byte.buffer_bits(op.buffer):
            sub_byte.store(self, op, bits)
            return
        ptr = self.address(op.buffer, op.indices)
        value = self.get(op.value)
        self.em.emit(llvm.StoreOp(value, ptr, alignment=byte_size(value.type)))

    def lower_allocate(self, op: AllocateOp) -> None:
        if op.sizes:
            self.values[op.res] = self.allocate_dynamic(op)
        else:
            self.values[op.res] = self.allocate(op)

    def lower_shape_var(self, op: ShapeVarOp) -> None:
        self.values[op.res] = self.shape_vars[op.var_name.data]

    def lower_call_extern(self, op: CallExternOp) -> None:
        result = llvm_type(op.res[0].type) if op.res else None
        value = self.externs.call(self.em, op.callee.data, [self.get(a) for a in op.args], result)
        if op.res:
            assert value is not None
            self.values[op.res[0]] = value

    def lower_call_intrin(self, op: CallIntrinOp) -> None:
        if op.callee.data in LANE_INTRINSICS and op.res:  # one lane of a vector intrinsic
            self.values[op.res[0]] = lane_intrinsic_on_scalars(self, op)
            return
        results = [llvm_type(r.type) for r in op.res]
        call = self.em.emit(
            llvm.CallIntrinsicOp(op.callee.data, [self.get(a) for a in op.args], results)
        )
        if op.res:
            self.values[op.res[0]] = call.results[0]

    def lower_return(self, op: ReturnOp) -> None:
        self.exit_with(0)

    def lower_yield(self, op: YieldOp) -> None:
        """A region terminator: the enclosing loop or branch continues."""

    def lower_assert(self, op: AssertOp) -> None:
        em = self.em
        ok = em.new_block()
        fail = em.new_block()
        em.cond_br(self.get(op.cond), ok, fail)
        em.block = fail
        self.exit_with((ASSERT_KIND << 16) | self.asserts[0])
        self.asserts[0] += 1
        em.block = ok

    def exit_with(self, code: int | SSAValue) -> None:
        """Free the heap buffers and return `code` (an i32)."""
        for ptr in self.heap:
            self.externs.call(self.em, "free", [ptr], None)
        for slot in self.heap_slots:
            ptr = self.em.value(llvm.IntToPtrOp(self.em.load(slot, i64, 8)))
            self.externs.call(self.em, "free", [ptr], None)
        if isinstance(code, int):
            self.em.ret_code(code)
        else:
            self.em.ret(code)

    def address(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """`&buffer[indices]`: row-major linearisation, then one inbounds GEP."""
        return self.element_address(buffer, [self.get(i) for i in indices])

    def element_address(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """`&buffer[indices]` for a tir buffer and already lowered (i64) indices."""
        ty = buffer.type
        assert isinstance(ty, MemRefType)
        offset = self.linear_offset(buffer, indices)
        return self.em.gep(self.get(buffer), offset, llvm_type(ty.element_type))

    def linear_offset(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """The row-major element offset (i64) of already lowered `indices` in `buffer`."""
        ty = buffer.type
        assert isinstance(ty, MemRefType)
        if DYNAMIC_INDEX in ty.get_shape()[1:]:
            raise LoweringError(
                f"convert-tir-to-llvm: the buffer {ty} has a dynamic axis after the first "
                "(its strides are known only at run time); run tir-flatten-buffer first"
            )
        em = self.em
        return row_major_offset(
            indices,
            ty.get_shape(),
            lambda index, stride: em.mul(index, self.index_constant(stride)),
            em.add,
            lambda: self.index_constant(0),
        )

    def allocate(self, op: AllocateOp) -> SSAValue:
        """The buffer of a `tir.allocate`, created in the entry block."""
        ty = op.res.type
        assert isinstance(ty, MemRefType)
        element, count, nbytes = buffer_storage(ty)
        entry = self.prologue
        if nbytes <= STACK_LIMIT_BYTES:
            size = entry.int_const(max(count, 1))
            result = entry.value(llvm.AllocaOp(size, element, alignment=HEAP_ALIGNMENT))
        else:
            rounded = -(-nbytes // HEAP_ALIGNMENT) * HEAP_ALIGNMENT
            args = [entry.int_const(HEAP_ALIGNMENT), entry.int_const(rounded)]
            result = self.externs.call(entry, "aligned_alloc", args, PTR)
            assert result is not None
            self.heap.append(result)
        return result


    def allocate_dynamic(self, op: AllocateOp) -> SSAValue:
        """The heap buffer of a dynamic `tir.allocate`, made where it stands:
        `aligned_alloc(64, bytes rounded up to 64, plus 64)`; its pointer is kept in an
        entry-block slot (NULL before) that every exit frees."""
        ty = op.res.type
        assert isinstance(ty, MemRefType)
        element = llvm_type(ty.element_type)
        # the slot holds the pointer as an i64 (as parallel.py's context does:
        # the translator types a pointer slot's alloca as i64*)
        slot = self.prologue.value(llvm.AllocaOp(self.prologue.int_const(1), i64, alignment=8))
        self.prologue.emit(llvm.StoreOp(self.prologue.int_const(0), slot, alignment=8))
        self.heap_slots.append(slot)
        em = self.em
        count = self.index_constant(byte_size(element))
        for size in op.sizes:
            count = em.mul(count, self.get(size))
        # rounded up to the alignment, plus one line so that 0 bytes (where
        # aligned_alloc may return NULL) never reaches it
        mask = HEAP_ALIGNMENT - 1
        padded = em.add(count, self.index_constant(HEAP_ALIGNMENT + mask))
        nbytes = em.value(llvm.AndOp(padded, self.index_constant(~mask)))
        args = [self.index_constant(HEAP_ALIGNMENT), nbytes]
        result = self.externs.call(em, "aligned_alloc", args, PTR)
        assert result is not None
        ok, fail = em.new_block(), em.new_block()
        em.cond_br(em.not_null(result), ok, fail)
        em.block = fail  # out of memory: an assert's error (see assert_messages)
        self.exit_with((ASSERT_KIND << 16) | self.asserts[0])
        self.asserts[0] += 1
        em.block = ok
        em.emit(llvm.StoreOp(em.value(llvm.PtrToIntOp(result, i64)), slot, alignment=8))
        return result


STRUCTURAL_LOWERINGS: dict[type[Operation], Callable[[BodyLowering, Any], None]] = {
    ForOp: BodyLowering.lower_for,
    IfOp: BodyLowering.lower_if,
    LoadOp: BodyLowering.lower_load,
    StoreOp: BodyLowering.lower_store,
    AllocateOp: BodyLowering.lower_allocate,
    ShapeVarOp: BodyLowering.lower_shape_var,
    AssertOp: BodyLowering.lower_assert,
    CallExternOp: BodyLowering.lower_call_extern,
    CallIntrinOp: BodyLowering.lower_call_intrin,
    ReturnOp: BodyLowering.lower_return,
    YieldOp: BodyLowering.lower_yield,
}
"""The `tir` ops of a prim_func body and their lowering; its `arith`/`math`
ops go through `scalar.LOWERINGS`."""


def unlowered_ops(func: PrimFuncOp) -> list[Operation]:
    """The ops of `func`'s body that nothing lowers (in program order)."""
    return [
        op
        for op in func.body.walk()
        if type(op) not in STRUCTURAL_LOWERINGS and type(op) not in LOWERINGS
    ]


def lower_prim_func(func: PrimFuncOp, module: ModuleLowering) -> llvm.FuncOp:
    """`llvm.func @NAME_impl` of a prim_func; what it shares goes into `module`."""
    body = BodyLowering(func, module, impl_name(func), asserts=[0])
    body.bind_args(func.args)
    body.bind_shape_vars()
    body.lower_block(func.body.block)
    return body.finish()


ASSERT_MESSAGES_ATTR = "xtvm.assert_messages"
"""A kernel stub's assert messages (its body is left out: xtvm/codegen/stubs.py)."""


def assert_messages(func: PrimFuncOp) -> list[str]:
    """The messages of a prim_func's asserts, indexed like error kind 7's
    index; a dynamic `tir.allocate` counts as one (its allocation failing)."""
    stub = func.attributes.get(ASSERT_MESSAGES_ATTR)
    if isinstance(stub, ArrayAttr):
        return [m.data for m in stub.data]
    return [m for op in func.walk() if (m := assert_message(op)) is not None]


def assert_message(op: Operation) -> str | None:
    """The message of an op that counts as an assert (see `assert_messages`), else None."""
    if isinstance(op, AssertOp):
        return op.message.data
    if isinstance(op, AllocateOp) and op.sizes:
        return f"cannot allocate the buffer {op.res.name_hint or ''} of {op.res.type}: out of memory"
    return None
