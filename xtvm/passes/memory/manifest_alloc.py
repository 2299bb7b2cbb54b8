"""``memory-manifest-alloc``: make every kernel output an explicit allocation
(TVM's ``ManifestAlloc``)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects.memory import (
    DEFAULT_ALIGNMENT,
    AllocStorageOp,
    AllocTensorOp,
    InvokeKernelOp,
    KillOp,
)
from xtvm.dialects.relay import CallLoweredOp, IfOp, WhileOp
from xtvm.passes.memory.liveness import (
    MemoryPlanError,
    analyze_liveness,
    check_straight_line,
    static_nbytes,
)


def _allocate(call: CallLoweredOp, alignment: int) -> list[SSAValue]:
    """Replace ``call`` by storage, tensors and a destination-passing invoke."""
    callee = call.callee.string_value()
    tensors: list[SSAValue] = []
    for k, res in enumerate(call.res):
        nbytes = static_nbytes(res, f"result {k} of the call of @{callee}")
        assert isinstance(res.type, TensorType)
        storage = AllocStorageOp(nbytes, alignment)
        tensor = AllocTensorOp(storage.storage, 0, res.type)
        hint = res.name_hint
        storage.storage.name_hint = f"{hint}_storage" if hint else "storage"
        tensor.result.name_hint = hint
        Rewriter.insert_op([storage, tensor], InsertPoint.before(call))
        tensors.append(tensor.result)
    invoke = InvokeKernelOp(callee, list(call.args), tensors)
    Rewriter.replace_op(call, invoke, new_results=tensors)
    return tensors


def _insert_kills(fn: func.FuncOp, tensors: list[SSAValue]) -> None:
    """A ``memory.kill`` after the last use of each tensor that is not returned."""
    live = analyze_liveness(fn)
    kills: dict[Operation, list[SSAValue]] = {}
    for t in tensors:
        if t not in live.outputs:
            kills.setdefault(live.ops[live.lifetimes[t].end], []).append(t)
    for last_use, dead in kills.items():
        Rewriter.insert_op([KillOp(t) for t in dead], InsertPoint.after(last_use))


@dataclass(frozen=True)
class ManifestAllocPass(ModulePass):
    """Turn kernel calls of graph functions into explicit allocations and
    destination-passing calls.

    Input: graph functions (straight-line ``func.func``) calling kernels with
    ``relay.call_lowered`` (the output of ``convert-relay-to-tir``); every
    kernel result is a statically shaped tensor.

    Output: each kernel result is a ``memory.alloc_tensor`` at offset 0 of
    its own ``memory.alloc_storage`` (``size`` = its bytes, ``alignment``
    from the option), placed just before a ``memory.invoke_kernel`` that
    writes it. A tensor the function does not return gets a ``memory.kill``
    right after its last use (through ``relay.tuple``/``relay.tuple_get``);
    an unused one right after the kernel. Returned tensors are allocated
    like the others and never killed: they live to the end of the function,
    where the caller (the graph executor's ``get_output``) reads them.

    A function with control flow (``relay.if``, ``relay.while``: the vm
    path) gets the same allocations inside its regions, each just before
    its call (allocated whenever the region runs), and no ``memory.kill``.

    Invariants: graph inputs and ``relay.const`` stay as they are (the caller
    and the parameters own their memory); the order of kernel calls is kept.

    ```mlir
    %a = relay.call_lowered @k1(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = relay.call_lowered @k2(%a) : (tensor<4xf32>) -> tensor<4xf32>
    func.return %b : tensor<4xf32>
    // becomes
    %a_storage = memory.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !memory.storage
    %a = memory.alloc_tensor %a_storage {offset = 0 : i64} : tensor<4xf32>
    memory.invoke_kernel @k1 ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>)
    %b_storage = memory.alloc_storage {size = 16 : i64, alignment = 64 : i64} : !memory.storage
    %b = memory.alloc_tensor %b_storage {offset = 0 : i64} : tensor<4xf32>
    memory.invoke_kernel @k2 ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>)
    memory.kill %a : tensor<4xf32>
    func.return %b : tensor<4xf32>
    ```
    """

    name = "memory-manifest-alloc"
    alignment: int = DEFAULT_ALIGNMENT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise MemoryPlanError(
                f"memory-manifest-alloc: alignment {self.alignment} is not a power of two"
            )
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp):
                continue
            calls = [o for o in fn.walk() if isinstance(o, CallLoweredOp)]
            if not calls:
                continue
            if any(isinstance(o, IfOp | WhileOp) for o in fn.body.block.ops):
                # Control flow (the vm path): each region allocates what its
                # calls write, at run time; no kills, no planning across regions.
                for call in calls:
                    _allocate(call, self.alignment)
                continue
            check_straight_line(fn)
            tensors = [t for call in calls for t in _allocate(call, self.alignment)]
            _insert_kills(fn, tensors)
