"""`tir-flatten-buffer`: N-d buffers become 1-d buffers with row-major indices."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
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
from xtvm.dialects.tir import (
    BUFFER_SHAPES_ATTR,
    AllocateOp,
    LoadOp,
    PrimFuncOp,
    ShapeVarOp,
    StoreOp,
)

Extent = int | SSAValue
"""A buffer extent or stride: static, or an `index` value computed at run time."""


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


def _multiply(a: Extent, b: Extent, ops: list[Operation]) -> Extent:
    """`a * b`, folded when both are static; the ops computing it go to `ops`."""
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 1 or b == 1:
        return b if a == 1 else a
    values = []
    for v in (a, b):
        if isinstance(v, int):
            c = make_int_constant(v, IndexType())
            ops.append(c)
            v = c.results[0]
        values.append(v)
    mul = arith.MuliOp(values[0], values[1])
    ops.append(mul)
    return mul.result


def _strides(dims: Sequence[Extent], ops: list[Operation]) -> list[Extent]:
    """The row-major strides of a buffer of extents `dims`."""
    strides: list[Extent] = [1] * len(dims)
    for k in range(len(dims) - 2, -1, -1):
        strides[k] = _multiply(strides[k + 1], dims[k + 1], ops)
    return strides


def _flatten_dynamic(value: SSAValue, strides: Sequence[Extent]) -> SSAValue:
    """Give `value` (a memref with dynamic axes) the type `memref<?xT>` and
    rewrite its loads and stores with the row-major `strides`."""
    ty = value.type
    assert isinstance(ty, MemRefType)
    flat = Rewriter.replace_value_with_new_type(
        value, MemRefType(ty.element_type, [DYNAMIC_INDEX])
    )
    for use in list(flat.uses):
        user = use.operation
        if not isinstance(user, LoadOp | StoreOp) or user.buffer != flat:
            continue
        ops: list[Operation] = []
        offset: SSAValue | None = None
        for index, stride in zip(user.indices, strides, strict=True):
            term = _multiply(index, stride, ops)
            assert isinstance(term, SSAValue)
            if offset is None:
                offset = term
            else:
                add = arith.AddiOp(offset, term)
                ops.append(add)
                offset = add.result
        if offset is None:
            zero = make_int_constant(0, IndexType())
            ops.append(zero)
            offset = zero.results[0]
        Rewriter.insert_op(ops, InsertPoint.before(user))
        new: Operation = (
            LoadOp(flat, [offset])
            if isinstance(user, LoadOp)
            else StoreOp(user.value, flat, [offset])
        )
        new.attributes |= user.attributes
        Rewriter.replace_op(user, new)
    return flat


def _shape_var_values(func: PrimFuncOp, ops: list[Operation]) -> dict[str, SSAValue]:
    """The value of each shape variable: its `tir.shape_var` at the top of the
    body, or a new one appended to `ops`."""
    found = {
        op.var_name.data: op.res for op in func.body.block.ops if isinstance(op, ShapeVarOp)
    }
    for name in func.shape_vars:
        if name not in found:
            read = ShapeVarOp(name)
            read.res.name_hint = name
            ops.append(read)
            found[name] = read.res
    return found


def _flatten_dynamic_args(func: PrimFuncOp) -> None:
    """Flatten the arguments with dynamic axes: their strides are computed
    once, after the shape variables are read at the top of the body."""
    dynamic = [
        (i, arg)
        for i, arg in enumerate(func.args)
        if isinstance(arg.type, MemRefType)
        and not arg.type.has_static_shape()
        and arg.type.get_num_dims() != 1  # 1-d already (or flattened before)
    ]
    if not dynamic:
        return
    block = func.body.block
    reads = [op for op in block.ops if isinstance(op, ShapeVarOp)]
    ops: list[Operation] = []
    values = _shape_var_values(func, ops)
    names = func.axis_vars()
    flats = []
    for i, arg in dynamic:
        assert isinstance(arg.type, MemRefType)
        dims = [
            values[names[(i, k)]] if d == DYNAMIC_INDEX else d
            for k, d in enumerate(arg.type.get_shape())
        ]
        flats.append((arg, _strides(dims, ops)))
    point = InsertPoint.after(reads[-1]) if reads else InsertPoint.at_start(block)
    if ops:
        Rewriter.insert_op(ops, point)
    for arg, strides in flats:
        _flatten_dynamic(arg, strides)


def _flatten_dynamic_allocate(op: AllocateOp) -> None:
    """`tir.allocate(%sizes...) : memref<...?...>` → one allocation of the
    element count, `memref<?xT>`, with its loads and stores flattened."""
    ty = op.res.type
    assert isinstance(ty, MemRefType)
    sizes = iter(op.sizes)
    dims = [next(sizes) if d == DYNAMIC_INDEX else d for d in ty.get_shape()]
    ops: list[Operation] = []
    strides = _strides(dims, ops)
    count = _multiply(strides[0], dims[0], ops) if dims else 1
    if isinstance(count, int):
        c = make_int_constant(count, IndexType())
        ops.append(c)
        count = c.results[0]
    flat = AllocateOp(MemRefType(ty.element_type, [DYNAMIC_INDEX]), op.scope.data, [count])
    Rewriter.insert_op([*ops, flat], InsertPoint.before(op))
    flat.res.name_hint = op.res.name_hint
    op.res.replace_all_uses_with(flat.res)
    Rewriter.erase_op(op)
    _flatten_dynamic(flat.res, strides)


def flatten_prim_func(func: PrimFuncOp) -> None:
    """Flatten every N-d buffer argument and allocation of one prim_func
    (and every one with a dynamic axis, which becomes `memref<?xT>`)."""
    if BUFFER_SHAPES_ATTR not in func.attributes:
        func.attributes[BUFFER_SHAPES_ATTR] = ArrayAttr(
            DenseArrayBase.from_list(i64, shape or ()) for shape in func.buffer_shapes
        )
    _flatten_dynamic_args(func)
    for arg in func.args:
        if isinstance(arg.type, MemRefType) and arg.type.get_num_dims() != 1:
            _flatten_buffer(arg)
    func.function_type = FunctionType.from_lists(func.body.block.arg_types, [])
    for op in list(func.walk()):
        if not isinstance(op, AllocateOp):
            continue
        if op.sizes and op.res.type.get_num_dims() != 1:
            _flatten_dynamic_allocate(op)
        elif op.res.type.get_num_dims() != 1:
            _flatten_buffer(op.res)


@dataclass(frozen=True)
class TirFlattenBufferPass(ModulePass):
    """Flatten multi-dimensional buffers to one dimension (TVM's `FlattenBuffer`).

    Input: `tir.prim_func`s whose buffer arguments and `tir.allocate`s may have
    any rank. Output: every buffer is a 1-d memref of the same element count
    (rank 0 becomes `memref<1xT>`), and each `tir.load`/`tir.store` takes one
    row-major linear index computed with `arith.muli`/`arith.addi` on `index`.
    The arguments' logical shapes are recorded in `tir.buffer_shapes` (scalars
    get an empty array), because callers still pass N-d tensors. A buffer
    with dynamic axes becomes `memref<?xT>` (-1 in `tir.buffer_shapes`); its
    strides are computed once from the shape variables (`tir.shape_var`,
    read at the top of the body) or the allocation's extents, and a dynamic
    `tir.allocate` takes the element count as its one extent.
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
