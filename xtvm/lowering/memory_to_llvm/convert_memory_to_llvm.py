"""``convert-memory-to-llvm``: the planned graph function becomes the model's
ahead-of-time entry points in the llvm dialect (TVM's AOT executor).

One pattern per source op, run by the conversion driver
(:mod:`xtvm.lowering.conversion`). Values change type on the way (a tensor
becomes the ``!llvm.ptr`` to its bytes); ``builtin.unrealized_conversion_cast``
bridges the two while some users are not lowered yet, as in MLIR, and no
cast survives the pass.

| source op | becomes |
|---|---|
| ``func.func @main`` | ``@tvmgen_default_run_with_workspace(inputs, outputs, workspace) -> i32`` (the body), ``@tvmgen_default_run(inputs, outputs)`` (with the static workspace), the workspace global, its size, the graph executor's JSON, a declaration of each kernel's ``_impl`` |
| ``relay.const`` | a constant global ``@__xtvm_const_<name>`` (64-byte aligned) and its address |
| ``memory.alloc_storage`` | ``workspace + offset`` (storages laid back to back) |
| ``memory.alloc_tensor`` | ``storage + offset``; a tensor the model returns is written in place in the caller's output buffer instead |
| ``memory.invoke_kernel`` | a call of the kernel's ``_impl``; a nonzero code returns at once |
| ``memory.kill`` | nothing |
| ``relay.tuple``, ``relay.tuple_get`` | their fields |
| ``func.return`` | a copy of each output not written in place, then ``return 0`` |

The entry's C form (docs/abi.md): ``inputs`` and ``outputs`` point to arrays
of data pointers, one per graph input and output in order (TVM's
``struct tvmgen_default_inputs``); a NULL one returns ``(2 << 16) | index``
(outputs counted after inputs). The static workspace makes
``tvmgen_default_run`` one inference at a time; callers that run
concurrently pass their own workspace of ``tvmgen_default_workspace_size``
bytes to ``tvmgen_default_run_with_workspace``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrealizedConversionCastOp,
    i32,
    i64,
)
from typing import TypeVar

from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from xtvm.constants import numpy_from_const
from xtvm.dialects.memory import (
    DEFAULT_ALIGNMENT,
    AllocStorageOp,
    AllocTensorOp,
    InvokeKernelOp,
    KillOp,
    tensor_nbytes,
)
from xtvm.dialects.relay import ConstOp, TupleGetOp, TupleOp
from xtvm.dialects.tir import PrimFuncOp
from xtvm.dtypes import dtype_name, is_reduced_float
from xtvm.lowering.conversion import (
    ConversionError,
    ConversionTarget,
    apply_conversion,
    legality_report,
)
from xtvm.lowering.memory_to_llvm.graph_json import (
    arg_name,
    result_name,
    flat_values,
    graph_json,
    layout_workspace,
    returned_values,
)
from xtvm.passes.memory.concat_in_place import IN_PLACE_ATTR
from xtvm.passes.memory.liveness import check_straight_line
from xtvm.runtime import packing

OpT = TypeVar("OpT", bound=Operation)

PASS_NAME = "convert-memory-to-llvm"
PTR = llvm.LLVMPointerType()
I8 = IntegerType(8)

NULL_ARGUMENT = 2
"""Error kind of a NULL input or output pointer (docs/abi.md)."""

GRAPH_INFO_SYMBOL = "__xtvm_graph_info"
"""The global holding, as JSON, the graph executor's JSON and the AOT entry's
description until ``llvm-embed-metadata`` folds them into the metadata."""

CONST_PREFIX = "__xtvm_const_"
WORKSPACE_OFFSET = "xtvm.workspace_offset"
OUTPUT_INDEX = "xtvm.output_index"
PARAM_NAME = "xtvm.param_name"


def entry_symbols(prefix: str) -> dict[str, str]:
    """The symbols of a model's entry points (TVM's ``tvmgen_<name>_...``)."""
    return {
        "run": f"{prefix}_run",
        "run_with_workspace": f"{prefix}_run_with_workspace",
        "workspace": f"__{prefix}_workspace",
        "workspace_size": f"{prefix}_workspace_size",
    }


def impl_symbol(kernel: str) -> str:
    """The unchecked loop program of a kernel (``convert-tir-to-llvm`` defines it)."""
    return f"{kernel}_impl"


def _module_of(op: Operation) -> ModuleOp:
    while not isinstance(op, ModuleOp):
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _in_entry(op: Operation) -> llvm.FuncOp | None:
    """The AOT function an op was moved into, if it has been."""
    parent = op.parent_op()
    return parent if isinstance(parent, llvm.FuncOp) else None


def _as_ptr(value: SSAValue, rewriter: PatternRewriter, before: Operation) -> SSAValue:
    """The ``!llvm.ptr`` a (tensor or storage) value stands for."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and owner.inputs[0].type == PTR:
        return owner.inputs[0]
    cast = UnrealizedConversionCastOp.get([value], [PTR])
    rewriter.insert(cast, InsertPoint.before(before))
    return cast.results[0]


