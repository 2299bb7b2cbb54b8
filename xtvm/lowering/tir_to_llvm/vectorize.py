"""A `vectorized` `tir.for` → straight-line LLVM vector code (TVM's
`VectorizeLoop` and `CodeGenLLVM` ramp/broadcast handling, in one step).

    tir.for %v = %c0 to %c16 kind "vectorized" {
      %x = tir.load %A[%base + %v]        // contiguous in %v
      %s = tir.load %B[%k]                // the same for every lane
      %y = arith.mulf %x, %s
      %a = tir.load %C[%v]
      tir.store (arith.addf %a, %y), %C[%v]
    }
becomes one iteration on `vector<16xf32>`: a vector load of `A[base .. base+15]`,
a scalar load of `B[k]` broadcast to all lanes, `llvm.fmuladd.v16f32`, one
vector store.

Every value of the body is *uniform* (the same in all lanes: defined outside
the loop or computed only from uniform values; emitted once as a scalar),
a *ramp* (an integer `base + stride * lane` with a constant stride: loop
variables and affine index arithmetic; only its scalar base is emitted), or
*varying* (a vector). Loads and stores whose address is a stride-1 ramp are
vector memory ops; other varying addresses are gathered or scattered lane
by lane. `addf(x, mulf(a, b))` with a single-use product becomes a fused
multiply-add (`llvm.fmuladd`, which LLVM turns into FMA instructions).
Ops without a vector form here run lane by lane through the scalar
lowerings. A loop whose extent is not a constant in [2, 64], or whose body
holds nested control flow, is left to the scalar lowering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    MemRefType,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xtvm.arith import compact_strides
from xtvm.dialects.tir import ForOp, IfOp, LoadOp, StoreOp, YieldOp
from xtvm.lowering.tir_to_llvm.scalar import LOWERINGS
from xtvm.lowering.tir_to_llvm.types import byte_size, intrinsic_suffix, llvm_type

if TYPE_CHECKING:
    from xtvm.lowering.tir_to_llvm.function import BodyLowering

MAX_LANES = 64
"""The widest loop lowered as one vector (LLVM splits it into registers)."""

_FLOAT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
_INT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
}
_INTRINSICS: dict[type[Operation], str] = {
    arith.MaximumfOp: "maximum",
    arith.MinimumfOp: "minimum",
    arith.MaxnumfOp: "maxnum",
    arith.MinnumfOp: "minnum",
    math.AbsFOp: "fabs",
    math.SqrtOp: "sqrt",
    math.FloorOp: "floor",
    math.CeilOp: "ceil",
    math.FmaOp: "fma",
}
"""Ops whose vector form is the same LLVM intrinsic on a vector type."""


@dataclass(frozen=True)
class Ramp:
    """An integer value `base + stride * lane` (the base is emitted as a scalar)."""

    base: SSAValue
    stride: int


def constant_int(value: SSAValue) -> int | None:
    """The value of an integer `arith.constant`, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, arith.IntegerAttr):
        return owner.value.value.data
    return None


def vector_extent(op: ForOp) -> int | None:
    """The lane count if `op` can be lowered as one vector iteration, else None."""
    lb, ub = constant_int(op.lb), constant_int(op.ub)
    if lb is None or ub is None or not 2 <= ub - lb <= MAX_LANES:
        return None
    for inner in op.body.block.ops:
        if isinstance(inner, ForOp | IfOp) or inner.regions:
            return None
    return ub - lb


