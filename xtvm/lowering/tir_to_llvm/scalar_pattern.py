"""The base of the scalar `arith`/`math` lowerings: one `ScalarPattern` per op family.

A family's `lower(op, operands, em, externs)` appends the llvm ops of one op
to `em`, given its already lowered operands, and returns the llvm value of
its result. It is used two ways:

* inside a prim_func, the prim_func pattern (and the vectorizer, lane by
  lane) calls it through `scalar.LOWERINGS`, the op → lowering table derived
  from the pattern list, while it builds the function's control-flow graph;
* as a rewrite pattern of its own, it replaces an op *outside* any prim_func
  in place, when the op's operand and result types are llvm types already
  (`f32`, `i32`, ...: not `index`, unsigned integers, memrefs or vectors,
  which only a prim_func's lowering maps):

      %c = arith.addf %a, %b : f32     →     %c = llvm.fadd %a, %b : f32

Ops the llvm dialect lacks are expressed with intrinsics (`llvm.fptosi.sat`,
`llvm.smin`, ...), short instruction sequences or libm calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.tir_to_llvm.emitter import Emitter, Externs
from xtvm.lowering.tir_to_llvm.types import LoweringError, intrinsic_suffix, llvm_type

Lowering = Callable[[Operation, Sequence[SSAValue], Emitter, Externs], SSAValue]
"""`lower(op, lowered operands, emitter, externs) -> lowered result`."""


class ScalarPattern(RewritePattern):
    """The lowering of one family of single-result scalar ops (see the module
    docstring). A subclass sets `ops` and defines the classmethod `lower`."""

    ops: ClassVar[frozenset[type[Operation]]] = frozenset()
    """The op classes of the family (matched exactly, as `LOWERINGS` keys)."""

    def __init__(self, externs: Externs):
        self.externs = externs
        """Where the libm functions a lowering calls are declared."""

    @classmethod
    def lower(
        cls, op: Operation, operands: Sequence[SSAValue], em: Emitter, externs: Externs
    ) -> SSAValue:
        raise NotImplementedError

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if type(op) not in self.ops or not _lowerable_in_place(op):
            return
        em = Emitter(Region(), Block())
        result = self.lower(op, list(op.operands), em, self.externs)
        new_ops = list(em.block.ops)
        for new in new_ops:
            new.detach()
        rewriter.replace(op, new_ops, [result])


def _lowerable_in_place(op: Operation) -> bool:
    """Outside every prim_func, and on llvm types only (nothing to map)."""
    for value in (*op.operands, *op.results):
        try:
            if llvm_type(value.type) != value.type:
                return False
        except LoweringError:
            return False
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, PrimFuncOp):
            return False
        parent = parent.parent_op()
    return True


def result_type(op: Operation) -> Attribute:
    """The llvm type of `op`'s (first) result."""
    return llvm_type(op.results[0].type)


def int_width(ty: Attribute) -> int:
    """The bit width of an integer (or index) type."""
    ty = llvm_type(ty)
    assert isinstance(ty, IntegerType)
    return ty.width.data


def call_intrinsic(
    op: Operation,
    name: str,
    operands: Sequence[SSAValue],
    em: Emitter,
    extra: Sequence[tuple[int, Attribute]] = (),
) -> SSAValue:
    """`llvm.<name>.<suffix>(operands..., extra constants...)` on `op`'s result type."""
    ty = result_type(op)
    consts = [em.int_const(v, t) for v, t in extra]
    call = llvm.CallIntrinsicOp(f"llvm.{name}.{intrinsic_suffix(ty)}", [*operands, *consts], [ty])
    return em.value(call)