def _replace_with_ptr(
    op: Operation, ops: list[Operation], ptr: SSAValue, rewriter: PatternRewriter
) -> UnrealizedConversionCastOp:
    """Replace ``op`` by ``ops`` computing ``ptr``, cast back to the op's type."""
    cast = UnrealizedConversionCastOp.get([ptr], [op.results[0].type])
    rewriter.replace(op, [*ops, cast], [cast.results[0]])
    return cast


def _add(block: Block, op: OpT) -> OpT:
    """Append ``op`` to ``block`` and return it."""
    block.add_op(op)
    return op


def _i32(value: int) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, i32), i32)


@dataclass
class LowerGraphFunction(RewritePattern):
    """``func.func @main`` (memory form) → the AOT entry functions, the
    workspace, the graph JSON and the kernel declarations; the body moves
    into ``@<prefix>_run_with_workspace`` for the other patterns."""

    entry: str
    prefix: str

    @op_type_rewrite_pattern
    def match_and_rewrite(self, fn: func.FuncOp, rewriter: PatternRewriter) -> None:
        if fn.sym_name.data != self.entry or fn.is_declaration:
            return
        check_straight_line(fn)
        module = _module_of(fn)
        names = entry_symbols(self.prefix)
        layout = layout_workspace(fn)
        consts = [op for op in fn.body.block.ops if isinstance(op, ConstOp)]
        const_names = _param_names(consts, {arg_name(fn, i) for i in range(len(fn.args))})
        info = {"graph_json": graph_json(fn, layout, const_names), "entry": _entry_info(fn, names, layout)}
        json_text = json.dumps(info, separators=(",", ":"))

        # Facts the per-op patterns need, recorded on the ops themselves.
        for op in fn.body.block.ops:
            if isinstance(op, AllocStorageOp):
                op.attributes[WORKSPACE_OFFSET] = IntegerAttr(layout.workspace_offsets[op.storage], i64)
        for op, name in const_names.items():
            op.attributes[PARAM_NAME] = StringAttr(name)
        outputs = returned_values(fn)
        # a concatenation made in place lies where its inputs were written
        # (the workspace): copied out like an output no kernel writes
        in_place = {
            v
            for op in fn.body.block.ops
            if isinstance(op, InvokeKernelOp) and IN_PLACE_ATTR in op.attributes
            for v in op.outputs
        }
        for k, value in enumerate(outputs):
            owner = value.owner
            if (
                isinstance(owner, AllocTensorOp)
                and outputs.count(value) == 1
                and value not in in_place
            ):
                owner.attributes[OUTPUT_INDEX] = IntegerAttr(k, i64)

        new_ops: list[Operation] = [
            _zeroed_global(names["workspace"], max(layout.workspace_bytes, 1)),
            llvm.GlobalOp(
                i64,
                names["workspace_size"],
                "external",
                constant=True,
                value=IntegerAttr(layout.workspace_bytes, i64),
                alignment=8,
            ),
            llvm.GlobalOp(
                llvm.LLVMArrayType(len(json_text.encode()), I8),
                GRAPH_INFO_SYMBOL,
                "internal",
                constant=True,
                value=StringAttr(json_text),
            ),
        ]
        new_ops += _kernel_declarations(fn, module)
        body = _entry_body(fn)
        run = llvm.FuncOp(
            names["run_with_workspace"],
            llvm.LLVMFunctionType([PTR, PTR, PTR], i32),
            linkage=llvm.LinkageAttr("external"),
            body=body,
        )
        new_ops += [run, _static_run(names)]
        rewriter.insert(new_ops, InsertPoint.before(fn))
        rewriter.erase(fn)


