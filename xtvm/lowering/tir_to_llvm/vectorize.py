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
vector memory ops; a load of a ramp of stride 2 to `MAX_STRIDED_LOAD` is one
load of the span it covers and a shuffle; other varying addresses are
gathered or scattered lane by lane. `addf(x, mulf(a, b))` with a single-use product becomes a fused
multiply-add (`llvm.fmuladd`, which LLVM turns into FMA instructions).
Ops without a vector form here run lane by lane through the scalar
lowerings. A loop whose extent is not a constant in [2, 64], whose body
holds nested control flow, or which accesses a buffer of `i1` (bytes in
memory, bits in an LLVM vector), or which carries a value from one
iteration to the next through a one-address temporary, is left to the
scalar lowering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerType,
    MemRefType,
    VectorType,
    i1,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xtvm.arith import compact_strides
from xtvm.dialects.tir import CallExternOp, CallIntrinOp, ForOp, IfOp, LoadOp, StoreOp, YieldOp
from xtvm.lowering.tir_to_llvm.arith import FloatArithmetic, IntegerArithmetic, MinMax
from xtvm.lowering.tir_to_llvm.math import Intrinsic
from xtvm.lowering.tir_to_llvm.scalar import LOWERINGS
from xtvm.lowering.tir_to_llvm.scalar_pattern import int_width
from xtvm.lowering.tir_to_llvm.types import LoweringError, byte_size, intrinsic_suffix, llvm_type
from xtvm.target import MAX_VECTOR_LANES

if TYPE_CHECKING:
    from xtvm.lowering.tir_to_llvm.function import BodyLowering

# Which ops have a vector form is the vectorizer's choice; the llvm op or
# intrinsic each becomes is its scalar family's (arith.py, math.py).
_FLOAT_BINARY: dict[type[Operation], type[Operation]] = dict(FloatArithmetic.LLVM)
"""addf, subf, mulf, divf: the llvm instruction on vectors."""
_INT_BINARY: dict[type[Operation], type[Operation]] = {
    op: IntegerArithmetic.LLVM[op][0]
    for op in (
        arith.AddiOp,
        arith.SubiOp,
        arith.MuliOp,
        arith.ShLIOp,
        arith.ShRSIOp,
        arith.ShRUIOp,
        arith.AndIOp,
        arith.OrIOp,
        arith.XOrIOp,
    )
}
"""addi, subi, muli, shifts and bitwise ops: the llvm instruction on vectors
(without overflow flags)."""
_INTRINSICS: dict[type[Operation], str] = dict(MinMax.INTRINSICS) | {
    op: Intrinsic.INTRINSICS[op][0]
    for op in (
        math.AbsFOp,
        math.SqrtOp,
        math.FloorOp,
        math.CeilOp,
        math.FmaOp,
        math.RoundOp,
        math.RoundEvenOp,
        math.TruncOp,
    )
}
"""Ops whose vector form is the same LLVM intrinsic on a vector type."""
_RESIZE: dict[type[Operation], tuple[type[Operation], type[Operation]]] = {
    # op: (widening llvm op, narrowing llvm op)
    arith.ExtSIOp: (llvm.SExtOp, llvm.TruncOp),
    arith.ExtUIOp: (llvm.ZExtOp, llvm.TruncOp),
    arith.TruncIOp: (llvm.SExtOp, llvm.TruncOp),
}
"""Integer width changes (IntegerResize's) on vectors."""
_ROUNDING_MAGIC: dict[str, tuple[int, float, int]] = {
    # float type: (bits, 1.5 * 2^mantissa bits, its bit pattern)
    "f32": (32, 12582912.0, 0x4B400000),
    "f64": (64, 6755399441055744.0, 0x4338000000000000),
}
"""An integral float x of magnitude under 2^(mantissa - 1) plus the constant
has x's bits at the bottom: its bit pattern minus the constant's is x."""
LANE_INTRINSICS: dict[str, int] = {
    "llvm.x86.avx512.vpdpbusd.512": 16,
    "llvm.x86.avx512.vpdpbusd.256": 8,
}
"""`tir.call_intrin` callees that act lane by lane on i32 words, by their
lane count: the scalar call in the body of a vectorized loop of that many
lanes is one call on vectors (int8 dot products: four bytes a word)."""


MAX_STRIDED_LOAD = 4
"""Largest constant stride a vector load takes as one contiguous load and a
shuffle; a larger one loads lane by lane."""


@lru_cache(maxsize=1024)
def vector_of(element: Attribute, lanes: int) -> VectorType:
    """``vector<lanes x element>``, made once (attributes are immutable; making
    and verifying one per op was a tenth of the lowering's time)."""
    return VectorType(element, [lanes])


