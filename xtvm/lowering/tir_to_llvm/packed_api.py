"""The packed entry point `i32 NAME(ptr %args, i32 %num_args)` (docs/abi.md).

`args` points to `num_args` pointers to DLPack `DLTensor`s. The entry checks,
in order, the argument count, then per argument: tensor and data not NULL,
`ndim`, dtype `(code, bits, lanes)`, every shape dimension, and strides
(NULL, or equal to the compact row-major strides for every dimension of
extent > 1, where the stride is never used). Only then does it call
`NAME_impl` with `data + byte_offset` of each tensor, and return its result.
A failed check returns `(kind << 16) | index` through one shared exit block:

    kind 1 count (index = num_args), 2 NULL, 3 ndim, 4 dtype, 5 shape,
    6 strides (index = argument position).

A scalar parameter (int, index, float) is passed as a rank-0 tensor of its
dtype (`index` as int64); the entry loads the value and passes it by value.

A dynamic axis (-1 in `tir.buffer_shapes`) is the extent of a shape
variable (`tir.shape_vars`): the first axis of that variable met in argument
order binds it, every later one must equal it (kind 5 otherwise, naming the
later argument), and the bound values are passed to `NAME_impl` after the
tensors, in the attribute's order. The strides of a tensor with a dynamic
axis are checked against the compact strides computed from its dimensions.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType, i8, i32, i64
from xdsl.ir import Attribute, Region, SSAValue

from xtvm.arith import compact_strides
from xtvm.dialects.tir import DYNAMIC, PrimFuncOp
from xtvm.lowering.tir_to_llvm.emitter import Emitter
from xtvm.lowering.tir_to_llvm.function import impl_name
from xtvm.lowering.tir_to_llvm.types import PTR, byte_size, dl_dtype, llvm_type

KIND_COUNT, KIND_NULL, KIND_NDIM, KIND_DTYPE, KIND_SHAPE, KIND_STRIDES = 1, 2, 3, 4, 5, 6

# DLTensor field offsets (x86-64).
_DATA, _NDIM, _DTYPE, _SHAPE, _STRIDES, _BYTE_OFFSET = 0, 16, 20, 24, 32, 40
DLTENSOR_OFFSETS = {
    "data": _DATA, "ndim": _NDIM, "dtype": _DTYPE, "shape": _SHAPE,
    "strides": _STRIDES, "byte_offset": _BYTE_OFFSET,
}
"""Where the entry reads each `DLTensor` field (other code generators assert the same layout)."""


@dataclass(frozen=True)
class ArgCheck:
    """What the packed entry checks of argument `index` (the one description
    of the checks: this file emits them as llvm ops, the C target as C)."""

    index: int
    type: Attribute
    """The prim_func argument's type: a memref (pass the data pointer) or a scalar (pass the value)."""
    shape: tuple[int, ...]
    """The logical shape: `ndim` is its length and every dimension must match."""
    dtype_word: int
    """`code | bits << 8 | lanes << 16`: the DLDataType read as one little-endian u32."""
    strides: tuple[tuple[int, int], ...]
    """`(dimension, compact stride)` for each dimension of extent > 1; a
    non-NULL strides array must hold exactly these."""

    @property
    def is_buffer(self) -> bool:
        return isinstance(self.type, MemRefType)


def argument_checks(func: PrimFuncOp) -> list[ArgCheck]:
    """The checks of every argument of `func`, in argument order (after the count check)."""
    checks = []
    for i, (arg, shape) in enumerate(zip(func.args, func.buffer_shapes, strict=True)):
        shape = shape or ()
        code, bits, lanes = dl_dtype(arg.type)
        strides = (
            tuple((k, s) for k, s in enumerate(compact_strides(shape)) if shape[k] != 1)
            if DYNAMIC not in shape
            else ()  # known at call time only: see _PackedEntry._check_dynamic_strides
        )
        checks.append(ArgCheck(i, arg.type, shape, code | (bits << 8) | (lanes << 16), strides))
    return checks