def _zeroed_global(symbol: str, size: int) -> llvm.GlobalOp:
    """An internal, 64-byte aligned global of ``size`` zero bytes (MLIR's
    ``llvm.mlir.zero`` initializer: nothing as large as the data in the IR)."""
    ty = llvm.LLVMArrayType(size, I8)
    block = Block()
    zero = llvm.ZeroOp.build(result_types=[ty])
    block.add_ops([zero, llvm.ReturnOp(zero.res)])
    return llvm.GlobalOp(ty, symbol, "internal", alignment=DEFAULT_ALIGNMENT, body=Region(block))


def _entry_info(fn: func.FuncOp, names: dict[str, str], layout) -> dict:
    """The AOT entry as the metadata describes it (the C header is made from it)."""

    def tensor(name: str, ty) -> dict:
        return {"name": name, "shape": list(ty.get_shape()), "dtype": dtype_name(ty.element_type)}

    outputs = returned_values(fn)
    return {
        **names,
        "workspace_bytes": layout.workspace_bytes,
        "inputs": [tensor(arg_name(fn, i), a.type) for i, a in enumerate(fn.args)],
        "outputs": [tensor(result_name(fn, k), v.type) for k, v in enumerate(outputs)],
    }


def _param_names(consts: list[ConstOp], taken: set[str]) -> dict[ConstOp, str]:
    """The graph's name of each constant: its name hint (the frontend's name
    of the weight), else
    ``p<k>``; ``_<n>`` is appended where names (or their symbols) would clash."""
    names: dict[ConstOp, str] = {}
    symbols = {const_symbol(t) for t in taken}
    for k, op in enumerate(consts):
        base = name = op.result.name_hint or f"p{k}"
        n = 0
        while name in taken or const_symbol(name) in symbols:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        symbols.add(const_symbol(name))
        names[op] = name
    return names


def _kernel_declarations(fn: func.FuncOp, module: ModuleOp) -> list[Operation]:
    """A declaration of each called kernel's ``_impl`` (one pointer per buffer),
    unless the module defines or declares it already."""
    kernels = {op.sym_name.data: op for op in module.ops if isinstance(op, PrimFuncOp)}
    existing = {op.sym_name.data for op in module.ops if isinstance(op, llvm.FuncOp)}
    decls: list[Operation] = []
    for op in fn.body.block.ops:
        if not isinstance(op, InvokeKernelOp):
            continue
        callee = op.callee.string_value()
        symbol = impl_symbol(callee)
        if symbol in existing:
            continue
        kernel = kernels.get(callee)
        count = len(op.inputs) + len(op.outputs)
        if kernel is None and not existing & {callee}:
            raise ConversionError(
                f"{PASS_NAME}: @{fn.sym_name.data} calls @{callee}, which the module does not "
                f"define (neither a tir.prim_func nor an llvm.func)"
            )
        if kernel is not None and len(kernel.args) != count:
            raise ConversionError(
                f"{PASS_NAME}: @{callee} takes {len(kernel.args)} arguments but is called "
                f"with {count}"
            )
        existing.add(symbol)
        decls.append(
            llvm.FuncOp(
                symbol,
                llvm.LLVMFunctionType([PTR] * count, i32),
                linkage=llvm.LinkageAttr("external"),
            )
        )
    return decls


