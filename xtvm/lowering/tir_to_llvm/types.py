"""Types of the tir → llvm lowering and the DLPack dtypes of arguments."""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ReducedPrecisionFloatType,
    Signedness,
    i64,
)
from xdsl.ir import Attribute, Operation

from xtvm.dtypes import REDUCED_FLOATS, dtype_name

PTR = llvm.LLVMPointerType()

DL_INT, DL_UINT, DL_FLOAT, DL_BOOL = 0, 1, 2, 6
"""DLPack `DLDataTypeCode`s used by xtvm (see docs/abi.md)."""

DL_REDUCED_FLOAT_CODES = {
    "bfloat16": 4,
    "float8_e4m3fn": 10,
    "float8_e4m3fnuz": 11,
    "float8_e5m2": 12,
    "float8_e5m2fnuz": 13,
    "float8_e8m0fnu": 14,
    "float4_e2m1fn": 17,
}
"""DLPack (v1.1) `kDLBfloat` and `kDLFloat8_*`/`kDLFloat4_e2m1fn` codes of the
storage-only floats (docs/element-types.md); the runtime's `DTYPE_CODES` has
the same numbers."""

StorageFloat = BFloat16Type | ReducedPrecisionFloatType
"""Storage-only floats: those with a dtype (`xtvm.dtypes.REDUCED_FLOATS`) are
held as integers of their width in llvm (bf16 → i16, f8 → i8); their values
are converted with integer operations in `te`."""


class LoweringError(Exception):
    """A construct `convert-tir-to-llvm` cannot lower; the message names it.

    `op`, once known, is the tir/arith/math op being lowered, where
    `xtvm-opt` reports the error (its `file:line:col`)."""

    op: Operation | None = None


def llvm_type(ty: Attribute) -> Attribute:
    """The llvm-dialect type of a tir value: index → i64, memref → !llvm.ptr,
    unsigned integers → signless, floats unchanged, storage-only floats
    (bf16, f8E4M3FN, ...) → the integer of their width."""
    if isinstance(ty, IndexType):
        return i64
    if isinstance(ty, StorageFloat) and ty in REDUCED_FLOATS.values():
        return IntegerType(ty.bitwidth)
    if isinstance(ty, IntegerType):
        return IntegerType(ty.width.data)
    if isinstance(ty, Float16Type | Float32Type | Float64Type):
        return ty
    if isinstance(ty, MemRefType | llvm.LLVMPointerType):
        return PTR
    raise LoweringError(f"convert-tir-to-llvm: no llvm type for {ty}")


def intrinsic_suffix(ty: Attribute) -> str:
    """The overload suffix of an LLVM intrinsic for a scalar type (`f32`, `i64`)."""
    ty = llvm_type(ty)
    if isinstance(ty, IntegerType):
        return f"i{ty.width.data}"
    if isinstance(ty, Float16Type):
        return "f16"
    if isinstance(ty, Float32Type):
        return "f32"
    if isinstance(ty, Float64Type):
        return "f64"
    raise LoweringError(f"convert-tir-to-llvm: no intrinsic suffix for {ty}")


def byte_size(ty: Attribute) -> int:
    """Storage size in bytes of a scalar element type or pointer (i1 takes one byte)."""
    ty = llvm_type(ty)
    if ty == PTR:
        return 8
    if isinstance(ty, IntegerType):
        return max(1, (ty.width.data + 7) // 8)
    if isinstance(ty, Float16Type):
        return 2
    if isinstance(ty, Float32Type):
        return 4
    if isinstance(ty, Float64Type):
        return 8
    raise LoweringError(f"convert-tir-to-llvm: no storage size for {ty}")


def arg_dtype(ty: Attribute) -> str:
    """The dtype name a caller's tensor must have for a prim_func argument.

    Buffers use their element type; `index` scalars are `int64`.
    """
    element = ty.element_type if isinstance(ty, MemRefType) else ty
    if isinstance(element, IndexType):
        return "int64"
    return dtype_name(element)


def dl_dtype(ty: Attribute) -> tuple[int, int, int]:
    """The DLPack `(code, bits, lanes)` of a prim_func argument (see `arg_dtype`)."""
    element = ty.element_type if isinstance(ty, MemRefType) else ty
    if isinstance(element, IndexType):
        return DL_INT, 64, 1
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 1:
            return DL_BOOL, 8, 1
        unsigned = element.signedness.data == Signedness.UNSIGNED
        return (DL_UINT if unsigned else DL_INT), width, 1
    if isinstance(element, Float16Type | Float32Type | Float64Type):
        return DL_FLOAT, 8 * byte_size(element), 1
    if isinstance(element, StorageFloat):
        return DL_REDUCED_FLOAT_CODES[dtype_name(element)], element.bitwidth, 1
    raise LoweringError(f"convert-tir-to-llvm: no DLPack dtype for {ty}")
