"""`tir-flatten-buffer`: N-d buffers become 1-d buffers with row-major indices."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    IndexType,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.arith import make_int_constant, row_major_offset
from xtvm.dialects.tir import BUFFER_SHAPES_ATTR, AllocateOp, LoadOp, PrimFuncOp, StoreOp


def linearize(indices: Sequence[SSAValue], shape: Sequence[int], before: Operation) -> SSAValue:
    """Insert the row-major offset of `indices` into a buffer of `shape`
    (:func:`xtvm.arith.row_major_offset`, in `arith.muli`/`arith.addi` on
    `index`) before `before` and return it; a rank-0 access gives index 0."""
    point = InsertPoint.before(before)

    def insert(*ops: Operation) -> SSAValue:
        Rewriter.insert_op(list(ops), point)
        return ops[-1].results[0]

    def scale(index: SSAValue, stride: int) -> SSAValue:
        c = make_int_constant(stride, IndexType())
        return insert(c, arith.MuliOp(index, c))

    return row_major_offset(
        indices,
        shape,
        scale,
        lambda total, term: insert(arith.AddiOp(total, term)),
        lambda: insert(make_int_constant(0, IndexType())),
    )


def _flatten_buffer(value: SSAValue) -> SSAValue:
    """Give `value` (an N-d memref) the 1-d type and rewrite its loads and stores."""
    ty = value.type
    assert isinstance(ty, MemRefType)
    shape = ty.get_shape()
    flat = Rewriter.replace_value_with_new_type(
        value, MemRefType(ty.element_type, [math.prod(shape)])
    )
    for use in list(flat.uses):
        user = use.operation
        if isinstance(user, LoadOp) and user.buffer == flat:
            offset = linearize(user.indices, shape, user)
            new: Operation = LoadOp(flat, [offset])
        elif isinstance(user, StoreOp) and user.buffer == flat:
            offset = linearize(user.indices, shape, user)
            new = StoreOp(user.value, flat, [offset])
        else:
            continue
        new.attributes |= user.attributes
        Rewriter.replace_op(user, new)
    return flat


def flatten_prim_func(func: PrimFuncOp) -> None:
    """Flatten every N-d buffer argument and allocation of one prim_func."""
    if BUFFER_SHAPES_ATTR not in func.attributes:
        func.attributes[BUFFER_SHAPES_ATTR] = ArrayAttr(
            DenseArrayBase.from_list(i64, shape or ()) for shape in func.buffer_shapes
        )
    for arg in func.args:
        if isinstance(arg.type, MemRefType) and arg.type.get_num_dims() != 1:
            _flatten_buffer(arg)
    func.function_type = FunctionType.from_lists(func.body.block.arg_types, [])
    for op in list(func.walk()):
        if isinstance(op, AllocateOp) and op.res.type.get_num_dims() != 1:
            _flatten_buffer(op.res)


@dataclass(frozen=True)
class TirFlattenBufferPass(ModulePass):
    """Flatten multi-dimensional buffers to one dimension (TVM's `FlattenBuffer`).

    Input: `tir.prim_func`s whose buffer arguments and `tir.allocate`s may have
    any rank. Output: every buffer is a 1-d memref of the same element count
    (rank 0 becomes `memref<1xT>`), and each `tir.load`/`tir.store` takes one
    row-major linear index computed with `arith.muli`/`arith.addi` on `index`.
    The arguments' logical shapes are recorded in `tir.buffer_shapes` (scalars
    get an empty array), because callers still pass N-d tensors.
    Element types, loop structure and all other ops are unchanged; run
    `tir-simplify` afterwards to fold the index arithmetic.

        tir.prim_func @f(%A: memref<4x8xf32>) {
          %v = tir.load %A[%i, %j] : memref<4x8xf32>
      becomes
        tir.prim_func @f(%A: memref<32xf32>)
            attributes {tir.buffer_shapes = [array<i64: 4, 8>]} {
          %c8 = arith.constant 8 : index
          %0 = arith.muli %i, %c8 : index
          %1 = arith.addi %0, %j : index
          %v = tir.load %A[%1] : memref<32xf32>
    """

    name = "tir-flatten-buffer"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if isinstance(func, PrimFuncOp):
                flatten_prim_func(func)