def _entry_body(fn: func.FuncOp) -> Region:
    """The graph function's ops in a region whose entry block takes
    ``(inputs, outputs, workspace)`` and first rejects NULL pointers."""
    old = fn.body.block
    entry = Block(arg_types=[PTR, PTR, PTR])
    inputs, outputs, workspace = entry.args
    inputs.name_hint, outputs.name_hint, workspace.name_hint = "inputs", "outputs", "workspace"
    body = Block()
    failed = Block(arg_types=[i32])
    _add(failed, llvm.ReturnOp(failed.args[0]))
    code = _add(entry, _i32(0)).results[0]
    zero = _add(entry, llvm.ConstantOp(IntegerAttr(0, i64), i64)).results[0]
    loaded: list[SSAValue] = []
    count_in = len(fn.args)
    count_out = len(returned_values(fn))
    for array, count, base in ((inputs, count_in, 0), (outputs, count_out, count_in)):
        for i in range(count):
            slot = _add(entry, llvm.GEPOp(array, [i], PTR, inbounds=True)).results[0]
            ptr = _add(entry, llvm.LoadOp(slot, PTR, alignment=8)).results[0]
            as_int = _add(entry, llvm.PtrToIntOp(ptr, i64)).results[0]
            flag = IntegerAttr(llvm.ICmpPredicateFlag("eq").to_int(), i64)
            null = _add(entry, llvm.ICmpOp(as_int, zero, flag)).results[0]
            mine = _add(entry, _i32((NULL_ARGUMENT << 16) | (base + i))).results[0]
            code = _add(entry, llvm.SelectOp(null, mine, code)).results[0]
            if array is inputs:
                loaded.append(ptr)
    flag = IntegerAttr(llvm.ICmpPredicateFlag("ne").to_int(), i64)
    bad = _add(entry, llvm.ICmpOp(code, _add(entry, _i32(0)).results[0], flag)).results[0]
    _add(entry, llvm.CondBrOp(bad, failed, [code], body, []))
    for arg, ptr in zip(old.args, loaded, strict=True):
        ptr.name_hint = arg.name_hint
        cast = _add(body, UnrealizedConversionCastOp.get([ptr], [arg.type]))
        arg.replace_all_uses_with(cast.results[0])
    for op in list(old.ops):
        op.detach()
        _add(body, op)
    return Region([entry, body, failed])


def _static_run(names: dict[str, str]) -> llvm.FuncOp:
    """``run(inputs, outputs)``: ``run_with_workspace`` on the static workspace."""
    block = Block(arg_types=[PTR, PTR])
    ws = _add(block, llvm.AddressOfOp(names["workspace"], PTR)).results[0]
    call = _add(block, 
        llvm.CallOp(names["run_with_workspace"], block.args[0], block.args[1], ws, return_type=i32)
    )
    _add(block, llvm.ReturnOp(call.returned))
    return llvm.FuncOp(
        names["run"],
        llvm.LLVMFunctionType([PTR, PTR], i32),
        linkage=llvm.LinkageAttr("external"),
        body=Region(block),
    )


