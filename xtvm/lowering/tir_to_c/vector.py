"""Vectorized loops as GCC vector extensions, where the body allows it.

The llvm path turns a `vectorized` loop of constant extent into one
iteration on LLVM vectors (`tir_to_llvm/vectorize.py`): the loop is gone,
so LLVM keeps a register tile's accumulator (`tir.allocate "local"`) in
registers across the enclosing reduction loop. A plain C loop, even under
`omp simd`, leaves it in memory (GCC's loop invariant motion does not look
into the inner loop): SqueezeNet's last convolution ran 7x slower.

So a vectorized loop whose body is only contiguous or uniform loads and
stores of f32/f64 buffers, `+ - * /` and negation on them, and index
arithmetic affine in the loop variable becomes straight-line code on
vectors of the extent split into power-of-two chunks (13 lanes: 8 + 4 + 1;
chunks up to 64 bytes):

    tir.for %l = 0 to 13 kind "vectorized" { acc[l] += x * w[k * 13 + l] }
  becomes
    { xtvm_f32x8 a0 = XTVM_VLOAD(xtvm_f32x8, &acc[0]); ...; XTVM_VSTORE(&acc[0], a0 + x * w0); }
    { xtvm_f32x4 ... &acc[8] ... }
    { const float ... acc[12] ... }

Uniform values (not depending on the loop variable) are computed once as
scalars (GCC broadcasts a scalar operand of a vector op). Anything else —
other ops, a store to a uniform address, a stride other than 0 or 1 —
keeps the plain loop with `omp simd` (`function.py`). Chunks run in order,
each loading before it stores, as the lanes of a serial loop would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, IndexType, IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue

from xtvm.arith import compact_strides
from xtvm.dialects.tir import ForOp, LoadOp, StoreOp, YieldOp

MAX_LANES = 64
VECTOR_BYTES = 64
_FLOAT_OPS = {arith.AddfOp: "+", arith.SubfOp: "-", arith.MulfOp: "*", arith.DivfOp: "/"}


@dataclass(frozen=True)
class Affine:
    """An index value `base + coef * lane`, `base` a C expression of lane 0."""

    base: str
    coef: int


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _chunks(lanes: int, width: int) -> list[tuple[int, int]]:
    """`(first lane, lanes)` of power-of-two chunks of at most `width` lanes."""
    chunks, start = [], 0
    while start < lanes:
        size = width
        while size > lanes - start:
            size //= 2
        chunks.append((start, size))
        start += size
    return chunks


class _Plan:
    """The analysis of one loop: affine index values, varying float values."""

    def __init__(self, writer, loop: ForOp, lb: int):
        self.writer = writer
        self.loop = loop
        self.affine: dict[SSAValue, Affine] = {loop.induction_var: Affine(str(lb), 1)}
        self.varying: set[SSAValue] = set()
        self.element: Float32Type | Float64Type | None = None

    def index(self, value: SSAValue) -> Affine | None:
        if value in self.affine:
            return self.affine[value]
        if not isinstance(value.type, IndexType):
            return None
        if self.loop.is_ancestor(value.owner) if isinstance(value.owner, Operation) else False:
            return None  # defined in the body by an op we did not analyse
        return Affine(self.writer.values[value], 0)

    def offset(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> Affine | None:
        ty = buffer.type
        assert isinstance(ty, MemRefType)
        parts, coef = [], 0
        for index, stride in zip(indices, compact_strides(ty.get_shape()), strict=True):
            a = self.index(index)
            if a is None:
                return None
            parts.append(a.base if stride == 1 else f"{a.base} * {stride}")
            coef += a.coef * stride
        return Affine(" + ".join(parts) or "0", coef)

    def analyse(self) -> bool:
        """Whether every op of the body is one the vector form handles."""
        for op in self.loop.body.block.ops:
            if isinstance(op, YieldOp):
                continue
            if isinstance(op, arith.ConstantOp):
                if isinstance(op.result.type, IndexType):
                    self.affine[op.result] = Affine(self.writer.values.get(op.result) or "", 0)
                continue
            if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp) and isinstance(
                op.result.type, IndexType
            ):
                if not self._index_op(op):
                    return False
            elif isinstance(op, LoadOp | StoreOp):
                if not self._access(op):
                    return False
            elif type(op) in _FLOAT_OPS or isinstance(op, arith.NegfOp):
                if not self._element(op.results[0].type):
                    return False
                if any(o in self.varying for o in op.operands):
                    self.varying.add(op.results[0])
            else:
                return False
        return True

    def _element(self, ty) -> bool:
        if not isinstance(ty, Float32Type | Float64Type):
            return False
        self.element = self.element or ty
        return ty == self.element

    def _index_op(self, op: Operation) -> bool:
        a, b = (self.index(v) for v in op.operands)
        if a is None or b is None:
            return False
        if isinstance(op, arith.MuliOp):
            if a.coef and b.coef:
                return False
            factor = _constant(op.operands[1] if a.coef else op.operands[0])
            if (a.coef or b.coef) and factor is None:
                return False
            coef = (a.coef or b.coef) * (factor or 0)
            result = Affine(f"({a.base}) * ({b.base})", coef)
        else:
            sign = "+" if isinstance(op, arith.AddiOp) else "-"
            coef = a.coef + b.coef if sign == "+" else a.coef - b.coef
            result = Affine(f"({a.base}) {sign} ({b.base})", coef)
        self.affine[op.results[0]] = result
        return True

    def _access(self, op: LoadOp | StoreOp) -> bool:
        value = op.res if isinstance(op, LoadOp) else op.value
        if not self._element(value.type):
            return False
        offset = self.offset(op.buffer, op.indices)
        if offset is None or offset.coef not in (0, 1):
            return False
        if isinstance(op, StoreOp):
            return offset.coef == 1  # a uniform store would be a cross-lane reduction
        if offset.coef == 1:
            self.varying.add(op.res)
        return True


def write_vectorized(writer, loop: ForOp) -> bool:
    """Write `loop` as vector chunks if its body allows (see the module
    docstring); False leaves it to the caller, nothing written."""
    lb, ub = _constant(loop.lb), _constant(loop.ub)
    if lb is None or ub is None or not 2 <= ub - lb <= MAX_LANES:
        return False
    for op in loop.body.block.ops:  # constants first, so the plan can read them
        if isinstance(op, arith.ConstantOp):
            writer.op(op)
    plan = _Plan(writer, loop, lb)
    if not plan.analyse() or plan.element is None:
        return False
    scalar = "float" if isinstance(plan.element, Float32Type) else "double"
    width = VECTOR_BYTES // (4 if scalar == "float" else 8)
    uniform: dict[SSAValue, str] = {}
    for op in loop.body.block.ops:  # uniform values once, as scalars
        if isinstance(op, LoadOp) and op.res not in plan.varying:
            offset = plan.offset(op.buffer, op.indices)
            assert offset is not None
            name = writer.names.fresh(op.res.name_hint)
            writer.line(f"const {scalar} {name} = {writer.values[op.buffer]}[{offset.base}];")
            uniform[op.res] = name
        elif (type(op) in _FLOAT_OPS or isinstance(op, arith.NegfOp)) and op.results[
            0
        ] not in plan.varying:
            name = writer.names.fresh(op.results[0].name_hint)
            writer.line(f"const {scalar} {name} = {_expression(op, uniform, writer)};")
            uniform[op.results[0]] = name
    for start, lanes in _chunks(ub - lb, width):
        vector = scalar if lanes == 1 else f"xtvm_{'f32' if scalar == 'float' else 'f64'}x{lanes}"
        writer.line("{")
        writer.depth += 1
        local = dict(uniform)
        for op in loop.body.block.ops:
            if isinstance(op, LoadOp) and op.res in plan.varying:
                offset = plan.offset(op.buffer, op.indices)
                assert offset is not None
                address = f"&{writer.values[op.buffer]}[{offset.base} + {start}]"
                name = writer.names.fresh(op.res.name_hint)
                load = f"*({address})" if lanes == 1 else f"XTVM_VLOAD({vector}, {address})"
                writer.line(f"const {vector} {name} = {load};")
                local[op.res] = name
            elif op.results and op.results[0] in plan.varying:
                name = writer.names.fresh(op.results[0].name_hint)
                writer.line(f"const {vector} {name} = {_expression(op, local, writer)};")
                local[op.results[0]] = name
            elif isinstance(op, StoreOp):
                offset = plan.offset(op.buffer, op.indices)
                assert offset is not None
                address = f"&{writer.values[op.buffer]}[{offset.base} + {start}]"
                value = local.get(op.value) or writer.values[op.value]
                if lanes == 1:
                    writer.line(f"*({address}) = {value};")
                else:
                    if op.value not in plan.varying:  # a uniform value in every lane
                        value = f"({vector}){{0}} + {value}"
                    writer.line(f"XTVM_VSTORE({address}, {value});")
        writer.depth -= 1
        writer.line("}")
    return True


def _expression(op: Operation, names: dict[SSAValue, str], writer) -> str:
    """The C of a float op on vectors or scalars (names of this chunk, else the function's)."""

    def get(v: SSAValue) -> str:
        return names[v] if v in names else writer.values[v]

    if isinstance(op, arith.NegfOp):
        return f"-{get(op.operands[0])}"
    return f"{get(op.operands[0])} {_FLOAT_OPS[type(op)]} {get(op.operands[1])}"
