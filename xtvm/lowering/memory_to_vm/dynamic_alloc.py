"""``vm-manifest-dynamic-alloc``: explicit run-time allocation for the kernel
calls whose results have ``?`` dimensions (TVM's ``ManifestAlloc`` with
shape functions), on the VM's path; ``memory-manifest-alloc`` then
allocates the static ones.

Input: graph functions calling kernels with ``relay.call_lowered``
(``convert-relay-to-tir``'s output). A kernel with dynamic axes records in
``tir.shape_vars`` which argument axes share each shape variable; a result
axis that shares its variable with an input axis has that input's extent.
That is the shape function of every kernel whose output dimensions are
input dimensions (elementwise ops, dense, convolutions and pools over a
dynamic batch, layout transforms, ...); a result axis that is no input's
(a run-time computed extent) is refused with a message naming the kernel.

Output, per such call (all of its results):

```mlir
%r = relay.call_lowered @k(%x, %w) : (tensor<?x784xf32>, tensor<256x784xf32>) -> tensor<?x256xf32>
// becomes
%r_shape = vm.shape_from %x {dims = array<i64: 0, 0, -1, 256>} : (tensor<?x784xf32>) -> tensor<2xi64>
%r_storage = vm.alloc_storage shape(%r_shape : tensor<2xi64>) {alignment = 64 : i64, dtype_hint = f32} : !vm.storage
%r = vm.alloc_tensor %r_storage shape(%r_shape : tensor<2xi64>) {offset = 0 : i64} : tensor<?x256xf32>
vm.kill %r_storage : !vm.storage
memory.invoke_kernel @k ins(%x, %w : ...) outs(%r : tensor<?x256xf32>)
```

and, in a straight-line function, a ``vm.kill`` of each such tensor after
its last use unless the function returns it, so that its memory goes back
as soon as it can (the storage itself is killed once its tensor holds it).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xtvm.dialects import vm
from xtvm.dialects.memory import InvokeKernelOp
from xtvm.dialects.relay import CallLoweredOp
from xtvm.dialects.tir import PrimFuncOp
from xtvm.passes.memory.liveness import tensors_in

PASS_NAME = "vm-manifest-dynamic-alloc"


class DynamicAllocError(ValueError):
    """A dynamic result whose shape the kernel's signature does not give."""


def _is_dynamic(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and not value.type.has_static_shape()


def _result_dims(call: CallLoweredOp, kernel: PrimFuncOp, k: int) -> list[tuple[int, int]]:
    """Result ``k``'s dimensions as ``vm.shape_from`` pairs over the call's
    arguments: ``(argument, axis)`` for a dynamic axis, ``(-1, extent)``."""
    ty = call.res[k].type
    assert isinstance(ty, TensorType)
    out_arg = len(call.args) + k
    occurrences = kernel.shape_vars.values()
    dims: list[tuple[int, int]] = []
    for axis, extent in enumerate(ty.get_shape()):
        if extent != DYNAMIC_INDEX:
            dims.append((-1, extent))
            continue
        source = next(
            (
                (arg, a)
                for places in occurrences
                if (out_arg, axis) in places
                for arg, a in places
                if arg < len(call.args)
            ),
            None,
        )
        if source is None:
            raise DynamicAllocError(
                f"{PASS_NAME}: axis {axis} of result {k} ({ty}) of @{kernel.sym_name.data} is no "
                "input's extent (tir.shape_vars) and no shape operand gives it (value-dependent "
                "sizes come from a shape kernel: vm-manifest-value-shapes, docs/data-dependent-ops.md)"
            )
        dims.append(source)
    return dims


def _allocate(call: CallLoweredOp, kernel: PrimFuncOp, alignment: int) -> list[SSAValue]:
    """Replace ``call`` by run-time allocations and a destination-passing invoke."""
    tensors: list[SSAValue] = []
    new_ops: list[Operation] = []
    kills: list[Operation] = []
    for k, res in enumerate(call.res):
        ty = res.type
        assert isinstance(ty, TensorType)
        dims = _result_dims(call, kernel, k)
        used = sorted({src for src, _ in dims if src >= 0})
        operands = [call.args[i] for i in used]
        pairs = [(used.index(src), a) if src >= 0 else (src, a) for src, a in dims]
        shape = vm.ShapeFromOp(operands, pairs)
        storage = vm.AllocStorageOp(shape.result, alignment, ty.element_type)
        tensor = vm.AllocTensorOp(storage.storage, 0, ty, shape.result)
        hint = res.name_hint
        shape.result.name_hint = f"{hint}_shape" if hint else "shape"
        storage.storage.name_hint = f"{hint}_storage" if hint else "storage"
        tensor.result.name_hint = hint
        new_ops += [shape, storage, tensor]
        kills.append(vm.KillOp(storage.storage))
        tensors.append(tensor.result)
    invoke = InvokeKernelOp(kernel.sym_name.data, list(call.args), tensors)
    Rewriter.insert_op([*new_ops, *kills], InsertPoint.before(call))
    Rewriter.replace_op(call, invoke, new_results=tensors)
    return tensors


def insert_kills(fn: func.FuncOp, tensors: list[SSAValue]) -> None:
    """A ``vm.kill`` after the last use of each tensor the function does not
    return (its uses through tuples included)."""
    ops = list(fn.body.block.ops)
    position = {op: i for i, op in enumerate(ops)}
    last: dict[SSAValue, int] = {t: position[t.owner] for t in tensors}
    returned: set[SSAValue] = set()
    for i, op in enumerate(ops):
        for operand in op.operands:
            for t in tensors_in(operand):
                if t in last:
                    last[t] = max(last[t], i)
                    if isinstance(op, func.ReturnOp):
                        returned.add(t)
    for t, i in last.items():
        if t not in returned:
            Rewriter.insert_op(vm.KillOp(t), InsertPoint.after(ops[i]))


@dataclass(frozen=True)
class ManifestDynamicAllocPass(ModulePass):
    """Allocate the results of kernel calls with ``?`` dimensions at run
    time (see the module docstring); static calls are left to
    ``memory-manifest-alloc``."""

    name = "vm-manifest-dynamic-alloc"
    alignment: int = vm.DEFAULT_ALIGNMENT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = {f.sym_name.data: f for f in op.ops if isinstance(f, PrimFuncOp)}
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp):
                continue
            calls = [
                o for o in fn.walk() if isinstance(o, CallLoweredOp) and any(_is_dynamic(r) for r in o.res)
            ]
            tensors: list[SSAValue] = []
            for call in calls:
                name = call.callee.string_value()
                kernel = kernels.get(name)
                if kernel is None:
                    raise DynamicAllocError(
                        f"{PASS_NAME}: @{fn.sym_name.data} calls @{name}, which is no tir.prim_func of the module"
                    )
                tensors += _allocate(call, kernel, self.alignment)
            straight = len(fn.body.blocks) == 1 and not any(o.regions for o in fn.body.block.ops)
            if tensors and straight:
                insert_kills(fn, tensors)