class LowerConst(RewritePattern):
    """``relay.const`` → a 64-byte aligned constant global and its address."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstOp, rewriter: PatternRewriter) -> None:
        fn = _in_entry(op)
        if fn is None:
            return
        name = op.attributes.get(PARAM_NAME)
        assert isinstance(name, StringAttr)
        symbol = const_symbol(name.data)
        array = np.ascontiguousarray(numpy_from_const(op))
        data = array.astype(np.int8) if array.dtype == np.bool_ else array
        element = IntegerType(8) if array.dtype == np.bool_ else op.result.type.element_type
        if packing.is_packed(array.dtype.name):  # int4, ...: the bytes kernels read
            data, element = packing.pack(array), IntegerType(8)
        elif is_reduced_float(array.dtype.name):  # bf16, f8: their bits, as llvm holds them
            element = IntegerType(8 * array.dtype.itemsize)
        size = max(data.size, 1)
        if array.size and data is array and isinstance(op.value, DenseIntOrFPElementsAttr):
            raw = op.value.data  # the constant's bytes, shared (weights are large)
        else:
            raw = BytesAttr(data.tobytes() if array.size else bytes(data.dtype.itemsize))
        flat = DenseIntOrFPElementsAttr(TensorType(element, [size]), raw)
        glob = llvm.GlobalOp(
            llvm.LLVMArrayType(size, element),
            symbol,
            "external",
            constant=True,
            value=flat,
            alignment=DEFAULT_ALIGNMENT,
        )
        rewriter.insert(glob, InsertPoint.before(fn))
        address = llvm.AddressOfOp(symbol, PTR)
        _replace_with_ptr(op, [address], address.result, rewriter)
        op.properties.clear()  # the erased op's reference to the bytes, which the global
        op.attributes.clear()  # holds now (erased ops wait in cycles for the collector)


def const_symbol(param: str) -> str:
    """The global of the constant named ``param`` (non-identifier characters → ``_``)."""
    return CONST_PREFIX + "".join(c if c.isalnum() or c == "_" else "_" for c in param)


class LowerAllocStorage(RewritePattern):
    """``memory.alloc_storage`` → its place in the workspace argument."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AllocStorageOp, rewriter: PatternRewriter) -> None:
        fn = _in_entry(op)
        if fn is None:
            return
        offset = op.attributes[WORKSPACE_OFFSET]
        assert isinstance(offset, IntegerAttr)
        gep = llvm.GEPOp(fn.body.blocks[0].args[2], [offset.value.data], I8, inbounds=True)
        _replace_with_ptr(op, [gep], gep.result, rewriter)


class LowerAllocTensor(RewritePattern):
    """``memory.alloc_tensor`` → ``storage + offset``, or the caller's output
    buffer for a tensor the model returns."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AllocTensorOp, rewriter: PatternRewriter) -> None:
        fn = _in_entry(op)
        if fn is None:
            return
        index = op.attributes.get(OUTPUT_INDEX)
        if isinstance(index, IntegerAttr):
            outputs = fn.body.blocks[0].args[1]
            slot = llvm.GEPOp(outputs, [index.value.data], PTR, inbounds=True)
            load = llvm.LoadOp(slot.result, PTR, alignment=8)
            cast = _replace_with_ptr(op, [slot, load], load.dereferenced_value, rewriter)
            cast.attributes[OUTPUT_INDEX] = index
            return
        storage = _as_ptr(op.storage, rewriter, op)
        gep = llvm.GEPOp(storage, [op.offset.value.data], I8, inbounds=True)
        _replace_with_ptr(op, [gep], gep.result, rewriter)


class LowerInvokeKernel(RewritePattern):
    """``memory.invoke_kernel`` → ``rc = @k_impl(ptrs...)``; ``rc != 0`` returns it.
    A call marked ``memory.in_place`` (its inputs already lie in its output)
    → nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: InvokeKernelOp, rewriter: PatternRewriter) -> None:
        fn = _in_entry(op)
        if fn is None:
            return
        if IN_PLACE_ATTR in op.attributes:
            rewriter.erase(op)
            return
        block = op.parent_block()
        assert block is not None
        ptrs = [_as_ptr(v, rewriter, op) for v in [*op.inputs, *op.outputs]]
        call = llvm.CallOp(impl_symbol(op.callee.string_value()), *ptrs, return_type=i32)
        zero = _i32(0)
        flag = IntegerAttr(llvm.ICmpPredicateFlag("ne").to_int(), i64)
        failed = llvm.ICmpOp(call.returned, zero.result, flag)  # type: ignore[arg-type]
        rest = block.split_before(op.next_op) if op.next_op is not None else Block()
        if rest.parent is None:
            fn.body.insert_block_after(rest, block)
        exit_block = fn.body.blocks[-1]  # the entry's `failed(code)` block
        branch = llvm.CondBrOp(failed.res, exit_block, [call.returned], rest, [])
        rewriter.replace(op, [call, zero, failed, branch], [])


