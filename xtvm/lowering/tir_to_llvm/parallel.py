"""Parallel loops: outlined and run on OpenMP (libgomp) threads, as TVM's OpenMP backend.

An outermost `tir.for ... kind "parallel"` of kernel `@K` becomes two functions:

* `K_parallelN(values..., %start: i64, %end: i64) -> i32`: the loop over
  `[start, end)` with the body, taking the values the body uses from outside
  (buffers as `ptr noalias`, scalars by value; constants are re-created
  inside so LLVM still sees them); returns 0 or a failed assert's code;
* `K_parallelN_omp(%ctx: !llvm.ptr)`: what each OpenMP thread runs: reads
  `lb`, `ub` and the values from `ctx`, and calls the former on chunks of
  the iterations as libgomp's dynamic schedule hands them out
  (`GOMP_loop_dynamic_start/next`, `CHUNKS_PER_THREAD` chunks a thread);
  a nonzero code is written to the last `ctx` slot and ends its share.

The kernel stores the values into `ctx` (8 bytes a slot, on its stack), calls
`GOMP_parallel(@K_parallelN_omp, ctx, num_threads, 0)` and returns the code
found in the last slot, if any. At one thread (`num_threads == 1`) it calls
`K_parallelN` on the whole range itself instead: libgomp would still build a
team of one and hand out the chunks, ~1 us a kernel call (SqueezeNet: ~30
calls a run, docs/squeezenet.md). Parallel loops nested inside are serial.

A module with parallel loops also defines `xtvm_set_num_threads(i32)`, which
the runtime calls with its thread setting (docs/abi.md); 0, the initial
value, lets OpenMP choose.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IntegerAttr, i8, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xtvm.dialects.tir import ForOp
from xtvm.lowering.tir_to_llvm.emitter import Emitter
from xtvm.lowering.tir_to_llvm.function import BodyLowering, ModuleLowering
from xtvm.lowering.tir_to_llvm.scalar import LOWERINGS
from xtvm.lowering.tir_to_llvm.types import PTR, byte_size, llvm_type

NUM_THREADS_GLOBAL = "__xtvm_num_threads"
SET_NUM_THREADS = "xtvm_set_num_threads"
_SLOT = 8
CHUNKS_PER_THREAD = 4
"""A parallel loop is cut into this many chunks a thread, handed out as
threads finish (libgomp's dynamic schedule): on a shared machine one core is
often slower, and a static half each would wait for it at the barrier."""


def _defined_inside(value: SSAValue, loop: ForOp) -> bool:
    owner = value.owner
    op = owner.parent_op() if isinstance(owner, Block) else owner
    return op is not None and (op is loop or loop.is_ancestor(op))


def _free_values(loop: ForOp) -> list[SSAValue]:
    """Values used in the loop body but defined outside it, in first-use order."""
    free: dict[SSAValue, None] = {}
    for op in loop.body.walk():
        for operand in op.operands:
            if not _defined_inside(operand, loop):
                free.setdefault(operand, None)
    return list(free)


def _is_constant(value: SSAValue) -> bool:
    return isinstance(value.owner, arith.ConstantOp)


def _slot(em: Emitter, ctx: SSAValue, k: int, ty: Attribute) -> SSAValue:
    """The address of `ctx` slot `k` as a pointer to `ty` (not a pointer type).

    xDSL's translator gives each GEP result llvmlite's typed pointer to the
    GEP element type and rejects storing a value of another type through it,
    so the GEP counts in elements of `ty` (every slot is 8 bytes).
    """
    return em.gep(ctx, em.int_const(k * _SLOT // byte_size(ty)), ty)


def _store_slot(em: Emitter, ctx: SSAValue, k: int, value: SSAValue) -> None:
    """Store `value` in slot `k`; pointers as i64 (through a GEP of element type
    !llvm.ptr, the translator keeps the alloca's `i64*` type and fails)."""
    if value.type == PTR:
        value = em.value(llvm.PtrToIntOp(value, i64))
    em.emit(llvm.StoreOp(value, _slot(em, ctx, k, value.type), _SLOT))


def _load_slot(em: Emitter, ctx: SSAValue, k: int, ty: Attribute) -> SSAValue:
    """Load slot `k` as `ty` (see `_store_slot` for pointers)."""
    if ty == PTR:
        return em.value(llvm.IntToPtrOp(em.load(_slot(em, ctx, k, i64), i64, _SLOT)))
    return em.load(_slot(em, ctx, k, ty), ty, _SLOT)


def lower_parallel_for(parent: BodyLowering, loop: ForOp) -> None:
    """Outline `loop` (see the module docstring) and call it through GOMP_parallel."""
    module = parent.module
    module.uses_openmp = True
    name = f"{parent.name}_parallel{len(module.outlined) // 2}"
    free = _free_values(loop)
    captured = [v for v in free if not _is_constant(v)]

    chunk = _chunk_function(parent, loop, name, free, captured)
    wrapper = _thread_function(name, captured, chunk)
    module.outlined += [chunk, wrapper]

    em = parent.em
    slots = len(captured) + 3  # lb, ub, values..., error code
    ctx = parent.prologue.value(
        llvm.AllocaOp(parent.prologue.int_const(slots), i64, alignment=_SLOT)
    )
    for k, value in enumerate([loop.lb, loop.ub, *captured]):
        _store_slot(em, ctx, k, parent.get(value))
    _store_slot(em, ctx, slots - 1, em.int_const(0, i32))
    threads = em.load(em.value(llvm.AddressOfOp(NUM_THREADS_GLOBAL, PTR)), i32, 4)
    serial, team, join = em.new_block(), em.new_block(), em.new_block()
    em.cond_br(em.icmp("eq", threads, em.int_const(1, i32)), serial, team)
    # one thread: the loop on the calling thread, no team (GOMP_parallel would
    # still make one, a heap allocation and a dynamic schedule per kernel call)
    em.block = serial
    bounds = [parent.get(loop.lb), parent.get(loop.ub)]
    values = [parent.get(v) for v in captured]
    call = em.emit(llvm.CallOp(chunk.sym_name.data, *values, *bounds, return_type=i32))
    assert call.returned is not None
    _store_slot(em, ctx, slots - 1, call.returned)
    em.br(join)
    em.block = team
    function = em.value(llvm.AddressOfOp(f"{name}_omp", PTR))
    parent.externs.call(em, "GOMP_parallel", [function, ctx, threads, em.int_const(0, i32)], None)
    em.br(join)
    em.block = join
    code = _load_slot(em, ctx, slots - 1, i32)
    done, failed = em.new_block(), em.new_block()
    em.cond_br(em.icmp("eq", code, em.int_const(0, i32)), done, failed)
    em.block = failed
    parent.exit_with(code)
    em.block = done


def _chunk_function(
    parent: BodyLowering,
    loop: ForOp,
    name: str,
    free: list[SSAValue],
    captured: list[SSAValue],
) -> llvm.FuncOp:
    """`name(values..., start, end) -> i32`: the loop body over `[start, end)`."""
    body = BodyLowering(parent.func, parent.module, name, parent.asserts, inside_parallel=True)
    body.bind_args(captured)
    start = body.entry.insert_arg(i64, len(body.entry.args))
    end = body.entry.insert_arg(i64, len(body.entry.args))
    start.name_hint, end.name_hint = "start", "end"
    for value in free:
        if _is_constant(value):
            lowering = LOWERINGS[arith.ConstantOp]
            body.values[value] = lowering(value.owner, [], body.em, body.externs)
    body.emit_loop(loop, start, end)
    body.exit_with(0)
    return body.finish()


def _thread_function(name: str, captured: list[SSAValue], chunk: llvm.FuncOp) -> llvm.FuncOp:
    """`name_omp(ctx)`: one OpenMP thread's share of the iterations."""
    region = Region()
    em = Emitter(region)
    ctx = em.block.insert_arg(PTR, 0)
    ctx.name_hint = "ctx"

    lb, ub = _load_slot(em, ctx, 0, i64), _load_slot(em, ctx, 1, i64)
    values = [_load_slot(em, ctx, k + 2, llvm_type(v.type)) for k, v in enumerate(captured)]
    nthreads = em.value(llvm.SExtOp(_omp_query(em, "omp_get_num_threads"), i64))
    # chunks of ceil((ub - lb) / (CHUNKS_PER_THREAD * nthreads)) iterations, handed out
    # dynamically: a thread slowed by another process's load takes fewer
    extent = em.value(llvm.SubOp(ub, lb))
    pieces = em.mul(nthreads, em.int_const(CHUNKS_PER_THREAD))
    rounded = em.add(extent, em.value(llvm.SubOp(pieces, em.int_const(1))))
    size = em.value(llvm.SDivOp(rounded, pieces))
    bounds = em.value(llvm.AllocaOp(em.int_const(2), i64, alignment=_SLOT))
    istart, iend = _slot(em, bounds, 0, i64), _slot(em, bounds, 1, i64)
    got = _omp_loop(em, "GOMP_loop_dynamic_start", [lb, ub, em.int_const(1), size, istart, iend])
    run, finish = em.new_block(), em.new_block()
    em.cond_br(got, run, finish)
    em.block = run
    start, end = em.load(istart, i64, _SLOT), em.load(iend, i64, _SLOT)
    call = em.emit(llvm.CallOp(chunk.sym_name.data, *values, start, end, return_type=i32))
    assert call.returned is not None
    ok, failed = em.new_block(), em.new_block()
    em.cond_br(em.icmp("eq", call.returned, em.int_const(0, i32)), ok, failed)
    em.block = ok
    em.cond_br(_omp_loop(em, "GOMP_loop_dynamic_next", [istart, iend]), run, finish)
    em.block = failed
    _store_slot(em, ctx, len(captured) + 2, call.returned)
    em.br(finish)
    em.block = finish
    em.emit(llvm.CallOp("GOMP_loop_end_nowait"))
    em.emit(llvm.ReturnOp())
    return llvm.FuncOp(
        f"{name}_omp",
        llvm.LLVMFunctionType([PTR]),
        linkage=llvm.LinkageAttr("external"),
        body=region,
    )


def _omp_loop(em: Emitter, function: str, args: list[SSAValue]) -> SSAValue:
    """`function(args...) != 0`: libgomp's loop work-sharing calls return a
    C `bool` (declared `i8` by `openmp_support`)."""
    call = em.emit(llvm.CallOp(function, *args, return_type=i8))
    assert call.returned is not None
    return em.icmp("ne", call.returned, em.int_const(0, i8))


def _omp_query(em: Emitter, function: str) -> SSAValue:
    """`function()` of the OpenMP runtime, an i32 (declared by `openmp_support`)."""
    call = em.emit(llvm.CallOp(function, return_type=i32))
    assert call.returned is not None
    return call.returned


def openmp_support(module: ModuleLowering) -> list[Operation]:
    """The declarations, the thread-count global and `xtvm_set_num_threads`
    that a module with parallel loops needs."""
    region = Region()
    em = Emitter(region)
    n = em.block.insert_arg(i32, 0)
    n.name_hint = "n"
    em.emit(llvm.StoreOp(n, em.value(llvm.AddressOfOp(NUM_THREADS_GLOBAL, PTR)), 4))
    em.emit(llvm.ReturnOp())
    query = llvm.LLVMFunctionType([], i32)
    return [
        llvm.GlobalOp(
            i32,
            NUM_THREADS_GLOBAL,
            llvm.LinkageAttr("internal"),
            value=IntegerAttr(0, i32),
        ),
        llvm.FuncOp("omp_get_num_threads", query, linkage=llvm.LinkageAttr("external")),
        llvm.FuncOp(
            "GOMP_loop_dynamic_start",
            llvm.LLVMFunctionType([i64, i64, i64, i64, PTR, PTR], i8),
            linkage=llvm.LinkageAttr("external"),
        ),
        llvm.FuncOp(
            "GOMP_loop_dynamic_next",
            llvm.LLVMFunctionType([PTR, PTR], i8),
            linkage=llvm.LinkageAttr("external"),
        ),
        llvm.FuncOp(
            "GOMP_loop_end_nowait", llvm.LLVMFunctionType([]), linkage=llvm.LinkageAttr("external")
        ),
        llvm.FuncOp(
            SET_NUM_THREADS,
            llvm.LLVMFunctionType([i32]),
            linkage=llvm.LinkageAttr("external"),
            body=region,
        ),
    ]