@lru_cache(maxsize=1024)
def lane_mask(lanes: tuple[int, ...]) -> DenseArrayBase:
    """A shufflevector mask (``i32`` lanes), made once."""
    return DenseArrayBase.from_list(i32, list(lanes))


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
    if lb is None or ub is None or not 2 <= ub - lb <= MAX_VECTOR_LANES:
        return None
    body = list(op.body.block.ops)
    for inner in body:
        if isinstance(inner, ForOp | IfOp) or inner.regions:
            return None
        if isinstance(inner, LoadOp | StoreOp) and _is_bool(inner.buffer):
            return None  # a vector of i1 in memory is packed bits, not bytes
    if _carried_through_memory(op.induction_var, body):
        return None
    return ub - lb


def _carried_through_memory(iv: SSAValue, body: Sequence[Operation]) -> bool:
    """Whether some element is stored with a value that differs between
    iterations at an address that does not, and read in the body too (a
    scalar temporary, or a reduction into one element): as one vector
    iteration every lane would read the last lane's value."""
    varying: set[SSAValue] = {iv}
    stored: set[SSAValue] = set()
    loaded: set[SSAValue] = set()
    for inner in body:
        if any(o in varying for o in inner.operands):
            varying.update(inner.results)
        if isinstance(inner, StoreOp):
            if inner.value in varying and not any(i in varying for i in inner.indices):
                stored.add(inner.buffer)
        elif isinstance(inner, LoadOp):
            loaded.add(inner.buffer)
    # a value loaded from a buffer the loop writes varies too
    return bool(stored & loaded)


def _is_bool(buffer: SSAValue) -> bool:
    ty = buffer.type
    return isinstance(ty, MemRefType) and ty.element_type == i1


