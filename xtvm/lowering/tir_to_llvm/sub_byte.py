"""Loads and stores of packed sub-byte buffers: the one place that knows
their layout in convert-tir-to-llvm.

A buffer of ``i4``, ``ui4``, ``i2``, ``ui2`` or ``f4E2M1FN`` elements
holds ``8 // bits`` elements a byte, low bits first (ONNX's packing,
docs/sub-byte-types.md). Element ``k`` (the row-major offset of its
indices) is bits ``[s, s + bits)`` of byte ``k >> log2(8 // bits)``, with
``s = (k & (8 // bits - 1)) * bits``:

    load:   %b = load i8, %A[k >> 1] ; %v = trunc (lshr %b, s) to i4
    store:  %b = load i8, %A[k >> 1]
            store (%b & ~(15 << s)) | (zext %v << s), %A[k >> 1]

A loaded value is an LLVM integer of the element's width (``i4``; an
``f4E2M1FN`` is its bit pattern), so signed ones sign-extend where they are
widened (``sext``, ``sitofp``). A store is a read-modify-write of its byte:
loops that store into a sub-byte buffer run serially, neither vectorised
nor split across threads (two threads could write one byte), which
:func:`stores_sub_byte` lets the loop lowering decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerType, MemRefType, i8
from xdsl.ir import Operation, SSAValue

from xtvm.dialects.tir import LoadOp, StoreOp
from xtvm.dtypes import sub_byte_bits

if TYPE_CHECKING:
    from xtvm.lowering.tir_to_llvm.function import BodyLowering


def buffer_bits(buffer: SSAValue) -> int | None:
    """The element width of a packed sub-byte buffer, or None."""
    ty = buffer.type
    return sub_byte_bits(ty.element_type) if isinstance(ty, MemRefType) else None


def touches_sub_byte(op: Operation) -> bool:
    """Whether a loop ``op`` loads or stores a packed sub-byte buffer."""
    return any(
        isinstance(inner, LoadOp | StoreOp) and buffer_bits(inner.buffer) is not None
        for inner in op.walk()
    )


def stores_sub_byte(op: Operation) -> bool:
    """Whether a loop ``op`` stores into a packed sub-byte buffer."""
    return any(
        isinstance(inner, StoreOp) and buffer_bits(inner.buffer) is not None for inner in op.walk()
    )


def _position(
    body: BodyLowering, buffer: SSAValue, indices: Sequence[SSAValue], bits: int
) -> tuple[SSAValue, SSAValue]:
    """The address of the byte holding ``buffer[indices]`` and the element's
    bit offset in it (an i8)."""
    em = body.em
    offset = body.linear_offset(buffer, [body.get(i) for i in indices])
    per_byte = 8 // bits
    log = per_byte.bit_length() - 1
    byte = em.value(llvm.LShrOp(offset, em.int_const(log)))
    lane = em.value(llvm.AndOp(offset, em.int_const(per_byte - 1)))
    shift = em.value(llvm.TruncOp(em.mul(lane, em.int_const(bits)), i8))
    return em.gep(body.get(buffer), byte, i8), shift


def load(body: BodyLowering, op: LoadOp, bits: int) -> SSAValue:
    """``op``'s element: its byte shifted right, truncated to ``bits``."""
    em = body.em
    ptr, shift = _position(body, op.buffer, op.indices, bits)
    byte = em.load(ptr, i8, 1)
    shifted = em.value(llvm.LShrOp(byte, shift))
    return em.value(llvm.TruncOp(shifted, IntegerType(bits)))


def store(body: BodyLowering, op: StoreOp, bits: int) -> None:
    """Writes ``op``'s value into its bits of its byte, keeping the others."""
    em = body.em
    ptr, shift = _position(body, op.buffer, op.indices, bits)
    byte = em.load(ptr, i8, 1)
    mask = em.value(llvm.ShlOp(em.int_const((1 << bits) - 1, i8), shift))
    kept = em.value(llvm.AndOp(byte, em.value(llvm.XOrOp(mask, em.int_const(-1, i8)))))
    value = em.value(llvm.ZExtOp(body.get(op.value), i8))
    placed = em.value(llvm.ShlOp(value, shift))
    em.emit(llvm.StoreOp(em.value(llvm.OrOp(kept, placed)), ptr, alignment=1))