class EraseKill(RewritePattern):
    """``memory.kill`` → nothing (the plan already reuses the bytes)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: KillOp, rewriter: PatternRewriter) -> None:
        if _in_entry(op) is not None:
            rewriter.erase(op)


class LowerTupleGet(RewritePattern):
    """``relay.tuple_get`` of a ``relay.tuple`` → the field."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleGetOp, rewriter: PatternRewriter) -> None:
        if _in_entry(op) is None or not isinstance(op.tuple.owner, TupleOp):
            return
        rewriter.replace(op, [], [op.tuple.owner.fields[op.index.value.data]])


class EraseTuple(RewritePattern):
    """``relay.tuple`` → nothing, once its users (return, tuple_get) are lowered."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleOp, rewriter: PatternRewriter) -> None:
        if _in_entry(op) is not None and not op.result.uses:
            rewriter.erase(op)


class LowerReturn(RewritePattern):
    """``func.return`` → copy each output not written in place into the
    caller's buffer, then ``return 0``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        fn = _in_entry(op)
        if fn is None:
            return
        tuples = {
            v: list(v.owner.fields) for v in op.arguments if isinstance(v.owner, TupleOp)
        }
        values = flat_values(op.arguments, tuples)
        outputs = fn.body.blocks[0].args[1]
        ops: list[Operation] = []
        for k, value in enumerate(values):
            cast = value.owner
            if isinstance(cast, UnrealizedConversionCastOp) and cast.attributes.get(
                OUTPUT_INDEX
            ) == IntegerAttr(k, i64):
                continue  # the kernel wrote it into the caller's buffer
            nbytes = tensor_nbytes(value.type)
            assert nbytes is not None
            src = _as_ptr(value, rewriter, op)
            slot = llvm.GEPOp(outputs, [k], PTR, inbounds=True)
            dst = llvm.LoadOp(slot.result, PTR, alignment=8)
            size = llvm.ConstantOp(IntegerAttr(nbytes, i64), i64)
            copy = llvm.CallOp("memcpy", dst.dereferenced_value, src, size.result, return_type=PTR)
            ops += [slot, dst, size, copy]
        if ops:
            _declare_memcpy(_module_of(fn), fn)
        zero = _i32(0)
        rewriter.replace(op, [*ops, zero, llvm.ReturnOp(zero.result)], [])


def _declare_memcpy(module: ModuleOp, before: Operation) -> None:
    if any(isinstance(o, llvm.FuncOp) and o.sym_name.data == "memcpy" for o in module.ops):
        return
    decl = llvm.FuncOp(
        "memcpy", llvm.LLVMFunctionType([PTR, PTR, i64], PTR), linkage=llvm.LinkageAttr("external")
    )
    module.body.block.insert_op_before(decl, before)


KERNEL_OPS = frozenset({"tir.prim_func"})
"""The kernels: this pass never looks inside them (the casts and graph ops it
lowers are all in ``@main``)."""


def _erase_dead_casts(module: ModuleOp) -> None:
    """Drop the bridging casts nothing uses any more (last users first)."""
    walk = ConversionTarget(opaque=KERNEL_OPS).walk(module)
    for op in reversed(list(walk)):
        if isinstance(op, UnrealizedConversionCastOp) and not any(r.uses for r in op.results):
            op.detach()
            op.erase()


def populate_memory_to_llvm_patterns(entry: str, prefix: str) -> list[RewritePattern]:
    """The patterns of ``convert-memory-to-llvm``, one per source op."""
    return [
        LowerGraphFunction(entry, prefix),
        LowerConst(),
        LowerAllocStorage(),
        LowerAllocTensor(),
        LowerInvokeKernel(),
        EraseKill(),
        LowerTupleGet(),
        LowerReturn(),
        EraseTuple(),
    ]