class VectorBody:
    """Lowers the body of one vectorized loop as a single vector iteration."""

    def __init__(self, body: BodyLowering, op: ForOp, lanes: int):
        self.body = body
        self.em = body.em
        self.lanes = lanes
        self.loop_ops = set(op.body.block.ops)
        self.ramps: dict[SSAValue, Ramp] = {op.induction_var: Ramp(body.get(op.lb), 1)}
        self.vectors: dict[SSAValue, SSAValue] = {}

    # -- classification ---------------------------------------------------------------

    def is_uniform(self, value: SSAValue) -> bool:
        return value not in self.ramps and value not in self.vectors

    def vector_type(self, scalar: Attribute) -> VectorType:
        return VectorType(llvm_type(scalar), [self.lanes])

    # -- vector building blocks ---------------------------------------------------------

    def broadcast(self, scalar: SSAValue) -> SSAValue:
        em = self.em
        ty = VectorType(scalar.type, [self.lanes])
        one = em.value(llvm.InsertElementOp(em.value(llvm.UndefOp(ty)), scalar, em.int_const(0)))
        mask = DenseArrayBase.from_list(i32, [0] * self.lanes)
        return em.value(llvm.ShuffleVectorOp(one, one, mask, ty))

    def lane_offsets(self, stride: int, ty: Attribute) -> SSAValue:
        """The constant vector `[0, stride, 2*stride, ...]` of integer type `ty`."""
        vty = VectorType(ty, [self.lanes])
        values = DenseIntOrFPElementsAttr.from_list(vty, [stride * k for k in range(self.lanes)])
        return self.em.value(llvm.ConstantOp(values, vty))

    def vector(self, value: SSAValue) -> SSAValue:
        """`value` as a vector: varying values as they are, uniform ones
        broadcast, ramps materialised as `broadcast(base) + [0, s, 2s, ...]`."""
        if value in self.vectors:
            return self.vectors[value]
        if value in self.ramps:
            ramp = self.ramps[value]
            base = self.broadcast(ramp.base)
            vec = self.em.value(llvm.AddOp(base, self.lane_offsets(ramp.stride, ramp.base.type)))
        else:
            vec = self.broadcast(self.body.get(value))
        self.vectors[value] = vec
        return vec

    def lane(self, vec: SSAValue, k: int) -> SSAValue:
        """Lane `k` of `vec` (a one-lane shuffle, then a bitcast to the scalar)."""
        assert isinstance(vec.type, VectorType)
        mask = DenseArrayBase.from_list(i32, [k])
        one = self.em.value(
            llvm.ShuffleVectorOp(vec, vec, mask, VectorType(vec.type.element_type, [1]))
        )
        return self.em.value(llvm.BitcastOp(one, vec.type.element_type))

    def lanes_of(self, value: SSAValue) -> list[SSAValue]:
        """The scalar of each lane of `value`."""
        if self.is_uniform(value):
            return [self.body.get(value)] * self.lanes
        vec = self.vector(value)
        return [self.lane(vec, k) for k in range(self.lanes)]

    def gather(self, scalars: Sequence[SSAValue]) -> SSAValue:
        """A vector from one scalar per lane."""
        em = self.em
        vec = em.value(llvm.UndefOp(VectorType(scalars[0].type, [self.lanes])))
        for k, scalar in enumerate(scalars):
            vec = em.value(llvm.InsertElementOp(vec, scalar, em.int_const(k)))
        return vec

    # -- addresses ----------------------------------------------------------------------

    def linear_offset(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> Ramp | None:
        """The element offset of `buffer[indices]` as a ramp (stride 0 when
        uniform), or None when some index is varying."""
        ty = buffer.type
        assert isinstance(ty, MemRefType)
        em = self.em
        offset: SSAValue | None = None
        stride = 0
        for index, dim_stride in zip(indices, compact_strides(ty.get_shape()), strict=True):
            if index in self.vectors:
                return None
            ramp = self.ramps.get(index)
            base = ramp.base if ramp else self.body.get(index)
            stride += (ramp.stride if ramp else 0) * dim_stride
            term = base if dim_stride == 1 else em.mul(base, em.int_const(dim_stride))
            offset = term if offset is None else em.add(offset, term)
        return Ramp(offset if offset is not None else em.int_const(0), stride)

    def lane_addresses(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> list[SSAValue]:
        """The address of each lane's element (gather/scatter fallback)."""
        per_index = [self.lanes_of(i) for i in indices]
        addresses = []
        for k in range(self.lanes):
            lane_indices = [lanes[k] for lanes in per_index]
            addresses.append(self.scalar_address(buffer, lane_indices))
        return addresses

    def scalar_address(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        ty = buffer.type
        assert isinstance(ty, MemRefType)
        em = self.em
        offset: SSAValue | None = None
        for index, stride in zip(indices, compact_strides(ty.get_shape()), strict=True):
            term = index if stride == 1 else em.mul(index, em.int_const(stride))
            offset = term if offset is None else em.add(offset, term)
        offset = offset if offset is not None else em.int_const(0)
        return em.gep(self.body.get(buffer), offset, llvm_type(ty.element_type))

    # -- ops ----------------------------------------------------------------------------

    def lower(self, block_ops: Sequence[Operation]) -> None:
        for op in block_ops:
            if isinstance(op, YieldOp):
                continue
            if isinstance(op, StoreOp):
                self.store(op)
            elif isinstance(op, LoadOp):
                self.load(op)
            elif all(self.is_uniform(o) for o in op.operands):
                self.body.lower_op(op)  # the same in every lane: one scalar op
            elif not self.ramp_op(op):
                self.varying_op(op)

    def ramp_op(self, op: Operation) -> bool:
        """Affine integer arithmetic on ramps stays a ramp; True if handled."""
        if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            return False
        a, b = op.operands
        ra, rb = self.ramps.get(a), self.ramps.get(b)
        if a in self.vectors or b in self.vectors:
            return False
        em = self.em
        if isinstance(op, arith.MuliOp):
            if ra and rb:
                return False
            ramp, other = (ra, b) if ra else (rb, a)
            factor = constant_int(other)
            assert ramp is not None
            if factor is None:
                return False
            base = em.mul(ramp.base, self.body.get(other))
            self.ramps[op.result] = Ramp(base, ramp.stride * factor)
            return True
        base_a = ra.base if ra else self.body.get(a)
        base_b = rb.base if rb else self.body.get(b)
        sa, sb = (ra.stride if ra else 0), (rb.stride if rb else 0)
        if isinstance(op, arith.AddiOp):
            self.ramps[op.result] = Ramp(em.add(base_a, base_b), sa + sb)
        else:
            base = em.value(llvm.SubOp(base_a, base_b, overflow=llvm.OverflowAttr("none")))
            self.ramps[op.result] = Ramp(base, sa - sb)
        return True

    def load(self, op: LoadOp) -> None:
        element = llvm_type(op.res.type)
        offset = self.linear_offset(op.buffer, op.indices)
        em = self.em
        if offset is not None and offset.stride == 0:
            ptr = em.gep(self.body.get(op.buffer), offset.base, element)
            self.body.values[op.res] = em.load(ptr, element, byte_size(element))
        elif offset is not None and offset.stride == 1:
            ptr = em.gep(self.body.get(op.buffer), offset.base, element)
            vty = VectorType(element, [self.lanes])
            self.vectors[op.res] = em.load(ptr, vty, byte_size(element))
        else:
            addresses = self.lane_addresses(op.buffer, op.indices)
            scalars = [em.load(a, element, byte_size(element)) for a in addresses]
            self.vectors[op.res] = self.gather(scalars)

    def store(self, op: StoreOp) -> None:
        element = llvm_type(op.value.type)
        offset = self.linear_offset(op.buffer, op.indices)
        em = self.em
        align = byte_size(element)
        if offset is not None and offset.stride == 1:
            ptr = em.gep(self.body.get(op.buffer), offset.base, element)
            # a zero GEP over the vector type: llvmlite's builder checks the
            # stored type against a typed pointer (a no-op in LLVM itself)
            ptr = em.value(llvm.GEPOp(ptr, [0], VectorType(element, [self.lanes]), inbounds=True))
            em.emit(llvm.StoreOp(self.vector(op.value), ptr, alignment=align))
        elif offset is not None and offset.stride == 0 and self.is_uniform(op.value):
            ptr = em.gep(self.body.get(op.buffer), offset.base, element)
            em.emit(llvm.StoreOp(self.body.get(op.value), ptr, alignment=align))
        else:  # scatter, lanes in order (the last lane wins on a shared address)
            values = self.lanes_of(op.value)
            for address, value in zip(self.lane_addresses(op.buffer, op.indices), values):
                em.emit(llvm.StoreOp(value, address, alignment=align))

    def varying_op(self, op: Operation) -> None:
        em = self.em
        result = op.results[0]
        vty = self.vector_type(result.type)
        cls = type(op)
        if cls is arith.AddfOp and (fma := self.fma_operands(op)) is not None:
            name = f"llvm.fmuladd.v{self.lanes}{intrinsic_suffix(result.type)}"
            vec = em.value(llvm.CallIntrinsicOp(name, [self.vector(v) for v in fma], [vty]))
        elif cls in _FLOAT_BINARY:
            assert isinstance(op, arith.FloatingPointLikeBinaryOperation)
            a, b = (self.vector(v) for v in op.operands)
            fastmath = llvm.FastMathAttr(op.fastmath.data)
            vec = em.value(_FLOAT_BINARY[cls](a, b, fastmath))  # type: ignore[call-arg]
        elif cls in _INT_BINARY:
            a, b = (self.vector(v) for v in op.operands)
            vec = em.value(_INT_BINARY[cls](a, b))  # type: ignore[call-arg]
        elif cls in _INTRINSICS:
            name = f"llvm.{_INTRINSICS[cls]}.v{self.lanes}{intrinsic_suffix(result.type)}"
            operands = [self.vector(v) for v in op.operands]
            vec = em.value(llvm.CallIntrinsicOp(name, operands, [vty]))
        elif cls is arith.NegfOp:
            vec = em.value(llvm.FNegOp(self.vector(op.operands[0])))
        elif cls is arith.SelectOp and self.is_uniform(op.operands[0]):
            # xDSL's llvm.select takes an i1 condition only: a varying one
            # selects lane by lane
            a, b = (self.vector(v) for v in op.operands[1:])
            vec = em.value(llvm.SelectOp(self.body.get(op.operands[0]), a, b))
        else:
            vec = self.lane_wise(op)
        self.vectors[result] = vec

    def fma_operands(self, op: Operation) -> tuple[SSAValue, SSAValue, SSAValue] | None:
        """`(a, b, c)` when `op` is `c + a * b` with a product used only here
        (the separate product is then dead; LLVM drops it)."""
        for product, addend in (op.operands, op.operands[::-1]):
            mul = product.owner
            if (
                isinstance(mul, arith.MulfOp)
                and mul in self.loop_ops
                and product.has_one_use()
                and mul.fastmath == op.fastmath  # type: ignore[attr-defined]
            ):
                return mul.lhs, mul.rhs, addend
        return None

    def lane_wise(self, op: Operation) -> SSAValue:
        """`op` applied lane by lane with its scalar lowering."""
        lowering = LOWERINGS.get(type(op))
        if lowering is None:
            self.body.lower_op(op)  # raises the lowering's "no lowering" error
        assert lowering is not None
        per_operand = [self.lanes_of(o) for o in op.operands]
        scalars = [
            lowering(op, [lanes[k] for lanes in per_operand], self.em, self.body.externs)
            for k in range(self.lanes)
        ]
        return self.gather(scalars)


def lower_vectorized_for(body: BodyLowering, op: ForOp) -> bool:
    """Lower `op` as one vector iteration if it qualifies; False otherwise
    (the caller then emits the scalar loop)."""
    lanes = vector_extent(op)
    if lanes is None:
        return False
    VectorBody(body, op, lanes).lower(list(op.body.block.ops))
    return True

