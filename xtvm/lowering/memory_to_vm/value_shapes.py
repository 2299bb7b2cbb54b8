"""``vm-manifest-value-shapes``: run-time allocation for the results of
data-dependent kernels, whose sizes depend on input *values* (NonZero's
count, Compress's selection), from the shape a shape-function kernel
computed; on the VM's path, before ``vm-manifest-dynamic-alloc``.

A data-dependent relay op (``xtvm/dialects/relay/dynamic.py``) takes, as
its last operands, one shape tensor per result (``tensor<{rank}xi64>``,
the result of its ``relay.<op>_shape`` op, an ordinary static kernel that
reads the values). Its kernel has a result axis whose shape variable no
input binds (only output buffers list it in ``tir.shape_vars``): the VM
allocates that result with the shape tensor's values, then calls the
kernel, which binds the variable from the output buffer.

```mlir
%y = relay.call_lowered @fused_nonzero(%x, %s) : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x?xi64>
// becomes
%y_storage = vm.alloc_storage shape(%s : tensor<2xi64>) {alignment = 64 : i64, dtype_hint = i64} : !vm.storage
%y = vm.alloc_tensor %y_storage shape(%s : tensor<2xi64>) {offset = 0 : i64} : tensor<2x?xi64>
vm.kill %y_storage : !vm.storage
memory.invoke_kernel @fused_nonzero ins(%x, %s : ...) outs(%y : tensor<2x?xi64>)
```

Calls whose dynamic axes inputs bind are left to ``vm-manifest-dynamic-alloc``.
A call with a value-dependent axis but no shape operand of the right type
is refused, naming the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import vm
from xtvm.dialects.memory import InvokeKernelOp
from xtvm.dialects.relay import CallLoweredOp
from xtvm.dialects.tir import PrimFuncOp
from xtvm.lowering.memory_to_vm.dynamic_alloc import insert_kills

PASS_NAME = "vm-manifest-value-shapes"


class ValueShapeError(ValueError):
    """A value-dependent result without a shape operand."""


def _value_dependent(call: CallLoweredOp, kernel: PrimFuncOp) -> bool:
    """Whether some dynamic result axis has a shape variable no input binds."""
    n_in = len(call.args)
    places = list(kernel.shape_vars.values())
    for k, res in enumerate(call.res):
        ty = res.type
        if not isinstance(ty, TensorType):
            continue
        for axis, extent in enumerate(ty.get_shape()):
            if extent != DYNAMIC_INDEX:
                continue
            bound = any(
                (n_in + k, axis) in axes and any(arg < n_in for arg, _ in axes) for axes in places
            )
            if not bound:
                return True
    return False


def _shape_operand(call: CallLoweredOp, kernel: PrimFuncOp, k: int) -> SSAValue:
    """Call argument ``len(args) - len(results) + k``: result ``k``'s shape."""
    ty = call.res[k].type
    assert isinstance(ty, TensorType)
    index = len(call.args) - len(call.res) + k
    want = TensorType(i64, [len(ty.get_shape())])
    if index < 0 or call.args[index].type != want:
        got = call.args[index].type if index >= 0 else "none"
        raise ValueShapeError(
            f"{PASS_NAME}: result {k} ({ty}) of @{kernel.sym_name.data} has a size that depends "
            f"on input values; its shape must be the call's argument #{index} of type {want} "
            f"(a relay.<op>_shape result), got {got}"
        )
    return call.args[index]


def _allocate(call: CallLoweredOp, kernel: PrimFuncOp, alignment: int) -> list[SSAValue]:
    tensors: list[SSAValue] = []
    new_ops: list[Operation] = []
    kills: list[Operation] = []
    for k, res in enumerate(call.res):
        ty = res.type
        assert isinstance(ty, TensorType)
        shape = _shape_operand(call, kernel, k)
        storage = vm.AllocStorageOp(shape, alignment, ty.element_type)
        tensor = vm.AllocTensorOp(storage.storage, 0, ty, shape)
        hint = res.name_hint
        storage.storage.name_hint = f"{hint}_storage" if hint else "storage"
        tensor.result.name_hint = hint
        new_ops += [storage, tensor]
        kills.append(vm.KillOp(storage.storage))
        tensors.append(tensor.result)
    invoke = InvokeKernelOp(kernel.sym_name.data, list(call.args), tensors)
    Rewriter.insert_op([*new_ops, *kills], InsertPoint.before(call))
    Rewriter.replace_op(call, invoke, new_results=tensors)
    return tensors


@dataclass(frozen=True)
class ManifestValueShapesPass(ModulePass):
    """Allocate the results of data-dependent kernels from their shape
    operands (see the module docstring)."""

    name = "vm-manifest-value-shapes"
    alignment: int = vm.DEFAULT_ALIGNMENT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = {f.sym_name.data: f for f in op.ops if isinstance(f, PrimFuncOp)}
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp):
                continue
            tensors: list[SSAValue] = []
            for call in [o for o in fn.walk() if isinstance(o, CallLoweredOp)]:
                kernel = kernels.get(call.callee.string_value())
                if kernel is not None and _value_dependent(call, kernel):
                    tensors += _allocate(call, kernel, self.alignment)
            straight = len(fn.body.blocks) == 1 and not any(o.regions for o in fn.body.block.ops)
            if tensors and straight:
                insert_kills(fn, tensors)