GRAPH_OPS = (
    ConstOp,
    AllocStorageOp,
    AllocTensorOp,
    InvokeKernelOp,
    KillOp,
    TupleOp,
    TupleGetOp,
    func.ReturnOp,
)
"""The ops of a graph function in its memory form: what this pass lowers."""


def _is_graph_function(entry: str):
    def illegal(op: Operation) -> bool:
        if isinstance(op, func.FuncOp):
            return op.sym_name.data == entry
        if isinstance(op, func.ReturnOp | UnrealizedConversionCastOp):
            return True
        return op.dialect_name() in ("memory", "relay")

    return illegal


@dataclass(frozen=True)
class ConvertMemoryToLlvmPass(ModulePass):
    """Lower the planned graph function ``@main`` to the model's AOT entry
    points (TVM's AOT executor codegen) — see the module docstring.

    Input: the output of ``memory-plan`` (or ``memory-manifest-alloc``):
    ``func.func @main`` holding ``relay.const``, ``memory`` ops, relay
    tuples and ``func.return``, beside the ``tir.prim_func`` kernels it
    calls. Output: ``llvm.func``s ``@tvmgen_default_run`` and
    ``@tvmgen_default_run_with_workspace``, the globals
    ``@__tvmgen_default_workspace`` (zeroed, planned size),
    ``@tvmgen_default_workspace_size``, one ``@__xtvm_const_<name>`` per
    constant and ``@__xtvm_graph_info`` (the graph executor's JSON and the
    entry's inputs and outputs, read by ``llvm-embed-metadata``), and a declaration of each kernel's ``_impl``,
    which ``convert-tir-to-llvm`` defines. The workspace offsets are those of
    the IR: nothing is planned again. A module without ``@main`` (a kernel
    library) is left as it is.

    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %arena = memory.alloc_storage {size = 64 : i64, alignment = 64 : i64} : !memory.storage
      %a = memory.alloc_tensor %arena {offset = 0 : i64} : tensor<4xf32>
      memory.invoke_kernel @k ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>)
      func.return %a : tensor<4xf32>
    }
    // becomes
    llvm.func @tvmgen_default_run_with_workspace(%inputs: !llvm.ptr, %outputs: !llvm.ptr, %ws: !llvm.ptr) -> i32 {
      ... %x = load inputs[0]; %a = load outputs[0] (written in place)
      %rc = llvm.call @k_impl(%x, %a) : (!llvm.ptr, !llvm.ptr) -> i32
      ...
    ```

    Options: ``entry`` (default ``main``), ``prefix`` (default
    ``tvmgen_default``: the symbols' prefix).
    """

    name = PASS_NAME
    entry: str = "main"
    prefix: str = "tvmgen_default"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        entry = next(
            (f for f in op.ops if isinstance(f, func.FuncOp) and f.sym_name.data == self.entry),
            None,
        )
        if entry is None:
            return
        unexpected = [o for o in entry.walk() if o is not entry and not isinstance(o, GRAPH_OPS)]
        if unexpected:
            raise ConversionError(
                legality_report(PASS_NAME, unexpected)
                + f"\n@{self.entry} must be in its memory form: run memory-manifest-alloc and "
                "memory-plan first"
            )
        target = ConversionTarget(
            illegal_dialects=frozenset(),
            illegal_if=_is_graph_function(self.entry),
            opaque=KERNEL_OPS,  # no graph op is inside a kernel: walk @main, not them
        )
        patterns = populate_memory_to_llvm_patterns(self.entry, self.prefix)
        apply_conversion(op, patterns, target, pass_name=PASS_NAME, partial=True)
        _erase_dead_casts(op)
        leftovers = target.illegal_ops_in(op)
        if leftovers:
            raise ConversionError(legality_report(PASS_NAME, leftovers))


__all__ = [
    "GRAPH_INFO_SYMBOL",
    "CONST_PREFIX",
    "ConvertMemoryToLlvmPass",
    "const_symbol",
    "entry_symbols",
    "impl_symbol",
    "populate_memory_to_llvm_patterns",
]