class _PackedEntry:
    """Builds the checks of one packed function, one block per check."""

    def __init__(self, func: PrimFuncOp):
        self.func = func
        self.region = Region()
        self.em = Emitter(self.region)
        self.args = self.em.block.insert_arg(PTR, 0)
        self.num_args = self.em.block.insert_arg(i32, 1)
        self.args.name_hint, self.num_args.name_hint = "args", "num_args"
        self.fail = self.em.new_block([i32])
        self.axis_vars = func.axis_vars()
        self.var_values: dict[str, SSAValue] = {}
        """The value bound to each shape variable so far."""

    def check(self, ok: SSAValue, kind: int, index: SSAValue | int) -> None:
        """Continue in a new block if `ok`, else return `(kind << 16) | index`."""
        em = self.em
        if isinstance(index, int):
            code = em.int_const((kind << 16) | index, i32)
        else:
            low = em.value(llvm.AndOp(index, em.int_const(0xFFFF, i32)))
            code = em.value(llvm.OrOp(low, em.int_const(kind << 16, i32)))
        cont = em.new_block()
        em.cond_br(ok, cont, self.fail, [], [code])
        em.block = cont

    def build(self) -> llvm.FuncOp:
        em = self.em
        em.block, fail_block = self.fail, em.block
        em.ret(self.fail.args[0])
        em.block = fail_block

        count = len(self.func.args)
        self.check(
            em.icmp("eq", self.num_args, em.int_const(count, i32)), KIND_COUNT, self.num_args
        )
        passed = [self.argument(check) for check in argument_checks(self.func)]
        passed += [self.var_values[name] for name in self.func.shape_vars]
        call = em.emit(llvm.CallOp(impl_name(self.func), *passed, return_type=i32))
        assert call.returned is not None
        em.ret(call.returned)
        return llvm.FuncOp(
            self.func.sym_name.data,
            llvm.LLVMFunctionType([PTR, i32], i32),
            linkage=llvm.LinkageAttr("external"),
            body=self.region,
        )

    def argument(self, check: ArgCheck) -> SSAValue:
        """Check one argument and return the value passed to the impl function."""
        em = self.em
        i, shape = check.index, check.shape
        slot = em.gep(self.args, em.int_const(i), PTR)
        tensor = em.load(slot, PTR, 8)
        self.check(self.em.not_null(tensor), KIND_NULL, i)
        data = em.load(tensor, PTR, 8)
        self.check(self.em.not_null(data), KIND_NULL, i)

        ndim = em.load(em.byte_gep(tensor, _NDIM), i32, 4)
        self.check(em.icmp("eq", ndim, em.int_const(len(shape), i32)), KIND_NDIM, i)

        dtype = em.load(em.byte_gep(tensor, _DTYPE), i32, 4)
        self.check(em.icmp("eq", dtype, em.int_const(check.dtype_word, i32)), KIND_DTYPE, i)

        if shape:
            dims = em.load(em.byte_gep(tensor, _SHAPE), PTR, 8)
            values = []
            for k, extent in enumerate(shape):
                dim = em.load(em.gep(dims, em.int_const(k), i64), i64, 8)
                values.append(dim)
                if extent == DYNAMIC:
                    self._bind_or_check(self.axis_vars[(i, k)], dim, i)
                else:
                    self.check(em.icmp("eq", dim, em.int_const(extent)), KIND_SHAPE, i)
            if DYNAMIC in shape:
                self._check_dynamic_strides(tensor, values, i)
            else:
                self._check_strides(tensor, check.strides, i)

        offset = em.load(em.byte_gep(tensor, _BYTE_OFFSET), i64, 8)
        start = em.gep(data, offset, i8)
        if check.is_buffer:
            return start
        value_type = llvm_type(check.type)
        return em.load(start, value_type, byte_size(value_type))

    def _check_strides(self, tensor: SSAValue, checked: tuple[tuple[int, int], ...], i: int) -> None:
        """strides == NULL, or compact wherever the extent exceeds 1."""
        em = self.em
        if not checked:
            return
        strides = em.load(em.byte_gep(tensor, _STRIDES), PTR, 8)
        compare, done = em.new_block(), em.new_block()
        em.cond_br(em.is_null(strides), done, compare)
        em.block = compare
        for k, stride in checked:
            got = em.load(em.gep(strides, em.int_const(k), i64), i64, 8)
            self.check(em.icmp("eq", got, em.int_const(stride)), KIND_STRIDES, i)
        em.br(done)
        em.block = done


    def _bind_or_check(self, name: str, dim: SSAValue, i: int) -> None:
        """Bind shape variable `name` to `dim`, or check `dim` against its value."""
        bound = self.var_values.get(name)
        if bound is None:
            self.var_values[name] = dim
        else:
            self.check(self.em.icmp("eq", dim, bound), KIND_SHAPE, i)

    def _check_dynamic_strides(self, tensor: SSAValue, dims: list[SSAValue], i: int) -> None:
        """strides == NULL, or, for every axis whose extent exceeds 1 at this
        call, the product of the later extents."""
        em = self.em
        strides = em.load(em.byte_gep(tensor, _STRIDES), PTR, 8)
        compare, done = em.new_block(), em.new_block()
        em.cond_br(em.is_null(strides), done, compare)
        em.block = compare
        expected = em.int_const(1)
        one = em.int_const(1)
        for k in range(len(dims) - 1, -1, -1):
            got = em.load(em.gep(strides, em.int_const(k), i64), i64, 8)
            unused = em.icmp("eq", dims[k], one)
            ok = em.value(llvm.OrOp(unused, em.icmp("eq", got, expected)))
            self.check(ok, KIND_STRIDES, i)
            if k:
                expected = em.mul(expected, dims[k], nsw=False)
        em.br(done)
        em.block = done


def packed_entry(func: PrimFuncOp) -> llvm.FuncOp:
    """`llvm.func @NAME(%args: !llvm.ptr, %num_args: i32) -> i32` for a prim_func."""
    return _PackedEntry(func).build()