class VectorBody:
    """Lowers the body of one vectorized loop as a single vector iteration."""

    def __init__(self, body: BodyLowering, op: ForOp, lanes: int):
        self.body = body
        self.em = body.em
        self.lanes = lanes
        self.loop_ops = set(op.body.block.ops)
        self.ramps: dict[SSAValue, Ramp] = {op.induction_var: Ramp(body.get(op.lb), 1)}
        self.vectors: dict[SSAValue, SSAValue] = {}
        self.ramp_vectors: dict[SSAValue, SSAValue] = {}
        """Ramps materialised as vectors (for an op with no ramp form)."""
        # products that only feed an addf: emitted as part of its fmuladd
        # (or, if that sum turns out uniform, right before it)
        self.deferred: set[Operation] = {
            mul for mul in self.loop_ops if self._fusable_product(mul) is not None
        }

    # -- classification ---------------------------------------------------------------

    def is_uniform(self, value: SSAValue) -> bool:
        return value not in self.ramps and value not in self.vectors

    def vector_type(self, scalar: Attribute) -> VectorType:
        return vector_of(llvm_type(scalar), self.lanes)

    # -- vector building blocks ---------------------------------------------------------

    def broadcast(self, scalar: SSAValue) -> SSAValue:
        em = self.em
        ty = vector_of(scalar.type, self.lanes)
        zero = self.body.index_constant(0)
        one = em.value(llvm.InsertElementOp(em.value(llvm.UndefOp(ty)), scalar, zero))
        mask = lane_mask((0,) * self.lanes)
        return em.value(llvm.ShuffleVectorOp(one, one, mask, ty))

    def lane_offsets(self, stride: int, ty: Attribute) -> SSAValue:
        """The constant vector `[0, stride, 2*stride, ...]` of integer type `ty`."""
        vty = vector_of(ty, self.lanes)
        values = DenseIntOrFPElementsAttr.from_list(vty, [stride * k for k in range(self.lanes)])
        return self.em.value(llvm.ConstantOp(values, vty))

    def vector(self, value: SSAValue) -> SSAValue:
        """`value` as a vector: varying values as they are, uniform ones
        broadcast, ramps materialised as `broadcast(base) + [0, s, 2s, ...]`."""
        if value in self.vectors:
            return self.vectors[value]
        if value in self.ramps:  # cached apart: the value stays a ramp for addressing
            if value not in self.ramp_vectors:
                ramp = self.ramps[value]
                base = self.broadcast(ramp.base)
                offsets = self.lane_offsets(ramp.stride, ramp.base.type)
                self.ramp_vectors[value] = self.em.value(llvm.AddOp(base, offsets))
            return self.ramp_vectors[value]
        vec = self.broadcast(self.body.get(value))
        self.vectors[value] = vec
        return vec

    def lane(self, vec: SSAValue, k: int) -> SSAValue:
        """Lane `k` of `vec` (a one-lane shuffle, then a bitcast to the scalar)."""
        assert isinstance(vec.type, VectorType)
        mask = lane_mask((k,))
        one = self.em.value(
            llvm.ShuffleVectorOp(vec, vec, mask, vector_of(vec.type.element_type, 1))
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
            vec = em.value(llvm.InsertElementOp(vec, scalar, self.body.index_constant(k)))
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
            term = base if dim_stride == 1 else em.mul(base, self.body.index_constant(dim_stride))
            offset = term if offset is None else em.add(offset, term)
        return Ramp(offset if offset is not None else self.body.index_constant(0), stride)

    def lane_addresses(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> list[SSAValue]:
        """The address of each lane's element (gather/scatter fallback)."""
        per_index = [self.lanes_of(i) for i in indices]
        return [
            self.body.element_address(buffer, [lanes[k] for lanes in per_index])
            for k in range(self.lanes)
        ]

    # -- ops ----------------------------------------------------------------------------

    def lower(self, block_ops: Sequence[Operation]) -> None:
        for op in block_ops:
            if isinstance(op, YieldOp) or op in self.deferred:
                continue
            if self._fma_candidate(op):
                product = self.fma_operands(op)
                assert product is not None
                for operand in op.operands:  # an addend that is a product too
                    if operand.owner in self.deferred and operand not in product[2:]:
                        continue
                    if operand.owner in self.deferred:
                        self.deferred.discard(operand.owner)
                        self.lower([operand.owner])  # type: ignore[list-item]
                self.varying_op(op)  # a fmuladd of its deferred product
                continue
            for operand in op.operands:
                if operand.owner in self.deferred:
                    self.deferred.discard(operand.owner)
                    self.lower([operand.owner])  # type: ignore[list-item]
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
            vty = vector_of(element, self.lanes)
            self.vectors[op.res] = em.load(ptr, vty, byte_size(element))
        elif offset is not None and 1 < offset.stride <= MAX_STRIDED_LOAD:
            # a small constant stride (a stride-2 pool or depthwise conv): the
            # span the lanes cover, loaded whole (no element past the last
            # lane's), and every stride-th element of it shuffled out
            span = (self.lanes - 1) * offset.stride + 1
            ptr = em.gep(self.body.get(op.buffer), offset.base, element)
            wide = em.load(ptr, vector_of(element, span), byte_size(element))
            mask = lane_mask(tuple(offset.stride * k for k in range(self.lanes)))
            self.vectors[op.res] = em.value(
                llvm.ShuffleVectorOp(wide, wide, mask, vector_of(element, self.lanes))
            )
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
            ptr = em.value(llvm.GEPOp(ptr, [0], vector_of(element, self.lanes), inbounds=True))
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
        elif cls in _RESIZE and result.type != op.operands[0].type:
            widen, narrow = _RESIZE[cls]
            wider = int_width(result.type) > int_width(op.operands[0].type)
            vec = em.value((widen if wider else narrow)(self.vector(op.operands[0]), vty))
        elif cls is arith.SIToFPOp:
            vec = em.value(llvm.SIToFPOp(self.vector(op.operands[0]), vty))
        elif cls in (arith.FPToSIOp, arith.FPToUIOp):
            vec = self.float_to_int(op, vty)
        elif isinstance(op, CallIntrinOp) and LANE_INTRINSICS.get(op.callee.data) == self.lanes:
            operands = [self.vector(v) for v in op.operands]
            vec = em.value(llvm.CallIntrinsicOp(op.callee.data, operands, [vty]))
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

    def float_to_int(self, op: Operation, vty: VectorType) -> SSAValue:
        """`fptosi`/`fptoui` on vectors, saturating (FloatIntConversion's
        semantics: NaN gives 0). To fewer than 32 bits from f32 or f64, where
        LLVM would convert lane by lane: clamped to the narrow range in the
        float type (NaN dropped to 0 by `maxnum`/`minnum`), truncated toward
        zero, made an integer by adding 1.5·2^mantissa and subtracting the
        bits of that constant, then narrowed."""
        em = self.em
        signed = isinstance(op, arith.FPToSIOp)
        source = llvm_type(op.operands[0].type)
        x = self.vector(op.operands[0])
        src = f"v{self.lanes}{intrinsic_suffix(source)}"
        width = int_width(op.results[0].type)
        if width >= 32 or intrinsic_suffix(source) not in _ROUNDING_MAGIC:
            sign = "s" if signed else "u"
            dst = f"v{self.lanes}{intrinsic_suffix(op.results[0].type)}"
            name = f"llvm.fpto{sign}i.sat.{dst}.{src}"
            return em.value(llvm.CallIntrinsicOp(name, [x], [vty]))
        bits, offset, offset_bits = _ROUNDING_MAGIC[intrinsic_suffix(source)]
        fty = vector_of(source, self.lanes)

        def splat(value: float) -> SSAValue:
            attr = DenseIntOrFPElementsAttr.from_list(fty, [value] * self.lanes)
            return em.value(llvm.ConstantOp(attr, fty))

        def call(name: str, *args: SSAValue) -> SSAValue:
            return em.value(llvm.CallIntrinsicOp(f"llvm.{name}.{src}", list(args), [fty]))

        zero = splat(0.0)
        high = splat(float((1 << (width - 1)) - 1 if signed else (1 << width) - 1))
        clamped = call("minnum", call("maxnum", x, zero), high)
        if signed:  # the negative part separately, so that NaN gives 0 + 0
            low = call("maxnum", call("minnum", x, zero), splat(float(-(1 << (width - 1)))))
            clamped = em.value(llvm.FAddOp(clamped, low))
        shifted = em.value(llvm.FAddOp(call("trunc", clamped), splat(offset)))
        ity = vector_of(IntegerType(bits), self.lanes)
        as_int = em.value(llvm.BitcastOp(shifted, ity))
        attr = DenseIntOrFPElementsAttr.from_list(ity, [offset_bits] * self.lanes)
        value = em.value(llvm.SubOp(as_int, em.value(llvm.ConstantOp(attr, ity))))
        return em.value(llvm.TruncOp(value, vty))

    def _fusable_product(self, mul: Operation) -> Operation | None:
        """The addf that `mul` (a product of the loop body used only there) feeds."""
        if not isinstance(mul, arith.MulfOp) or not mul.result.has_one_use():
            return None
        add = next(iter(mul.result.uses)).operation
        if not isinstance(add, arith.AddfOp) or add not in self.loop_ops:
            return None
        return add if add.fastmath == mul.fastmath else None

    def _varying(self, value: SSAValue) -> bool:
        """Whether `value` differs between lanes (a deferred product: if one
        of its factors does)."""
        if value.owner in self.deferred:
            return any(not self.is_uniform(o) for o in value.owner.operands)
        return not self.is_uniform(value)

    def _fma_candidate(self, op: Operation) -> bool:
        """Whether `op` is a varying addf of a deferred product (it becomes a
        fmuladd); a uniform one needs its product computed first."""
        return (
            isinstance(op, arith.AddfOp)
            and any(o.owner in self.deferred for o in op.operands)
            and any(self._varying(o) for o in op.operands)
        )

    def fma_operands(self, op: Operation) -> tuple[SSAValue, SSAValue, SSAValue] | None:
        """`(a, b, c)` when `op` is `c + a * b` with a product used only here."""
        for product, addend in (op.operands, op.operands[::-1]):
            mul = product.owner
            if mul in self.deferred and self._fusable_product(mul) is op:
                assert isinstance(mul, arith.MulfOp)
                return mul.lhs, mul.rhs, addend
        return None

    def lane_wise(self, op: Operation) -> SSAValue:
        """`op` applied lane by lane with its scalar lowering (an extern call:
        one call per lane)."""
        per_operand = [self.lanes_of(o) for o in op.operands]
        lane_args = [[lanes[k] for lanes in per_operand] for k in range(self.lanes)]
        if isinstance(op, CallExternOp):
            result = llvm_type(op.res[0].type)
            calls = [self.body.externs.call(self.em, op.callee.data, a, result) for a in lane_args]
            return self.gather([c for c in calls if c is not None])
        lowering = LOWERINGS.get(type(op))
        if lowering is None:
            raise LoweringError(
                f"convert-tir-to-llvm: no lowering for {op.name} in a vectorized loop:\n{op}"
            )
        return self.gather([lowering(op, a, self.em, self.body.externs) for a in lane_args])


def lane_intrinsic_on_scalars(body: BodyLowering, op: CallIntrinOp) -> SSAValue:
    """A call of a `LANE_INTRINSICS` callee on scalars, outside a
    vectorized loop: the intrinsic on vectors holding the arguments in lane
    0, and lane 0 of its result."""
    em = body.em
    lanes = LANE_INTRINSICS[op.callee.data]
    scalar = llvm_type(op.res[0].type)
    vty = vector_of(scalar, lanes)
    zero = body.index_constant(0)
    args = [
        em.value(llvm.InsertElementOp(em.value(llvm.UndefOp(vty)), body.get(a), zero))
        for a in op.args
    ]
    vec = em.value(llvm.CallIntrinsicOp(op.callee.data, args, [vty]))
    mask = lane_mask((0,))
    one = em.value(llvm.ShuffleVectorOp(vec, vec, mask, vector_of(scalar, 1)))
    return em.value(llvm.BitcastOp(one, scalar))


def lower_vectorized_for(body: BodyLowering, op: ForOp) -> bool:
    """Lower `op` as one vector iteration if it qualifies; False otherwise
    (the caller then emits the scalar loop)."""
    lanes = vector_extent(op)
    if lanes is None:
        return False
    VectorBody(body, op, lanes).lower(list(op.body.block.ops))
    return True

