"""`transform_layout`: store a buffer in another layout, given as an affine
index map from old to new indices (TVM's `transform_layout`), e.g. packing
conv2d weights OIHW into OIHW8o:

    (d0, d1, d2, d3) -> (d0 floordiv 8, d1, d2, d3, d0 mod 8)

* An allocated buffer gets the new shape, and every load and store of it
  the mapped indices.
* An input argument keeps the caller's layout (the calling convention fixes
  it): a packed copy `NAME_packed` is allocated and filled at the start of
  the function (zero-filled first when the map does not cover the new
  shape, as when 10 channels pad to 2 x 8), and every load reads the copy.
  The copy nest's loops are `NAME_packed.ax0`, `ax1`, ... to schedule further.
* Output arguments are rejected.

The new shape is the bounding box of the map over the old shape; the map
must be injective (checked by evaluating it on every index) and its results,
and what it divides or takes the remainder of, non-negative.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerType, MemRefType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from xtvm.arith import make_int_constant
from xtvm.dialects.tir import AllocateOp, ForOp, LoadOp, PrimFuncOp, StoreOp
from xtvm.schedule.error import ScheduleError
from xtvm.schedule.nest import Constants, append, new_loop

_WHAT = "transform_layout"
_INJECTIVITY_LIMIT = 1 << 24
"""Maps over more elements than this are not checked for injectivity."""


def _interval(expr: AffineExpr, shape: Sequence[int]) -> tuple[int, int]:
    """Inclusive bounds of `expr` over the index box of `shape`."""
    match expr:
        case AffineDimExpr():
            return 0, shape[expr.position] - 1
        case AffineConstantExpr():
            return expr.value, expr.value
        case AffineBinaryOpExpr():
            (a, b), (c, d) = _interval(expr.lhs, shape), _interval(expr.rhs, shape)
            kind = expr.kind
            if kind is AffineBinaryOpKind.Add:
                return a + c, b + d
            if kind is AffineBinaryOpKind.Mul:
                products = [a * c, a * d, b * c, b * d]
                return min(products), max(products)
            if c != d or c <= 0 or a < 0:
                raise ScheduleError(
                    f"{_WHAT}: '{expr}' must divide a non-negative expression "
                    "by a positive constant"
                )
            if kind is AffineBinaryOpKind.FloorDiv:
                return a // c, b // c
            if kind is AffineBinaryOpKind.CeilDiv:
                return -(-a // c), -(-b // c)
            return (a, b) if b < c else (0, c - 1)
    raise ScheduleError(f"{_WHAT}: the index map may not use symbols ('{expr}')")


def _evaluate(expr: AffineExpr, dims: Sequence[np.ndarray]) -> np.ndarray:
    match expr:
        case AffineDimExpr():
            return dims[expr.position]
        case AffineConstantExpr():
            return np.int64(expr.value)  # type: ignore[return-value]
        case AffineBinaryOpExpr():
            a, b = _evaluate(expr.lhs, dims), _evaluate(expr.rhs, dims)
            kind = expr.kind
            if kind is AffineBinaryOpKind.Add:
                return a + b
            if kind is AffineBinaryOpKind.Mul:
                return a * b
            if kind is AffineBinaryOpKind.FloorDiv:
                return a // b
            if kind is AffineBinaryOpKind.CeilDiv:
                return -(-a // b)
            return a % b
    raise AssertionError(expr)


def new_shape(amap: AffineMap, shape: Sequence[int]) -> list[int]:
    """The shape of the buffer `amap` maps `shape` into; a ScheduleError for unusable maps."""
    if not shape:
        raise ScheduleError(f"{_WHAT}: a rank-0 buffer has no layout to change")
    if amap.num_dims != len(shape):
        raise ScheduleError(
            f"{_WHAT}: the index map takes {amap.num_dims} indices, "
            f"the buffer has {len(shape)} dimensions"
        )
    if amap.num_symbols:
        raise ScheduleError(f"{_WHAT}: the index map may not use symbols")
    bounds = [_interval(e, shape) for e in amap.results]
    if any(lo < 0 for lo, _ in bounds):
        raise ScheduleError(f"{_WHAT}: the index map '{amap}' gives negative indices")
    result = [hi + 1 for _, hi in bounds]
    count = math.prod(shape)
    if 0 < count <= _INJECTIVITY_LIMIT:
        dims = list(np.indices(shape, dtype=np.int64).reshape(len(shape), -1))
        values = [np.broadcast_to(_evaluate(e, dims), (count,)) for e in amap.results]
        flat = np.ravel_multi_index(values, result) if result else np.zeros(count, np.int64)
        if len(np.unique(flat)) != count:
            raise ScheduleError(
                f"{_WHAT}: the index map '{amap}' sends two elements to the same place"
            )
    return result


def _emit(
    expr: AffineExpr, indices: Sequence[SSAValue], consts: Constants, ops: list[Operation]
) -> SSAValue:
    """Append to `ops` the index arithmetic computing `expr`; return its value."""
    match expr:
        case AffineDimExpr():
            return indices[expr.position]
        case AffineConstantExpr():
            return consts(expr.value)
        case AffineBinaryOpExpr():
            a, b = _emit(expr.lhs, indices, consts, ops), _emit(expr.rhs, indices, consts, ops)
            cls: type[Operation] = {
                AffineBinaryOpKind.Add: arith.AddiOp,
                AffineBinaryOpKind.Mul: arith.MuliOp,
                AffineBinaryOpKind.FloorDiv: arith.DivUIOp,
                AffineBinaryOpKind.CeilDiv: arith.CeilDivUIOp,
                AffineBinaryOpKind.Mod: arith.RemUIOp,
            }[expr.kind]
            op = cls(a, b)  # type: ignore[call-arg]
            ops.append(op)
            return op.results[0]
    raise AssertionError(expr)


def _remap_accesses(
    buffer: SSAValue, new: SSAValue, amap: AffineMap, consts: Constants, skip: set[int]
) -> None:
    """Loads and stores of `buffer` (but those in `skip`) access `new` at the mapped indices."""
    for use in list(buffer.uses):
        op = use.operation
        if id(op) in skip:
            continue
        assert isinstance(op, LoadOp | StoreOp)
        ops: list[Operation] = []
        indices = [_emit(e, op.indices, consts, ops) for e in amap.results]
        replacement: Operation
        if isinstance(op, LoadOp):
            replacement = LoadOp(new, indices)
            replacement.res.name_hint = op.res.name_hint
            op.res.replace_all_uses_with(replacement.res)
        else:
            replacement = StoreOp(op.value, new, indices)
        block = op.parent_block()
        assert block is not None
        for o in [*ops, replacement]:
            block.insert_op_before(o, op)
        op.detach()
        op.erase()


def _nest(
    consts: Constants, shape: Sequence[int], names: Sequence[str], body: Block
) -> tuple[list[ForOp], list[SSAValue]]:
    """A serial nest over `shape` appended to `body`; returns its loops and variables."""
    loops = [new_loop(consts(0), consts(n), name) for n, name in zip(shape, names)]
    container = body
    for loop in loops:
        append(container, loop)
        container = loop.body.block
    return loops, [loop.induction_var for loop in loops]


def transform_layout(
    consts: Constants, func: PrimFuncOp, buffer: SSAValue, name: str, amap: AffineMap
) -> tuple[str, list[ForOp]]:
    """Relayout `buffer` by `amap`; returns the name of the buffer now in the
    new layout and the loops of the packing nest (none for an allocation)."""
    ty = buffer.type
    assert isinstance(ty, MemRefType)
    shape = list(ty.get_shape())
    packed_shape = new_shape(amap, shape)
    for use in buffer.uses:
        op = use.operation
        if not isinstance(op, LoadOp | StoreOp) or op.buffer != buffer:
            raise ScheduleError(
                f"{_WHAT}: {name} is used by '{op.name}', not only loaded and stored"
            )
    new_type = MemRefType(ty.element_type, packed_shape)
    if isinstance(buffer.owner, AllocateOp):
        alloc = buffer.owner
        new_alloc = AllocateOp(new_type, alloc.scope.data)
        new_alloc.res.name_hint = buffer.name_hint
        block = alloc.parent_block()
        assert block is not None
        block.insert_op_before(new_alloc, alloc)
        _remap_accesses(buffer, new_alloc.res, amap, consts, set())
        alloc.detach()
        alloc.erase()
        return name, []
    if any(
        isinstance(use.operation, StoreOp) and use.operation.buffer == buffer for use in buffer.uses
    ):
        raise ScheduleError(
            f"{_WHAT}: {name} is written by the function; only inputs and allocations change layout"
        )
    entry = func.body.block
    anchor = next(op for op in entry.ops if not isinstance(op, arith.ConstantOp))
    packed = AllocateOp(new_type, "global")
    packed.res.name_hint = f"{name}_packed"
    staging = Block()
    staging.add_op(packed)
    loops: list[ForOp] = []
    if math.prod(packed_shape) != math.prod(shape):
        zero = _zero(ty.element_type)
        zero.result.name_hint = "zero"
        staging.add_op(zero)
        zero_loops, ivs = _nest(
            consts, packed_shape, [f"ax{k}_zero" for k in range(len(packed_shape))], staging
        )
        append(zero_loops[-1].body.block, StoreOp(zero.result, packed.res, ivs))
        loops += zero_loops
    copy_loops, ivs = _nest(consts, shape, [f"ax{k}" for k in range(len(shape))], staging)
    index_ops: list[Operation] = []
    packed_indices = [_emit(e, ivs, consts, index_ops) for e in amap.results]
    load = LoadOp(buffer, ivs)
    for op in [*index_ops, load, StoreOp(load.res, packed.res, packed_indices)]:
        append(copy_loops[-1].body.block, op)
    _remap_accesses(buffer, packed.res, amap, consts, {id(load)})
    for op in list(staging.ops):
        op.detach()
        entry.insert_op_before(op, anchor)
    return packed.res.name_hint or name, [*loops, *copy_loops]


def _zero(ty: Attribute) -> arith.ConstantOp:
    if isinstance(ty, IntegerType):
        return make_int_constant(0, ty)
    return arith.ConstantOp(FloatAttr(0.0, ty), ty)  # type: ignore[arg-type]
